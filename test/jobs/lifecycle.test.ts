/**
 * The job lifecycle through the production API: queued -> running -> done | interrupted, cancel
 * (queued and running, only that run's own process group), the cancel/complete race with both orders
 * forced through the worker's fault-injection hook, retry, and bounded waits.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openWorkspace, verify, waitRun } from '../../src/service/index.js';
import { openOpts } from '../_support/evidence.js';
import { processGone, waitFor, sleep } from '../_support/wait.js';
import { jobFor } from '../_support/jobs.js';
import { nodeCheck, tempRepo, WATCHED_FROM_OUTSIDE, type TempRepo } from '../_support/repo.js';

function repoWith(checks: Array<{ id: string; code: string }>): TempRepo {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({
    checks: checks.map((c) => ({
      id: c.id,
      run: nodeCheck(c.code),
      inputs: ['a.txt'],
      env: ['VKIT_TEST_DIR'],
      sandbox: WATCHED_FROM_OUTSIDE,
    })),
  });
  return repo;
}

test('submit -> queued -> running -> done: states observed in the store, PASS with a receipt', async () => {
  const repo = repoWith([{ id: 'ok', code: 'setTimeout(() => {}, 300)' }]);
  try {
    const ws = await openWorkspace(openOpts(repo));
    try {
      ws.jobs.maxWorkers = 1;
      const { run } = ws.jobs.submit(jobFor(ws, 'check:ok'));
      const seen = new Set<string>([ws.store.lifecycle.getRun(run)!.state]);
      await waitFor(
        () => (seen.add(ws.store.lifecycle.getRun(run)!.state), ws.store.lifecycle.getRun(run)!.state === 'done'),
        10_000,
        'the run to end',
      );
      assert.ok(seen.has('running'), `states seen: ${[...seen]}`);
      const row = ws.store.lifecycle.getRun(run)!;
      assert.equal(row.outcome, 'PASS');
      assert.ok(row.receipt);
      const [attempt] = ws.store.lifecycle.attemptsOf(run);
      assert.equal(attempt!.state, 'done');
      assert.notEqual(attempt!.pid, process.pid, 'a detached worker ran it');
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
  }
});

test('one queued run starts one worker, however often its waiter polls before the worker claims it', async () => {
  const repo = repoWith([{ id: 'one', code: '0' }]);
  try {
    const ws = await openWorkspace(openOpts(repo));
    try {
      ws.jobs.maxWorkers = 2; // room for a second worker, which nothing would ever claim work for
      const { run } = ws.jobs.submit(jobFor(ws, 'check:one'));
      const { run: row } = await ws.jobs.wait(run, 20_000);
      assert.equal(row.outcome, 'PASS');
      assert.equal(ws.jobs.workersStarted, 1, 'a worker still starting was counted as free to claim the run');
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
  }
});

test('a run submitted after a starting worker claimed another gets a worker of its own', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-claimed-'));
  const repo = repoWith([
    {
      id: 'long',
      code: "require('fs').writeFileSync(process.env.VKIT_TEST_DIR + '/long', ''); setTimeout(() => {}, 30000)",
    },
    { id: 'other', code: "require('fs').writeFileSync(process.env.VKIT_TEST_DIR + '/other', '')" },
  ]);
  try {
    const ws = await openWorkspace({ ...openOpts(repo), env: { ...process.env, VKIT_TEST_DIR: scratch } });
    try {
      ws.jobs.maxWorkers = 2;
      const long = ws.jobs.submit(jobFor(ws, 'check:long')).run;
      // Blocks this event loop until the worker has claimed the run: its `+run` line is not read yet,
      // so the worker still counts as free when the next run is submitted (what a busy machine does).
      const until = Date.now() + 20_000;
      while (ws.store.lifecycle.getRun(long)!.state !== 'running' && Date.now() < until)
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      assert.equal(ws.store.lifecycle.getRun(long)!.state, 'running');
      const other = ws.jobs.submit(jobFor(ws, 'check:other')).run;
      await waitFor(() => existsSync(join(scratch, 'other')), 10_000, 'the second run to start beside the first');
      assert.equal(ws.jobs.workersStarted, 2);
      await ws.jobs.cancel(long);
      assert.equal((await ws.jobs.wait(other, 10_000)).run.outcome, 'PASS');
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('cancel: a queued run ends at once; a running one ends interrupted/cancelled with its process group killed, others untouched', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-cancel-'));
  const repo = repoWith([
    {
      id: 'long',
      code: "require('fs').writeFileSync(process.env.VKIT_TEST_DIR + '/long', String(process.pid)); setTimeout(() => {}, 30000)",
    },
    {
      id: 'other',
      code: "require('fs').writeFileSync(process.env.VKIT_TEST_DIR + '/other', String(process.pid)); setTimeout(() => {}, 1500)",
    },
    { id: 'later', code: '0' },
  ]);
  try {
    const ws = await openWorkspace({ ...openOpts(repo), env: { ...process.env, VKIT_TEST_DIR: scratch } });
    try {
      ws.jobs.maxWorkers = 2;
      const long = ws.jobs.submit(jobFor(ws, 'check:long')).run;
      const other = ws.jobs.submit(jobFor(ws, 'check:other')).run;
      await waitFor(
        () => existsSync(join(scratch, 'long')) && existsSync(join(scratch, 'other')),
        10_000,
        'both checks to start',
      );
      ws.jobs.maxWorkers = 0; // nothing claims the next one: it stays queued
      const later = ws.jobs.submit(jobFor(ws, 'check:later')).run;
      assert.equal(ws.store.lifecycle.getRun(later)!.state, 'queued');
      const q = await ws.jobs.cancel(later);
      assert.equal(q.state, 'interrupted');
      assert.equal(q.reason, 'cancelled');

      const checkPid = Number(readFileSync(join(scratch, 'long'), 'utf8'));
      const started = Date.now();
      const row = await ws.jobs.cancel(long);
      assert.ok(Date.now() - started < 4000, 'the worker acted on the nudge, not only on the grace period');
      assert.equal(row.state, 'interrupted');
      assert.equal(row.outcome, 'BLOCKED');
      assert.equal(row.reason, 'cancelled');
      await waitFor(() => processGone(checkPid), 5000, 'the cancelled check to die');
      assert.equal(
        ws.store.actions.cacheGet(jobFor(ws, 'check:long').key),
        undefined,
        'a cancelled attempt is never cached',
      );

      const { run: otherRow } = await ws.jobs.wait(other, 10_000);
      assert.equal(otherRow.state, 'done');
      assert.equal(otherRow.outcome, 'PASS', 'cancelling one run never touches another');
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});

/**
 * The three orders of the race, each forced through the worker's hook (the window between the
 * action's end and the attempt's finish): the cancel request lands first and the worker honours it;
 * the canceller's forced end wins the compare-and-set and the worker's late finish is refused; the
 * completion lands first and a late cancel changes nothing.
 */
