/**
 * Killing processes mid-check. The face (`vkit build`) killed with SIGKILL: its detached worker
 * finishes the attempt, the store opens cleanly and the evidence is whole. The worker killed with
 * SIGKILL: the attempt becomes `interrupted` once its heartbeat is stale and its process is gone
 * (invariant 6), the gate is BLOCKED, never READY, and the next build reruns it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, openStoreOf, storeDir } from '../_support/evidence.js';
import { processGone, waitFor } from '../_support/wait.js';
import { nodeCheck, tempRepo, vkitAsync, WATCHED_FROM_OUTSIDE, type TempRepo } from '../_support/repo.js';

/** A check that records its pid and sleeps `ms` on its first attempt; later attempts pass at once. */
function sleepyRepo(ms: number): { repo: TempRepo; mark: string; env: NodeJS.ProcessEnv; scratch: string } {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-kill-'));
  const mark = join(scratch, 'mark');
  repo.manifest({
    checks: [
      {
        id: 'sleepy',
        run: nodeCheck(
          `const fs = require('fs'); const m = process.env.VKIT_TEST_MARK; if (!fs.existsSync(m)) { fs.writeFileSync(m, String(process.pid)); setTimeout(() => {}, ${ms}); }`,
        ),
        inputs: ['a.txt'],
        env: ['VKIT_TEST_MARK'],
        sandbox: WATCHED_FROM_OUTSIDE,
      },
    ],
  });
  return { repo, mark, env: { VKIT_TEST_MARK: mark }, scratch };
}

function runningAttempt(repo: TempRepo) {
  const store = openStoreOf(repo);
  try {
    const [run] = store.lifecycle.listRuns({ limit: 1 });
    return { run: run!, attempt: store.lifecycle.attemptsOf(run!.id).at(-1) };
  } finally {
    store.close();
  }
}

test('SIGKILL of the face: the detached worker finishes, the store opens, the evidence is whole', async () => {
  const { repo, mark, env, scratch } = sleepyRepo(1500);
  try {
    const child = vkitAsync(['build', '--json', '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir, env });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await waitFor(() => existsSync(mark) && readFileSync(mark, 'utf8').length > 0, 10_000, 'the check to start');
    child.kill('SIGKILL');
    await exited;
    assert.ok(processGone(child.pid!));
    const runs = cli(repo, ['runs', '--json']);
    assert.equal(runs.code, 0, runs.stderr);
    const { run, attempt } = runningAttempt(repo);
    assert.notEqual(attempt!.pid, child.pid, 'the attempt belongs to the worker, not the face');
    await waitFor(() => runningAttempt(repo).run.state === 'done', 15_000, 'the worker to finish the run');
    assert.equal(runningAttempt(repo).run.outcome, 'PASS');
    const g = cli(repo, ['gate', '--json'], env);
    assert.equal(g.code, 0, g.stdout);
    assert.equal(g.json().items[0].run, run.id);
  } finally {
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('SIGKILL of the worker mid-attempt: interrupted after recovery, gate BLOCKED (never READY), next build reruns', async () => {
  const { repo, mark, env, scratch } = sleepyRepo(60_000);
  let checkPid: number | undefined;
  try {
    const child = vkitAsync(['build', '--json', '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir, env });
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => existsSync(mark) && readFileSync(mark, 'utf8').length > 0, 10_000, 'the check to start');
    checkPid = Number(readFileSync(mark, 'utf8'));
    const { run, attempt } = runningAttempt(repo);
    assert.notEqual(attempt!.pid, child.pid);
    process.kill(attempt!.pid, 'SIGKILL');
    await waitFor(() => processGone(attempt!.pid), 5_000, 'the worker to die');
    // While the heartbeat is fresh the run is not recovered: the gate has no evidence, so BLOCKED.
    assert.equal(cli(repo, ['gate'], env).code, 3);
    // The face's wait runs recovery; once the heartbeat is 10 s stale the run ends interrupted.
    const code = await exited;
    assert.equal(code, 3, stdout);
    const report = JSON.parse(stdout);
    assert.equal(report.actions[0].outcome, 'BLOCKED');
    assert.equal(report.actions[0].reason, 'worker lost');
    assert.equal(report.gate.status, 'BLOCKED');
    const store = openStoreOf(repo);
    try {
      const row = store.lifecycle.getRun(run.id)!;
      assert.equal(row.state, 'interrupted');
      assert.equal(row.outcome, 'BLOCKED');
      assert.equal(store.actions.cacheGet(report.actions[0].key), undefined);
    } finally {
      store.close();
    }
    assert.equal(cli(repo, ['gate'], env).code, 3, 'an interrupted attempt is never a pass');
    const next = cli(repo, ['build', '--json'], env);
    assert.equal(next.code, 0, next.stderr + next.stdout);
    assert.equal(next.json().actions[0].status, 'ran');
  } finally {
    if (checkPid && !processGone(checkPid)) process.kill(-checkPid, 'SIGKILL');
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});
