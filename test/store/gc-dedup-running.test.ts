/**
 * gc spares the blobs a running attempt may still name by their age (written since the oldest
 * running attempt started). But an attempt whose artifact is byte-identical to a blob already in the
 * CAS (an orphan a killed attempt left, a receipt no kept run reaches) does not write it again: the
 * old blob keeps its old mtime, a concurrent gc deletes it, and the attempt then publishes a PASS
 * receipt naming a blob that is gone. The build that ran it must not report READY on that.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, rmSync, utimesSync } from 'node:fs';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { blobPath, cli, openOpts, openStoreOf, receiptJson } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('gc during an attempt never leaves a READY build whose receipt names a deleted artifact', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('hello')"), inputs: ['a.txt'] }] });
    // An orphan blob with the bytes the check will print, as an attempt killed after putting its
    // stdout (before its receipt) leaves behind; old, so gc's age rule does not spare it.
    const store = openStoreOf(repo);
    const orphan = store.cas.putBytes('hello\n').sha256;
    const old = new Date(Date.now() - 60_000);
    utimesSync(blobPath(repo, orphan), old, old);
    store.close();

    let gcRan = false;
    const report = await build(
      openOpts(repo, {
        hooks: {
          // The action has finished and put its artifacts; its receipt is not written yet.
          afterExecute: () => {
            const gc = cli(repo, ['store', 'gc', '--keep-runs', '0', '--json']);
            assert.equal(gc.code, 0, gc.stderr);
            gcRan = true;
          },
        },
      }),
    );
    assert.ok(gcRan);
    const action = report.actions.find((x) => x.label === 'check:a')!;
    // The reused blob counts as written by this attempt, so gc spares it: a real PASS, intact.
    assert.equal(action.outcome, 'PASS', action.reason ?? '');
    assert.equal(report.gate.status, 'READY');
    for (const a of receiptJson(repo, action.receipt!).artifacts) {
      assert.ok(
        existsSync(blobPath(repo, a.sha256)),
        `READY, yet artifact ${a.name} (${a.sha256}) of its receipt was deleted by gc`,
      );
    }
    const g = cli(repo, ['gate', '--deep', '--json']);
    assert.equal(g.json().status, 'READY', g.stdout);
  } finally {
    repo.cleanup();
  }
});

test('an artifact deleted from the CAS before the attempt ends: the run ends BLOCKED, never a PASS naming a missing blob', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('bye')"), inputs: ['a.txt'] }] });
    const stdout = `sha256:${createHash('sha256').update('bye\n').digest('hex')}`;
    const report = await build(
      openOpts(repo, {
        hooks: {
          // What a gc that got the blob first leaves: the artifact is put, then gone, before the receipt.
          afterExecute: () => {
            assert.ok(existsSync(blobPath(repo, stdout)), 'the action put its stdout');
            rmSync(blobPath(repo, stdout));
          },
        },
      }),
    );
    const action = report.actions.find((x) => x.label === 'check:a')!;
    assert.equal(action.outcome, 'BLOCKED', `a PASS naming a deleted artifact: ${JSON.stringify(action)}`);
    assert.match(action.reason ?? '', /artifact stdout .* is missing/);
    assert.notEqual(report.gate.status, 'READY');
    const store = openStoreOf(repo);
    try {
      assert.equal(store.actions.cacheGet(action.key!), undefined, 'nothing cached for the key');
      assert.equal(store.lifecycle.getRun(action.run!)?.state, 'interrupted');
    } finally {
      store.close();
    }
    // The next build reruns the check and passes for real.
    const again = await build(openOpts(repo));
    assert.equal(again.gate.status, 'READY');
    assert.equal(again.actions[0]!.status, 'ran');
  } finally {
    repo.cleanup();
  }
});