for (const order of ['cancel-first', 'cancel-forced', 'complete-first'] as const) {
  test(`cancel racing completion, forced ${order}: exactly one wins and the state is consistent`, async () => {
    const repo = repoWith([{ id: 'race', code: '0' }]);
    try {
      let run = '';
      let cancelled: Promise<unknown> | undefined;
      const ws: Awaited<ReturnType<typeof openWorkspace>> = await openWorkspace(
        openOpts(repo, {
          hooks: {
            afterExecute: async () => {
              if (order === 'cancel-first') cancelled = ws.jobs.cancel(run);
              // The canceller waits out its grace period and ends the attempt itself before the worker finishes.
              if (order === 'cancel-forced') await ws.jobs.cancel(run);
            },
          },
        }),
      );
      try {
        const job = jobFor(ws, 'check:race');
        run = ws.jobs.submit(job).run;
        const { run: row } = await ws.jobs.wait(run, 30_000);
        if (order === 'complete-first') cancelled = ws.jobs.cancel(run);
        await cancelled;
        const final = ws.store.lifecycle.getRun(run)!;
        const attempts = ws.store.lifecycle.attemptsOf(run);
        assert.equal(attempts.length, 1);
        if (order === 'complete-first') {
          assert.equal(row.state, 'done');
          assert.equal(final.state, 'done');
          assert.equal(final.outcome, 'PASS');
          assert.equal(attempts[0]!.state, 'done');
          assert.equal(
            ws.store.actions.cacheGet(job.key),
            final.receipt,
            'the winner (completion) is published; the late cancel changed nothing',
          );
        } else {
          assert.equal(final.state, 'interrupted');
          assert.equal(final.outcome, 'BLOCKED');
          assert.equal(final.reason, 'cancelled');
          assert.equal(attempts[0]!.state, 'interrupted');
          assert.equal(ws.store.actions.cacheGet(job.key), undefined, 'the loser (completion) published nothing');
          // The worker that lost the compare-and-set wrote nothing more; one that honoured the cancel
          // records its BLOCKED receipt as the label's latest (for explain), never in the cache.
          if (order === 'cancel-forced') assert.equal(ws.store.actions.latest(job.label), undefined);
          else assert.equal(ws.store.lifecycle.getRun(run)!.receipt, ws.store.actions.latest(job.label)!.receipt);
        }
      } finally {
        ws.close();
      }
    } finally {
      repo.cleanup();
    }
  });
}

