/**
 * `vkit watch` in a real temp repo, through the built binary: the first cycle settles READY; an edit
 * reruns only the check that reads the file; an invalid config is BLOCKED ("config invalid") until
 * fixed; --json prints only `vkit.event/1` objects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v from 'valibot';
import { EventSchema } from '../../src/engine/events.js';
import { tempRepo, type TempRepo } from '../_support/repo.js';
import { readCheck, startWatch } from './_watch.js';

const SETTLED = /^cycle (\d+) settled: (READY|REJECTED|BLOCKED) in \d+ ms$/;
/** First two words of the outcome lines (ran/cached/failed/blocked) between two indexes, sorted. */
const outcomes = (lines: string[], from: number, to: number) =>
  lines
    .slice(from + 1, to)
    .filter((l) => /^(ran|cached|failed|blocked)\s/.test(l))
    .map((l) => l.split(/\s+/).slice(0, 2).join(' '))
    .sort();

async function withRepo(files: Record<string, string>, fn: (repo: TempRepo) => Promise<void>) {
  const repo = tempRepo(files);
  try {
    await fn(repo);
  } finally {
    repo.cleanup();
  }
}

test('first cycle settles READY; an edit reruns only the check reading it, the other is cached', () =>
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt']), readCheck('b', ['b.txt'])] });
    const w = startWatch(repo);
    try {
      const s1 = await w.line(/^cycle 1 settled:/);
      assert.match(w.lines[s1]!, SETTLED);
      assert.match(w.lines[s1]!, /READY/);
      assert.equal(w.lines[0], 'cycle 1 started: initial');
      assert.deepEqual(outcomes(w.lines, 0, s1), ['ran check:a', 'ran check:b']);

      repo.write('a.txt', 'a changed\n');
      const c2 = await w.line(/^cycle 2 started:/, s1);
      assert.equal(w.lines[c2], 'cycle 2 started: 1 changed (a.txt)');
      const s2 = await w.line(/^cycle 2 settled:/, c2);
      assert.match(w.lines[s2]!, /^cycle 2 settled: READY in \d+ ms$/);
      assert.deepEqual(outcomes(w.lines, c2, s2), ['cached check:b', 'ran check:a']);
      // One line per event: the rerun action is queued, started, then finished; the cached one only cached.
      const own = (label: string) =>
        w.lines
          .slice(c2 + 1, s2)
          .filter((l) => l.split(/\s+/)[1] === label)
          .map((l) => l.split(/\s+/)[0]);
      assert.deepEqual(own('check:a'), ['queued', 'started', 'ran']);
      assert.deepEqual(own('check:b'), ['cached']);

      // A file no check reads starts no cycle.
      repo.write('unrelated.md', 'x\n');
      repo.write('b.txt', 'b changed\n');
      const c3 = await w.line(/^cycle 3 started:/, s2);
      assert.equal(w.lines[c3], 'cycle 3 started: 1 changed (b.txt)');
      const s3 = await w.line(/^cycle 3 settled: READY/, c3);
      assert.deepEqual(outcomes(w.lines, c3, s3), ['cached check:a', 'ran check:b']);
    } finally {
      await w.stop();
    }
  }));

test('an invalid config settles BLOCKED with the error; fixing it recovers to READY', () =>
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    const good = { checks: [readCheck('a', ['a.txt'])] };
    repo.manifest(good);
    const w = startWatch(repo);
    try {
      const s1 = await w.line(/^cycle 1 settled: READY/);
      repo.write('vkit.manifest.json', '{ "checks": [ \n');
      const bad = await w.line(/^config invalid: /, s1);
      assert.match(w.lines[bad]!, /vkit\.manifest\.json/);
      assert.match(w.lines[bad]!, /Invalid JSON/);
      assert.match(w.lines[bad - 1]!, /^cycle 2 started: 1 changed \(vkit\.manifest\.json\)$/);
      assert.equal(await w.line(/^cycle 2 settled: BLOCKED in \d+ ms$/, bad), bad + 1);

      // A config that loads but names a missing input is invalid too; creating the file fixes it.
      repo.manifest({ checks: [readCheck('a', ['a.txt']), readCheck('n', ['new.txt'])] });
      const missing = await w.line(/^config invalid: .*new\.txt/, bad + 2);
      assert.equal(await w.line(/settled: BLOCKED/, missing), missing + 1);
      repo.write('new.txt', 'n\n');
      const s = await w.line(/settled: READY/, missing + 2);
      assert.ok(
        w.lines.slice(missing + 2, s).some((l) => /^ran\s+check:n\b/.test(l)),
        w.lines.join('\n'),
      );
    } finally {
      await w.stop();
    }
  }));

test('--json: every stdout line is one vkit.event/1 object; settles carry the cycle and the gate', () =>
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt'])] });
    const w = startWatch(repo, ['--json']);
    try {
      const s1 = await w.event((e) => e.type === 'cycle.settled' && e.cycle === 1);
      repo.write('a.txt', 'edited\n');
      await w.event((e) => e.type === 'cycle.settled' && e.cycle === 2, s1 + 1);
      repo.write('vkit.manifest.json', 'nope');
      await w.event((e) => e.type === 'cycle.settled' && e.cycle === 3);
      for (const line of w.lines) {
        const parsed = v.safeParse(EventSchema, JSON.parse(line));
        assert.ok(parsed.success, `not a vkit.event/1: ${line}`);
      }
      const events = w.events();
      assert.deepEqual(
        events.filter((e) => e.type === 'cycle.started').map((e) => [e.cycle, e.changed]),
        [
          [1, []],
          [2, ['a.txt']],
          [3, ['vkit.manifest.json']],
        ],
      );
      const settles = events.filter((e) => e.type === 'cycle.settled');
      assert.deepEqual(
        settles.map((e) => [e.cycle, e.status, e.gate.status]),
        [
          [1, 'READY', 'READY'],
          [2, 'READY', 'READY'],
          [3, 'BLOCKED', 'BLOCKED'],
        ],
      );
      assert.match(settles[2].gate.reason, /^config invalid: /);
      assert.deepEqual(settles[2].gate.items, []);
      assert.equal(events.find((e) => e.type === 'config.invalid').code, 'ERR_CONFIG_PARSE');
    } finally {
      await w.stop();
    }
  }));
