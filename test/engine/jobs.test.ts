/**
 * The job service: identical jobs submitted concurrently run once (one run id, one process), a job
 * is serialisable and re-planned by the worker, and a job whose key the worker would not compute
 * itself is refused (BLOCKED), never run under a wrong identity.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Job } from '../../src/jobs/job.js';
import { openWorkspace } from '../../src/service/index.js';
import { jobFor } from '../_support/jobs.js';
import { openOpts } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('identical concurrent jobs run once: one run id, one process', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    // Each execution appends a line, so the count of lines is the count of processes.
    repo.manifest({
      checks: [
        {
          id: 'once',
          run: nodeCheck("require('fs').appendFileSync('runs.log', 'x\\n'); setTimeout(() => {}, 200)"),
          inputs: ['a.txt'],
        },
      ],
    });
    writeFileSync(join(repo.dir, 'runs.log'), '');
    const ws = await openWorkspace(openOpts(repo));
    try {
      const job = jobFor(ws, 'check:once');
      const [r1, r2, r3] = await Promise.all([ws.jobs.run(job), ws.jobs.run(job), ws.jobs.run(structuredClone(job))]);
      assert.equal(r1.outcome, 'PASS');
      assert.equal(r1.run, r2.run);
      assert.equal(r1.run, r3.run);
      assert.equal(r1.receipt, r2.receipt);
      assert.equal(readFileSync(join(repo.dir, 'runs.log'), 'utf8'), 'x\n', 'the command ran once');
      assert.equal(ws.store.lifecycle.listRuns({ label: 'check:once' }).length, 1);

      // Once finished, the same job submitted again is a new run: dedup is for in-flight jobs only.
      const later = await ws.jobs.run(job);
      assert.notEqual(later.run, r1.run);
      assert.equal(ws.store.lifecycle.listRuns({ label: 'check:once' }).length, 2);
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
  }
});

test('a job whose key does not match what the worker computes is refused as BLOCKED and not cached', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [{ id: 'k', run: nodeCheck("require('fs').writeFileSync('ran.txt', 'ran')"), inputs: ['a.txt'] }],
    });
    const ws = await openWorkspace(openOpts(repo));
    try {
      const job = jobFor(ws, 'check:k');
      const forged: Job = { ...job, attrs: { ...job.attrs, timeout_s: 5 } };
      const r = await ws.jobs.run(forged);
      assert.equal(r.outcome, 'BLOCKED');
      assert.match(r.reason ?? '', /job identity changed/);
      assert.throws(() => readFileSync(join(repo.dir, 'ran.txt')), /ENOENT/, 'nothing was executed');
      assert.equal(ws.store.actions.cacheGet(job.key), undefined);
    } finally {
      ws.close();
    }
  } finally {
    repo.cleanup();
  }
});
