/**
 * Verification on a fleet, for real: `nats-server -js` (Debian's) and nginx (the remote cache) on
 * loopback, a face in one temp directory and `vkit worker`s each in another, with its own store
 * and scratch space: nothing is shared but NATS and the CAS, so nothing works by accident through
 * a shared disk.
 * - A check run by a worker gives the gate and receipt a local build gives (all but the run,
 *   attempt and timings, which are each run's own).
 * - A worker killed (-9) mid-check: its attempt ends interrupted, `worker lost`, within the ack
 *   deadline plus 2 s, and the gate is not READY.
 * - A worker presumed lost that comes back with its result: recorded against its own attempt only,
 *   which stays interrupted: no pass, no cache entry.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ACK_WAIT_MS } from '../../src/jobs/fleet/protocol.js';
import { openWorkspace } from '../../src/service/index.js';
import { parseReceipt } from '../../src/store/receipt.js';
import { Store } from '../../src/store/store.js';
import { keyFiles } from '../_support/keys.js';
import { type FleetWorker, type NatsServer, natsSkip, startNats, startWorker } from '../_support/nats.js';
import { type Nginx, nginxSkip, startNginx } from '../_support/nginx.js';
import { jobFor } from '../_support/jobs.js';
import { nodeCheck, tempRepo, type TempRepo, vkit, vkitAsync } from '../_support/repo.js';
import { waitFor } from '../_support/wait.js';

const skip = natsSkip().skip || nginxSkip().skip;
const work = mkdtempSync(join(tmpdir(), 'vkit-fleet-'));
const W = keyFiles(work, 'worker');

let nats: NatsServer;
let nginx: Nginx;
const workers: FleetWorker[] = [];

/** A project trusting the worker's key, with one check reading its input (and sleeping `sleepMs`). */
function project(sleepMs = 0): TempRepo {
  const repo = tempRepo({ 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' });
  repo.manifest({
    checks: [
      {
        id: 'hello',
        run: nodeCheck(
          `const fs = require('fs'); if (fs.readFileSync('src/a.txt', 'utf8') !== 'a\\n') process.exit(1); console.log('read', fs.readFileSync('src/b.txt', 'utf8').trim()); setTimeout(() => {}, ${sleepMs});`,
        ),
        inputs: ['src/*.txt'],
      },
    ],
  });
  assert.equal(vkit(['policy', 'trust-signer', W.pub, '--name', 'fleet'], { cwd: repo.dir }).code, 0);
  repo.commitAll();
  return repo;
}

function clone(origin: string): string {
  const dir = mkdtempSync(join(work, 'clone-'));
  execFileSync('git', ['clone', '-q', origin, dir]);
  return dir;
}

/** The receipt the store records for the label's latest run, without what is each run's own. */
function latestReceipt(dir: string, label: string): Record<string, unknown> {
  const store = new Store(join(dir, '.git', 'vkit'));
  try {
    const run = store.lifecycle.listRuns({ label, limit: 1 })[0]!;
    const read = store.actions.readReceipt(run.receipt!);
    assert.equal(read.state, 'intact');
    const {
      run: _r,
      attempt: _a,
      timings: _t,
      ...rest
    } = parseReceipt(read.receipt)! as unknown as Record<string, unknown>;
    return rest;
  } finally {
    store.close();
  }
}

/** Kills what the worker's attempts left running (a killed worker's check outlives it). */
/** The face's workspace, in this process: jobs go to NATS, results come back through nginx; it signs nothing itself. */
function openFace(root: string): ReturnType<typeof openWorkspace> {
  return openWorkspace({
    root,
    executor: nats.url,
    remote: { url: nginx.url },
    env: { ...process.env, VKIT_SIGNING_KEY: '' },
  });
}

function killChecks(worker: FleetWorker): void {
  let store: Store;
  try {
    store = new Store(join(worker.dir, 'vkit-worker', 'store'));
  } catch {
    return;
  }
  try {
    for (const run of store.lifecycle.listRuns())
      for (const a of store.lifecycle.attemptsOf(run.id))
        if (a.child_pgid)
          try {
            process.kill(-a.child_pgid, 'SIGKILL');
          } catch {}
  } finally {
    store.close();
  }
}

describe('jobs on a fleet over NATS JetStream', { skip }, () => {
  before(async () => {
    [nats, nginx] = await Promise.all([startNats(), startNginx()]);
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([nats?.stop(), nginx?.stop()]);
    rmSync(work, { recursive: true, force: true });
  });

  test('a check run by a fleet worker: the same gate and receipt as a local build', async () => {
    const worker = await startWorker(nats.url, nginx.url, W.key);
    workers.push(worker);
    const repo = project();
    const local = clone(repo.dir);
    const fleet = vkit(['build', '--json', '--executor', nats.url, '--remote', nginx.url], {
      cwd: repo.dir,
      env: { VKIT_SIGNING_KEY: '' },
    });
    assert.equal(fleet.code, 0, fleet.stdout + fleet.stderr + worker.log());
    const built = fleet.json();
    assert.equal(built.gate.status, 'READY');
    assert.deepEqual(
      built.actions.map((a: { label: string; status: string; outcome: string }) => [a.label, a.status, a.outcome]),
      [['check:hello', 'ran', 'PASS']],
    );
    await worker.waitFor(/check:hello run_\S+ att_\S+: PASS\n/);
    const here = vkit(['build', '--json', '--executor', 'local'], { cwd: local });
    assert.equal(here.code, 0, here.stderr);
    assert.equal(here.json().gate.status, built.gate.status);
    assert.deepEqual(latestReceipt(repo.dir, 'check:hello'), latestReceipt(local, 'check:hello'));
    // The face's store records the run as its own: the next build there reuses it.
    const again = vkit(['build', '--json', '--executor', nats.url, '--remote', nginx.url], { cwd: repo.dir });
    assert.deepEqual([again.code, again.json().stats.ran], [0, 0], again.stderr);
    await worker.stop(); // each test has its workers alone
  });

  test('a worker killed (-9) mid-check: the attempt ends interrupted (worker lost) within the ack deadline + 2 s; not READY', async () => {
    const worker = await startWorker(nats.url, nginx.url, W.key);
    workers.push(worker);
    const repo = project(15_000);
    const face = vkitAsync(['build', '--json', '--executor', nats.url, '--remote', nginx.url], {
      cwd: repo.dir,
      env: { VKIT_SIGNING_KEY: '' },
    });
    let stdout = '';
    face.stdout!.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((r) => face.once('exit', (code) => r(code)));
    const storeDir = join(repo.dir, '.git', 'vkit');
    let store: Store | undefined;
    try {
      await waitFor(
        () => {
          try {
            store ??= new Store(storeDir);
          } catch {
            return false;
          }
          return store.lifecycle.listRuns().some((r) => r.state === 'running');
        },
        30_000,
        'the worker to claim the run',
      );
      // Let it beat a few times first: a worker heard from, then gone.
      await new Promise((r) => setTimeout(r, 1500));
      worker.child.kill('SIGKILL');
      const killedAt = Date.now();
      assert.equal(await exited, 3, stdout);
      const built = JSON.parse(stdout);
      assert.notEqual(built.gate.status, 'READY');
      assert.deepEqual(
        built.actions.map((a: { outcome: string; reason: string }) => [a.outcome, a.reason]),
        [['BLOCKED', 'worker lost']],
      );
      const run = store!.lifecycle.listRuns({ label: 'check:hello' })[0]!;
      const attempts = store!.lifecycle.attemptsOf(run.id);
      assert.deepEqual(
        [run.state, run.receipt, attempts.map((a) => [a.state, a.reason])],
        ['interrupted', null, [['interrupted', 'worker lost']]],
      );
      const endedAfterMs = Number(BigInt(attempts[0]!.ended_ns!) / 1_000_000n) - killedAt;
      assert.ok(endedAfterMs <= ACK_WAIT_MS + 2000, `ended ${endedAfterMs} ms after the kill`);
      assert.equal(store!.actions.cacheGet(run.key), undefined, 'nothing cached');
    } finally {
      store?.close();
      killChecks(worker);
      await worker.stop();
    }
  });

  test('a worker presumed lost that comes back: its late result is not recorded; its attempt stays interrupted, nothing cached', async () => {
    const worker = await startWorker(nats.url, nginx.url, W.key);
    workers.push(worker);
    const repo = project(ACK_WAIT_MS + 3000);
    const ws = await openFace(repo.dir);
    try {
      const job = jobFor(ws, 'check:hello');
      const { run } = ws.jobs.submit(job);
      await waitFor(() => ws.store.lifecycle.runningAttempt(run) !== undefined, 30_000, 'the claim');
      // The worker stops answering (a network cut, a machine paused); its check goes on.
      worker.child.kill('SIGSTOP');
      const lost = await ws.jobs.wait(run, 20_000);
      assert.deepEqual([lost.timedOut, lost.run.state, lost.run.reason], [false, 'interrupted', 'worker lost']);
      worker.child.kill('SIGCONT');
      // Back, it finishes its attempt, uploads its signed result and hands it in: refused.
      await worker.waitFor(/check:hello run_\S+ att_\S+: PASS \(not recorded by its face: /, 30_000);
      const row = ws.store.lifecycle.getRun(run)!;
      assert.deepEqual(
        [row.state, row.outcome, row.reason, row.receipt],
        ['interrupted', 'BLOCKED', 'worker lost', null],
      );
      assert.deepEqual(
        ws.store.lifecycle.attemptsOf(run).map((a) => [a.state, a.reason]),
        [['interrupted', 'worker lost']],
      );
      assert.equal(ws.store.actions.cacheGet(job.key), undefined, 'a late result is never cached here');
      assert.equal(ws.store.actions.latest('check:hello'), undefined, "nor made the label's latest");
      assert.equal(ws.jobs.resultOf(row).outcome, 'BLOCKED');
    } finally {
      ws.close();
      killChecks(worker);
      await worker.stop();
    }
  });

  test('vkit run cancel reaches the attempt on its worker: the run ends interrupted (cancelled) and the worker stops its check', async () => {
    const worker = await startWorker(nats.url, nginx.url, W.key);
    workers.push(worker);
    const repo = project(60_000);
    const ws = await openFace(repo.dir);
    try {
      const job = jobFor(ws, 'check:hello');
      const { run } = ws.jobs.submit(job);
      await waitFor(() => ws.store.lifecycle.runningAttempt(run) !== undefined, 30_000, 'the claim');
      const row = await ws.jobs.cancel(run);
      assert.deepEqual([row.state, row.outcome, row.reason], ['interrupted', 'BLOCKED', 'cancelled']);
      // The check sleeps a minute: only the cancellation reaching its worker ends it this soon (the
      // face can end the attempt in its store, but only the worker can stop its check).
      await worker.waitFor(/check:hello run_\S+ att_\S+: BLOCKED/, 20_000);
      assert.equal(ws.store.actions.cacheGet(job.key), undefined);
    } finally {
      ws.close();
      killChecks(worker);
      await worker.stop();
    }
  });
});
