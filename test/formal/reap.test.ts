/**
 * Containers an attempt started are reached only through the attempt's own name prefix: when the
 * store recovers a lost worker's attempt, the job service removes that attempt's containers and
 * leaves every other container running. Real podman and the worker image; skips loudly without them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { containerPrefix } from '../../src/checkers/container-names.js';
import { reapAttemptContainers } from '../../src/jobs/containers.js';
import { Store } from '../../src/store/store.js';
import { inspectContainer, requireSandbox, systemSandbox } from '../_support/podman.js';
import { sleep } from '../_support/wait.js';

const sys = await systemSandbox({ what: 'container reaping' });

test('a recovered attempt loses exactly its own containers; another attempt keeps its own', {
  skip: sys.skip,
}, async () => {
  const { sandbox, image } = requireSandbox(sys);
  const dir = mkdtempSync(join(tmpdir(), 'vkit-reap-'));
  // An attempt whose worker is gone and whose heartbeat is stale: recovery ends it.
  let now = 1_000_000_000_000n;
  const store = new Store(dir, { now: () => now, alive: () => false });
  const run = store.lifecycle.createRun({ key: 'k'.repeat(64), label: 'formal:x', kind: 'formal-check', queue: 'q1' });
  const claimed = store.lifecycle.claimRun('q1')!;
  const lost = claimed.attempt;
  const other = `att_keep${randomBytes(3).toString('hex')}`;
  const start = (name: string) => {
    const controller = new AbortController();
    const done = sandbox.run({
      image,
      argv: ['sleep', '120'],
      binds: [],
      workdir: '/',
      timeoutMs: 120_000,
      signal: controller.signal,
      name,
    });
    return { name, controller, done };
  };
  const mine = start(`${containerPrefix(lost)}-step1`);
  const theirs = start(`${containerPrefix(other)}-step1`);
  try {
    for (
      let i = 0;
      i < 200 && !(inspectContainer(mine.name)?.State?.Running && inspectContainer(theirs.name)?.State?.Running);
      i++
    )
      await sleep(50);
    now += 60_000_000_000n;
    const recovered = store.lifecycle.recover();
    assert.deepEqual(recovered, [lost]);
    assert.equal(store.lifecycle.getRun(run)!.state, 'interrupted');
    const removed = await reapAttemptContainers(recovered);
    assert.deepEqual(removed, [mine.name]);
    assert.equal(inspectContainer(mine.name), undefined, "the lost attempt's container is gone");
    assert.equal(inspectContainer(theirs.name)?.State?.Running, true, "another attempt's container keeps running");
    assert.notEqual((await mine.done).exitCode, 0, 'the killed container never reports success');
  } finally {
    theirs.controller.abort();
    mine.controller.abort();
    await theirs.done;
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
