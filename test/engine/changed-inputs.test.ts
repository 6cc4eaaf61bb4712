/**
 * Invariant 3: an input whose stat fingerprint changed while its action ran makes the attempt
 * BLOCKED ("inputs changed during the run"), never cached, even when the bytes were restored before
 * the action ended; the next build reruns it. Edits are injected through WorkerHooks.afterExecute,
 * the real seam between the action's end and the input re-check.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Job } from '../../src/jobs/job.js';
import { build, gate } from '../../src/service/index.js';
import { cli, openOpts, openStoreOf, receiptJson } from '../_support/evidence.js';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';

function setup(): TempRepo {
  const repo = tempRepo({ 'in.txt': 'original\n', 'other.txt': 'other\n' });
  repo.age('in.txt');
  repo.age('other.txt');
  repo.manifest({
    checks: [
      { id: 'reads', run: nodeCheck("process.stdout.write(require('fs').readFileSync('in.txt'))"), inputs: ['in.txt'] },
      { id: 'other', run: nodeCheck('0'), inputs: ['other.txt'] },
    ],
  });
  return repo;
}

/** Edits `in.txt` and restores its exact bytes: only its stat fingerprint remains changed. */
const editAndUndo = (repo: TempRepo) => (job: Job) => {
  if (job.label !== 'check:reads') return;
  const path = join(repo.dir, 'in.txt');
  const before = readFileSync(path);
  repo.write('in.txt', 'edited while the check ran\n');
  repo.write('in.txt', before);
  repo.age('in.txt');
};

test('an input edited and restored while its check runs: BLOCKED, not cached, rerun next build', async () => {
  const repo = setup();
  try {
    const first = await build(openOpts(repo, { hooks: { afterExecute: editAndUndo(repo) } }));
    const reads = first.actions.find((a) => a.label === 'check:reads')!;
    const other = first.actions.find((a) => a.label === 'check:other')!;
    assert.equal(reads.outcome, 'BLOCKED');
    assert.equal(reads.status, 'blocked');
    assert.match(reads.reason ?? '', /inputs changed during the run: in\.txt/);
    assert.equal(other.outcome, 'PASS', 'an unrelated check is not affected');
    assert.equal(first.gate.status, 'BLOCKED');

    // The attempt is recorded (receipt + run), but nothing is cached under its key.
    const receipt = receiptJson(repo, reads.receipt!);
    assert.equal(receipt.outcome, 'BLOCKED');
    assert.equal(receipt.claim, 'unknown');
    const store = openStoreOf(repo);
    try {
      assert.equal(store.actions.cacheGet(reads.key!), undefined, 'BLOCKED is never cached');
      assert.equal(store.lifecycle.getRun(reads.run!)?.outcome, 'BLOCKED');
      assert.equal(store.lifecycle.getRun(reads.run!)?.state, 'done');
    } finally {
      store.close();
    }

    const g = await gate(openOpts(repo));
    const item = g.gate.items.find((i) => i.id === 'check:reads')!;
    assert.equal(g.gate.status, 'BLOCKED');
    assert.equal(item.status, 'BLOCKED');
    assert.match(item.reason, /inputs changed during the run/);
    assert.equal(cli(repo, ['gate']).code, 3);

    // Same bytes, same key: the next build still reruns it, because nothing was cached.
    const next = await build(openOpts(repo), { explain: true });
    const again = next.actions.find((a) => a.label === 'check:reads')!;
    assert.equal(again.key, reads.key);
    assert.equal(again.status, 'ran');
    assert.equal(again.outcome, 'PASS');
    assert.notEqual(again.run, reads.run);
    assert.match(again.explain?.[0] ?? '', /previous attempt was BLOCKED: inputs changed during the run/);
    assert.equal(next.actions.find((a) => a.label === 'check:other')!.status, 'cached');
    assert.equal(next.gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});

test('an input deleted while its check runs: BLOCKED naming the deletion', async () => {
  const repo = setup();
  try {
    const report = await build(
      openOpts(repo, {
        hooks: {
          afterExecute: (job) => {
            if (job.label === 'check:reads') rmSync(join(repo.dir, 'in.txt'));
          },
        },
      }),
    );
    const reads = report.actions.find((a) => a.label === 'check:reads')!;
    assert.equal(reads.outcome, 'BLOCKED');
    assert.match(reads.reason ?? '', /inputs changed during the run: in\.txt \(deleted\)/);
  } finally {
    repo.cleanup();
  }
});

test('a FAIL whose input changed during the run is BLOCKED too, not cached FAIL evidence', async () => {
  const repo = tempRepo({ 'in.txt': 'x\n' });
  try {
    repo.age('in.txt');
    repo.manifest({ checks: [{ id: 'bad', run: nodeCheck('process.exit(1)'), inputs: ['in.txt'] }] });
    const report = await build(openOpts(repo, { hooks: { afterExecute: () => repo.write('in.txt', 'x\n') } }));
    assert.equal(report.actions[0]!.outcome, 'BLOCKED');
    assert.equal(report.gate.status, 'BLOCKED', 'not REJECTED: the failure may describe other bytes');
    const next = await build(openOpts(repo));
    assert.equal(next.actions[0]!.status, 'failed');
    assert.equal(next.gate.status, 'REJECTED');
  } finally {
    repo.cleanup();
  }
});

test('a file its inputs select, created while the check runs: BLOCKED naming it as added, listed again by git (D59)', async () => {
  const repo = tempRepo({ 'src/a.txt': 'a\n', 'src/ignored.log': 'x\n', '.gitignore': '*.log\n' });
  try {
    repo.manifest({ checks: [{ id: 'dir', run: nodeCheck('0'), inputs: ['src/**', '!src/*.log'] }] });
    repo.commitAll();
    const created = (job: Job) => {
      if (job.label === 'check:dir') repo.write('src/new.txt', 'appeared during the run\n');
    };
    const first = await build(openOpts(repo, { hooks: { afterExecute: created } }));
    assert.equal(first.actions[0]!.outcome, 'BLOCKED');
    assert.match(first.actions[0]!.reason ?? '', /inputs changed during the run: src\/new\.txt \(added\)/);
    // A file git ignores, created the same way, is no input: the run stands.
    rmSync(join(repo.dir, 'src/new.txt'));
    const ignoredOnly = (job: Job) => {
      if (job.label === 'check:dir') repo.write('src/late.log', 'ignored\n');
    };
    const second = await build(openOpts(repo, { hooks: { afterExecute: ignoredOnly } }));
    assert.equal(second.actions[0]!.outcome, 'PASS', second.actions[0]!.reason ?? '');
  } finally {
    repo.cleanup();
  }
});