test('retry: a new run for the same frozen job; a retry after the inputs changed is BLOCKED, never about other bytes', async () => {
  const repo = repoWith([{ id: 'ok', code: '0' }]);
  try {
    const ws = await openWorkspace(openOpts(repo));
    try {
      const first = await ws.jobs.run(jobFor(ws, 'check:ok'));
      assert.equal(first.outcome, 'PASS');
      const again = ws.jobs.retry(first.run);
      assert.notEqual(again.run, first.run);
      const { run: row } = await ws.jobs.wait(again.run, 10_000);
      assert.equal(row.outcome, 'PASS');
      assert.equal(row.job, ws.store.lifecycle.getRun(first.run)!.job);

      repo.write('a.txt', 'changed\n');
      const stale = ws.jobs.retry(first.run);
      const { run: blocked } = await ws.jobs.wait(stale.run, 10_000);
      assert.equal(blocked.outcome, 'BLOCKED');
      assert.match(blocked.reason!, /inputs no longer match the job: a\.txt/);
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
  }
});

test('a bounded wait times out while the worker continues; waiting again sees it finish', async () => {
  const repo = repoWith([{ id: 'slow', code: 'setTimeout(() => {}, 1500)' }]);
  try {
    const report = await verify(openOpts(repo), { check: 'slow', waitMs: 100 });
    const action = report.actions[0]!;
    assert.equal(action.pending, true);
    assert.ok(action.run);
    const first = await waitRun(openOpts(repo), action.run!, 50);
    assert.equal(first.timed_out, true);
    assert.notEqual(first.summary.state, 'done');
    const done = await waitRun(openOpts(repo), action.run!, 20_000);
    assert.equal(done.timed_out, false);
    assert.equal(done.summary.state, 'done');
    assert.equal(done.summary.outcome, 'PASS');
  } finally {
    repo.cleanup();
  }
});

test('a run left queued by a face that never started its worker is adopted by a face that waits on it, never left queued', async () => {
  const repo = repoWith([{ id: 'orphan', code: '0' }]);
  try {
    const first = await openWorkspace(openOpts(repo));
    let run: string;
    try {
      first.jobs.maxWorkers = 0; // this face queues the run and goes away without starting a worker
      run = first.jobs.submit(jobFor(first, 'check:orphan')).run;
    } finally {
      first.close();
    }
    await sleep(400);
    const second = await openWorkspace(openOpts(repo));
    try {
      assert.equal(second.store.lifecycle.getRun(run)!.state, 'queued', 'nobody claimed it');
      const { JobService } = await import('../../src/jobs/service.js');
      const adopter = new JobService({
        root: second.root,
        store: second.store,
        rules: second.rules,
        adoptAfterMs: 200,
      });
      try {
        const { run: row, timedOut } = await adopter.wait(run, 15_000);
        assert.equal(timedOut, false);
        assert.equal(row.state, 'done');
        assert.equal(row.outcome, 'PASS');
        const [attempt] = second.store.lifecycle.attemptsOf(run);
        assert.notEqual(attempt!.pid, process.pid, 'an adopted detached worker ran it');
      } finally {
        adopter.close();
      }
    } finally {
      second.close();
    }
  } finally {
    repo.cleanup();
  }
});
