/**
 * Invariant 6: recovery interrupts an attempt only when its heartbeat is stale AND its worker (pid
 * plus start time, same host) is gone. Interrupted attempts are BLOCKED and never become a pass,
 * even when the original worker finishes late. Clocks and liveness go through StoreOptions.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { build, gate } from '../../src/service/index.js';
import { currentOwner, type Owner } from '../../src/store/liveness.js';
import { STALE_HEARTBEAT_NS, Store, wallClockNs } from '../../src/store/store.js';
import { openOpts, openStoreOf } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const STALE = STALE_HEARTBEAT_NS + 1_000_000_000n;

function withStore(fn: (dir: string) => void | Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-store-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The owner of a process that has exited and been reaped. */
function deadOwner(): Owner {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return { ...currentOwner(), pid: Number(r.stdout), pidStart: '1' };
}

function startRun(store: Store, owner: Owner): { run: string; attempt: string } {
  const run = store.lifecycle.createRun({ key: `sha256:${'a'.repeat(64)}`, label: 'check:x', kind: 'check' });
  return { run, attempt: store.lifecycle.startAttempt(run, owner) };
}

test(
  "a dead worker's attempt with a stale heartbeat becomes interrupted with outcome BLOCKED",
  withStore((dir) => {
    const s1 = new Store(dir);
    const { run, attempt } = startRun(s1, deadOwner());
    s1.close();

    const fresh = new Store(dir);
    assert.deepEqual(fresh.recovered, [], 'a fresh heartbeat is not recovered even when its worker is gone');
    assert.equal(fresh.lifecycle.getRun(run)!.state, 'running');
    fresh.close();

    const later = wallClockNs() + STALE;
    const s2 = new Store(dir, { now: () => later });
    try {
      assert.deepEqual(s2.recovered, [attempt]);
      const r = s2.lifecycle.getRun(run)!;
      assert.equal(r.state, 'interrupted');
      assert.equal(r.outcome, 'BLOCKED');
      assert.equal(r.reason, 'worker lost');
      assert.equal(s2.lifecycle.attemptsOf(run)[0]!.state, 'interrupted');
      // The late finisher cannot turn it into a pass.
      assert.equal(s2.lifecycle.finishAttempt({ run, attempt, state: 'done', outcome: 'PASS' }), false);
      assert.equal(s2.lifecycle.getRun(run)!.outcome, 'BLOCKED');
      assert.equal(s2.lifecycle.getRun(run)!.state, 'interrupted');
    } finally {
      s2.close();
    }
  }),
);

test(
  'an attempt whose owner is alive (this process) is never interrupted, however stale its heartbeat',
  withStore((dir) => {
    const s1 = new Store(dir);
    const { run, attempt } = startRun(s1, currentOwner());
    s1.close();
    const later = wallClockNs() + 100n * STALE;
    const s2 = new Store(dir, { now: () => later });
    try {
      assert.deepEqual(s2.recovered, []);
      assert.equal(s2.lifecycle.getRun(run)!.state, 'running');
      assert.equal(s2.lifecycle.attemptsOf(run)[0]!.id, attempt);
      assert.equal(s2.lifecycle.attemptsOf(run)[0]!.state, 'running');
    } finally {
      s2.close();
    }
  }),
);

test(
  'a recycled pid (same pid, other start time) counts as gone',
  withStore((dir) => {
    const s1 = new Store(dir);
    const { run } = startRun(s1, { ...currentOwner(), pidStart: 'not-the-real-start-time' });
    s1.close();
    const later = wallClockNs() + STALE;
    const s2 = new Store(dir, { now: () => later });
    try {
      assert.equal(s2.recovered.length, 1);
      assert.equal(s2.lifecycle.getRun(run)!.state, 'interrupted');
    } finally {
      s2.close();
    }
  }),
);

test('an attempt recovered while its worker still runs ends BLOCKED and is never cached', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.age('a.txt');
    repo.manifest({ checks: [{ id: 'x', run: nodeCheck('0'), inputs: ['a.txt'] }] });
    let recovered: string[] = [];
    const report = await build(
      openOpts(repo, {
        hooks: {
          // Another opener, whose clock is 11 s ahead and who believes the worker is gone, recovers now.
          afterExecute: () => {
            const later = wallClockNs() + STALE;
            const other = openStoreOf(repo, { now: () => later, alive: () => false });
            recovered = other.recovered;
            other.close();
          },
        },
      }),
    );
    assert.equal(recovered.length, 1);
    const a = report.actions[0]!;
    assert.equal(a.outcome, 'BLOCKED');
    assert.equal(a.reason, 'worker lost');
    assert.equal(report.gate.status, 'BLOCKED');
    const store = openStoreOf(repo);
    try {
      assert.equal(store.actions.cacheGet(a.key!), undefined, 'an interrupted attempt is never cached');
      assert.equal(store.lifecycle.getRun(a.run!)!.state, 'interrupted');
      assert.equal(store.lifecycle.getRun(a.run!)!.outcome, 'BLOCKED');
    } finally {
      store.close();
    }
    const g = await gate(openOpts(repo));
    assert.notEqual(g.gate.items[0]!.status, 'PASS');
    assert.equal(g.gate.status, 'BLOCKED');
    const next = await build(openOpts(repo));
    assert.equal(next.actions[0]!.status, 'ran');
    assert.equal(next.gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});
