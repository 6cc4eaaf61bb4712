/**
 * `vkit store gc --keep-runs N`: deletes the runs beyond the N newest and every blob that no kept
 * run, cache entry or latest entry reaches; current cached evidence keeps the gate READY.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { blobPath, cli, openOpts, openStoreOf, receiptJson, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

function blobCount(dir: string): number {
  return readdirSync(join(dir, 'cas')).reduce((n, d) => n + readdirSync(join(dir, 'cas', d)).length, 0);
}

test('gc --keep-runs 1 after several builds: old runs and unreachable blobs go, the gate stays READY', async () => {
  const repo = tempRepo({ 'a.txt': 'v1\n', 'b.txt': 'b\n' });
  try {
    repo.manifest({
      checks: [
        // Prints its input, so each edit makes a distinct stdout blob.
        { id: 'a', run: nodeCheck("process.stdout.write(require('fs').readFileSync('a.txt'))"), inputs: ['a.txt'] },
        { id: 'b', run: nodeCheck("console.log('b', Math.random())"), inputs: ['b.txt'] },
      ],
    });
    await build(openOpts(repo));
    repo.write('a.txt', 'v2\n');
    await build(openOpts(repo));
    // A BLOCKED attempt of b (its input touched mid-run) leaves a receipt and a random stdout blob
    // that nothing caches; the next build reruns b and replaces it as b's latest.
    repo.write('b.txt', 'b2\n');
    const blocked = await build(
      openOpts(repo, {
        hooks: { afterExecute: (job) => void (job.label === 'check:b' && repo.write('b.txt', 'b2\n')) },
      }),
      { only: ['b'] },
    );
    const blockedB = blocked.actions.find((x) => x.label === 'check:b')!;
    assert.equal(blockedB.outcome, 'BLOCKED');
    const blockedBlobs = [
      blockedB.receipt!,
      ...receiptJson(repo, blockedB.receipt!).artifacts.map((x: { sha256: string }) => x.sha256),
    ];
    repo.write('a.txt', 'v3\n');
    const last = await build(openOpts(repo));
    assert.equal(last.gate.status, 'READY');
    const current = last.actions.map((x) => x.receipt!);

    const store = openStoreOf(repo);
    const runsBefore = store.lifecycle.listRuns({ limit: 100 }).length;
    const newest = store.lifecycle.listRuns({ limit: 1 })[0]!.id;
    store.close();
    assert.equal(runsBefore, 6, 'a, b; a; b blocked; a, b');
    const blobsBefore = blobCount(storeDir(repo));

    const gc = cli(repo, ['store', 'gc', '--keep-runs', '1', '--json']);
    assert.equal(gc.code, 0, gc.stderr);
    const result = gc.json();
    // Every run that made a cached result stays (a hit is checked against its run): only the
    // BLOCKED run of b, which nothing caches, goes.
    assert.equal(result.runs_deleted, 1);
    assert.ok(result.blobs_deleted >= 2, JSON.stringify(result));
    assert.equal(blobCount(storeDir(repo)), blobsBefore - result.blobs_deleted);

    const runs = cli(repo, ['runs', '--json']);
    const kept = runs.json().runs.map((r: { run: string }) => r.run);
    assert.equal(kept.length, runsBefore - 1);
    assert.ok(kept.includes(newest));
    assert.ok(!kept.includes(blockedB.run), 'the uncached BLOCKED run is deleted');
    for (const id of blockedBlobs.filter(
      (b) => !b.endsWith('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    )) {
      assert.equal(existsSync(blobPath(repo, id)), false, `unreachable blob ${id} deleted`);
    }
    for (const receipt of current) {
      assert.ok(existsSync(blobPath(repo, receipt)), 'current receipts kept');
      for (const a of receiptJson(repo, receipt).artifacts)
        assert.ok(existsSync(blobPath(repo, a.sha256)), `artifact ${a.name} kept`);
    }

    const g = cli(repo, ['gate', '--deep', '--json']);
    assert.equal(g.code, 0, g.stdout);
    assert.equal(g.json().status, 'READY');
    const again = await build(openOpts(repo));
    assert.deepEqual(
      again.actions.map((x) => x.status),
      ['cached', 'cached'],
    );

    const idle = cli(repo, ['store', 'gc', '--keep-runs', '1', '--json']);
    assert.equal(idle.json().runs_deleted, 0);
    assert.equal(idle.json().blobs_deleted, 0, 'a second gc finds nothing more');
  } finally {
    repo.cleanup();
  }
});

test('gc keeps the runs of attempts still running', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['a.txt'] }] });
    await build(openOpts(repo));
    const store = openStoreOf(repo);
    let running: string;
    try {
      running = store.lifecycle.createRun({ key: `sha256:${'b'.repeat(64)}`, label: 'check:a', kind: 'check' });
      store.lifecycle.startAttempt(running);
      // A newer finished run, so the running one is not among the newest 1.
      await build(openOpts(repo), { force: true });
    } finally {
      store.close();
    }
    const gc = cli(repo, ['store', 'gc', '--keep-runs', '1', '--json']);
    assert.equal(gc.code, 0);
    const ids = cli(repo, ['runs', '--json'])
      .json()
      .runs.map((r: { run: string }) => r.run);
    assert.ok(ids.includes(running), 'the running run survives');
    assert.equal(ids.length, 2);
  } finally {
    repo.cleanup();
  }
});
