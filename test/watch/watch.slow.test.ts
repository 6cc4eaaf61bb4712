/**
 * `vkit watch` while a check runs: an edit made during the run is picked up by the next cycle (never
 * lost), and Ctrl-C cancels the running attempt (interrupted, reason cancelled) and exits 130.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';
import { startWatch } from './_watch.js';
import { sleep } from '../_support/wait.js';

test('an edit made while a slow check runs starts the next cycle, which reruns it', async () => {
  const repo = tempRepo({ 's.txt': 'one\n' });
  // Reads its input, then takes 1.5 s: long enough to edit the file mid-run.
  repo.manifest({
    checks: [
      {
        id: 'slow',
        run: ['node', '-e', "require('fs').readFileSync('s.txt'); setTimeout(() => {}, 1500)"],
        inputs: ['s.txt'],
      },
    ],
  });
  const w = startWatch(repo, ['--json']);
  try {
    const started = await w.event((e) => e.type === 'action.started' && e.label === 'check:slow');
    await sleep(300);
    repo.write('s.txt', 'two\n');
    const s1 = await w.event((e) => e.type === 'cycle.settled' && e.cycle === 1, started);
    const c2 = await w.event((e) => e.type === 'cycle.started' && e.cycle === 2, s1);
    assert.deepEqual(w.events()[c2].changed, ['s.txt'], 'the edit made during cycle 1 is the cause of cycle 2');
    const s2 = await w.event((e) => e.type === 'cycle.settled' && e.cycle === 2, c2, 20_000);
    const events = w.events();
    const finished2 = events.slice(c2, s2).filter((e) => e.type === 'action.finished' && e.label === 'check:slow');
    assert.equal(finished2.length, 1, 'cycle 2 ran the check again');
    assert.equal(finished2[0].outcome, 'PASS');
    assert.equal(events[s2].status, 'READY');
    // Cycle 1's attempt saw its input change under it: recorded BLOCKED, not a pass for either content.
    // The worker sees the edit after the run or, on a loaded machine, before the process starts.
    const finished1 = events.slice(started, s1).find((e) => e.type === 'action.finished');
    assert.equal(finished1.outcome, 'BLOCKED');
    assert.match(finished1.reason, /inputs changed during the run|inputs no longer match the job/);
  } finally {
    await w.stop();
    repo.cleanup();
  }
});

test('Ctrl-C while a check runs: the attempt ends interrupted (cancelled), the gate settles BLOCKED, exit 130', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({
    checks: [{ id: 'sleepy', run: ['node', '-e', 'setTimeout(() => {}, 60000)'], inputs: ['a.txt'], timeout_s: 120 }],
  });
  const w = startWatch(repo);
  try {
    await w.line(/^cycle 1 started: initial$/);
    // Give the worker time to claim the run, so the cancel takes the running path.
    const t0 = Date.now();
    for (;;) {
      const runs = cli(repo, ['runs', '--json']).json().runs;
      if (runs[0]?.state === 'running') break;
      assert.ok(Date.now() - t0 < 15_000, `the run never started: ${JSON.stringify(runs)}`);
      await sleep(100);
    }
    w.child.kill('SIGINT');
    const code = await w.exit();
    assert.equal(code, 130, w.stderr());
    assert.ok(Date.now() - t0 < 20_000);
    assert.ok(
      w.lines.some((l) => /^blocked\s+check:sleepy\b.*cancelled/.test(l)),
      w.lines.join('\n'),
    );
    assert.ok(
      w.lines.some((l) => /^cycle 1 settled: BLOCKED in \d+ ms$/.test(l)),
      w.lines.join('\n'),
    );
    const runs = cli(repo, ['runs', '--json']).json().runs;
    assert.equal(runs.length, 1);
    assert.equal(runs[0].state, 'interrupted');
    assert.equal(runs[0].reason, 'cancelled');
  } finally {
    await w.stop();
    repo.cleanup();
  }
});
