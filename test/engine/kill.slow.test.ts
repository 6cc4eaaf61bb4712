/**
 * A `vkit build` killed with SIGKILL mid-check leaves a store that opens cleanly; the next build
 * finishes READY; recovery (invariant 6) turns the dead worker's attempt into `interrupted` with
 * outcome BLOCKED once its heartbeat is stale, and never a pass.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { STALE_HEARTBEAT_NS, wallClockNs } from '../../src/store/store.js';
import { cli, openStoreOf, processGone, storeDir, waitFor } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkitAsync } from '../_support/repo.js';

test('SIGKILL during a check: store opens, runs lists it running, next build READY, recovery interrupts it', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-kill-'));
  const mark = join(scratch, 'mark');
  const env = { VKIT_TEST_MARK: mark };
  let checkPid: number | undefined;
  try {
    // First attempt: records its pid and sleeps 3 s. Later attempts (marker present) pass at once.
    repo.manifest({
      checks: [
        {
          id: 'sleepy',
          run: nodeCheck("const fs = require('fs'); const m = process.env.VKIT_TEST_MARK; if (!fs.existsSync(m)) { fs.writeFileSync(m, String(process.pid)); setTimeout(() => {}, 3000); }"),
          inputs: ['a.txt'],
          env: ['VKIT_TEST_MARK'],
        },
      ],
    });
    const child = vkitAsync(['build', '--json', '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir, env });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await waitFor(() => existsSync(mark) && readFileSync(mark, 'utf8').length > 0, 10_000, 'the check to start');
    checkPid = Number(readFileSync(mark, 'utf8'));
    const vkitPid = child.pid!;
    child.kill('SIGKILL');
    await exited; // reaped: the worker's pid is really gone
    assert.equal(child.signalCode, 'SIGKILL');
    assert.ok(processGone(vkitPid));

    const runs = cli(repo, ['runs', '--json']);
    assert.equal(runs.code, 0, runs.stderr);
    const listed = runs.json().runs;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].state, 'running', 'a fresh heartbeat is never recovered, even from a dead worker');
    assert.equal(listed[0].outcome, null);
    const deadRun = listed[0].run;

    const g = cli(repo, ['gate', '--json'], env);
    assert.equal(g.code, 3, 'an unfinished run is no evidence');

    const next = cli(repo, ['build', '--json'], env);
    assert.equal(next.code, 0, next.stderr + next.stdout);
    assert.equal(next.json().gate.status, 'READY');
    assert.equal(next.json().actions[0].status, 'ran');
    assert.notEqual(next.json().actions[0].run, deadRun);

    // Recovery with the clock 11 s ahead: the dead worker's attempt becomes interrupted/BLOCKED.
    const later = wallClockNs() + STALE_HEARTBEAT_NS + 1_000_000_000n;
    const store = openStoreOf(repo, { now: () => later });
    try {
      assert.equal(store.recovered.length, 1);
      const run = store.getRun(deadRun)!;
      assert.equal(run.state, 'interrupted');
      assert.equal(run.outcome, 'BLOCKED');
      assert.equal(run.reason, 'worker lost');
      const [attempt] = store.attemptsOf(deadRun);
      assert.equal(attempt!.state, 'interrupted');
      assert.equal(attempt!.outcome, 'BLOCKED');
      assert.equal(attempt!.pid, vkitPid);
    } finally {
      store.close();
    }
    const after = cli(repo, ['gate', '--json'], env);
    assert.equal(after.code, 0, 'recovering the dead run does not disturb current evidence');
  } finally {
    if (checkPid && !processGone(checkPid)) process.kill(-checkPid, 'SIGKILL');
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});
