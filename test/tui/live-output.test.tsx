/**
 * The details pane of a running check shows its output so far: `loadLive(key, since)` is read while
 * the row runs and its details are open, again as the output grows, never once the check ended.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { App } from '../../src/tui/App.js';
import type { VkitEvent } from '../../src/engine/events.js';
import type { LiveOutput } from '../../src/store/live-log.js';
import { finished, runningAt, started } from './events.js';
import { sleep } from '../_support/wait.js';

const at = '2025-01-01T12:00:00.000Z';
const out = (stdout: string[], stderr: string[] = [], partial = false): LiveOutput => ({
  stdout: { lines: stdout, partial, cut: false },
  stderr: { lines: stderr, partial: false, cut: false },
});

function setup(loadLive: (key: string, since: number) => LiveOutput | undefined) {
  const listeners = new Set<(e: VkitEvent) => void>();
  const r = render(
    <App
      events={(l) => {
        listeners.add(l);
        return () => void listeners.delete(l);
      }}
      root="/repo"
      store="/repo/.git/vkit"
      rows={30}
      loadLive={loadLive}
      clock={() => Date.parse(at) + 7000}
      onRerun={() => {}}
      onRerunAll={() => {}}
      onQuit={() => {}}
    />,
  );
  const emit = async (...events: VkitEvent[]) => {
    for (const e of events) for (const l of listeners) l(e);
    await sleep(30);
  };
  return { r, emit, frame: () => r.lastFrame() ?? '' };
}

test('a running check’s details show its output so far, re-read as it grows, and its elapsed time', async () => {
  const calls: Array<[string, number]> = [];
  let now: LiveOutput | undefined = out(['compiling…'], [], true);
  const t = setup((key, since) => {
    calls.push([key, since]);
    return now;
  });
  try {
    await t.emit(started(1), runningAt('check:a', at));
    assert.equal(calls.length, 0, 'nothing is read while the details are closed');
    t.r.stdin.write('\r');
    await sleep(50);
    assert.deepEqual(calls[0], ['sha256:0', Date.parse(at)], 'read by the action key, from when it started');
    assert.match(t.frame(), /check:a running/);
    assert.match(t.frame(), /running for 7s/);
    assert.match(t.frame(), /live stdout, last 1 line\(s\) so far:\n\s+compiling… …/, 'the growing line is marked');
    now = out(['compiling…', 'test 1 ok', '\u001b]2;title\u0007test \u009b2J2 ok'], ['a warning']);
    await sleep(500);
    const f = t.frame();
    assert.match(f, /live stdout, last 3 line\(s\) so far:\n\s+compiling…\n\s+test 1 ok\n\s+test 2 ok\n/);
    assert.match(f, /live stderr, last 1 line\(s\) so far:\n\s+a warning/);
    assert.doesNotMatch(f, /[\u0007\u009b]|\u001b\]/, 'no escape from the output reaches the terminal');

    await t.emit(finished('check:a', 'PASS', { tail: [] }));
    const reads = calls.length;
    await sleep(500);
    assert.equal(calls.length, reads, 'no more reads once the check ended');
    assert.doesNotMatch(t.frame(), /live stdout/);
    assert.match(t.frame(), /check:a PASS/);
  } finally {
    t.r.unmount();
  }
});

test('no output yet, or a reader that throws, shows "none yet" and never crashes the TUI', async () => {
  let fail = false;
  const t = setup(() => {
    if (fail) throw new Error('EIO');
    return undefined;
  });
  try {
    await t.emit(started(1), runningAt('check:a', at));
    t.r.stdin.write('\r');
    await sleep(50);
    assert.match(t.frame(), /live output: none yet/);
    fail = true;
    await sleep(500);
    assert.match(t.frame(), /live output: none yet/);
    assert.match(t.frame(), /running for 7s/);
  } finally {
    t.r.unmount();
  }
});
