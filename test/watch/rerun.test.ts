/**
 * The watch loop's rerun requests (the TUI's `r` and `a` keys), in process against a real temp repo,
 * store and workers: `r` reruns only the named item as a fresh run although its evidence is intact,
 * `a` reruns everything; stopping resolves the loop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VkitEvent } from '../../src/engine/events.js';
import { watch, type WatchControl } from '../../src/service/watch.js';
import { storeDir } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';
import { readCheck } from './_watch.js';
import { sleep } from '../_support/wait.js';

test('rerun requests: one label reruns fresh while the other stays cached; all reruns every item', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.manifest({ checks: [readCheck('a', ['a.txt']), readCheck('b', ['b.txt'])] });
  const events: VkitEvent[] = [];
  const waiters = new Set<() => void>();
  const control: WatchControl = {};
  const stop = new AbortController();
  const settledAt = (cycle: number) =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`cycle ${cycle} never settled: ${JSON.stringify(events.map((e) => e.type))}`)),
        30_000,
      );
      const check = () => {
        const i = events.findIndex((e) => e.type === 'cycle.settled' && e.cycle === cycle);
        if (i < 0) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(i);
      };
      waiters.add(check);
      check();
    });
  const loop = watch(
    { root: repo.dir, store: storeDir(repo) },
    {
      onEvent: (e) => {
        events.push(e);
        for (const w of [...waiters]) w();
      },
      signal: stop.signal,
      jobs: 2,
      control,
    },
  );
  const finished = (from: number, to: number) =>
    events
      .slice(from, to)
      .filter((e): e is Extract<VkitEvent, { type: 'action.finished' }> => e.type === 'action.finished');
  const cachedLabels = (from: number, to: number) =>
    events
      .slice(from, to)
      .filter((e) => e.type === 'action.cached')
      .map((e) => (e as { label: string }).label);
  try {
    const s1 = await settledAt(1);
    const firstRun = finished(0, s1).find((e) => e.label === 'check:a')!.run;
    assert.ok(firstRun);
    assert.equal(typeof control.rerun, 'function', 'watch fills in the control');

    control.rerun!(['check:a']);
    const s2 = await settledAt(2);
    const c2 = events.findIndex((e) => e.type === 'cycle.started' && e.cycle === 2);
    assert.deepEqual((events[c2] as { changed: string[] }).changed, ['rerun:check:a']);
    const ran2 = finished(c2, s2);
    assert.deepEqual(
      ran2.map((e) => [e.label, e.status]),
      [['check:a', 'ran']],
      'only the selected item reran',
    );
    assert.notEqual(ran2[0]!.run, firstRun, 'a new run, not the retained one');
    assert.ok(
      ran2[0]!.explain?.some((l) => /a fresh run was asked for/.test(l)),
      JSON.stringify(ran2[0]!.explain),
    );
    assert.deepEqual(cachedLabels(c2, s2), ['check:b']);
    assert.equal((events[s2] as { status: string }).status, 'READY');

    control.rerun!('all');
    const s3 = await settledAt(3);
    const c3 = events.findIndex((e) => e.type === 'cycle.started' && e.cycle === 3);
    assert.deepEqual(
      finished(c3, s3)
        .map((e) => [e.label, e.status])
        .sort(),
      [
        ['check:a', 'ran'],
        ['check:b', 'ran'],
      ],
    );
    assert.deepEqual(cachedLabels(c3, s3), []);

    // Nothing asked for: no fourth cycle starts on its own.
    await sleep(300);
    assert.equal(events.filter((e) => e.type === 'cycle.started').length, 3);
  } finally {
    stop.abort();
    await loop;
    repo.cleanup();
  }
});
