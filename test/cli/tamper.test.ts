/**
 * Tampering seen through the CLI: `vkit gate` exits 3 with the item STALE and `vkit build`
 * recovers; `--deep` re-hashes artifacts whose stat fingerprint the shallow check trusts, while
 * receipts are always re-hashed (invariant 2).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { blobPath, cli, flipByte } from '../_support/evidence.js';
import { builtRepo, corruptAndTrust, editRunId } from '../_support/tamper.js';

test('CLI: receipt flip, stdout flip, stdout deletion: each makes `vkit gate` exit 3 (STALE) and `vkit build` recover (exit 0)', async () => {
  const { repo, blobs } = await builtRepo();
  try {
    assert.equal(cli(repo, ['gate']).code, 0);
    let receipt = blobs.receipt!;
    const cases: Array<[string, () => void]> = [
      ['receipt byte flip', () => flipByte(blobPath(repo, receipt), 3)],
      ['stdout byte flip', () => flipByte(blobPath(repo, blobs.stdout!))],
      ['stdout deleted', () => rmSync(blobPath(repo, blobs.stdout!))],
    ];
    for (const [what, damage] of cases) {
      damage();
      const g = cli(repo, ['gate', '--json']);
      assert.equal(g.code, 3, `${what}: ${g.stderr}`);
      assert.equal(g.json().status, 'BLOCKED', what);
      assert.equal(g.json().items[0].status, 'STALE', what);
      const b = cli(repo, ['build', '--json']);
      assert.equal(b.code, 0, `${what}: ${b.stderr}`);
      assert.equal(b.json().actions[0].status, 'ran', what);
      assert.equal(b.json().gate.status, 'READY', what);
      receipt = b.json().actions[0].receipt;
    }
    assert.equal(cli(repo, ['gate', '--deep']).code, 0);
  } finally {
    repo.cleanup();
  }
});

test('an artifact corrupted behind a trusted fingerprint passes the shallow gate, but --deep catches it', async () => {
  const { repo, blobs } = await builtRepo();
  try {
    corruptAndTrust(repo, blobs.stdout!);
    const shallow = cli(repo, ['gate', '--json']);
    assert.equal(shallow.code, 0, 'the shallow check trusts an unchanged stat fingerprint (invariant 2)');
    const deep = cli(repo, ['gate', '--deep', '--json']);
    assert.equal(deep.code, 3, deep.stdout);
    assert.equal(deep.json().status, 'BLOCKED');
    assert.equal(deep.json().items[0].status, 'STALE');
    assert.match(deep.json().items[0].reason, /artifact stdout .* is altered/);
    // A deep gate that found damage must not have refreshed the fingerprint into trust.
    assert.equal(cli(repo, ['gate', '--deep']).code, 3);
    const b = cli(repo, ['build', '--json']);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.json().actions[0].status, 'ran');
    assert.equal(cli(repo, ['gate', '--deep']).code, 0);
  } finally {
    repo.cleanup();
  }
});

test('a receipt corrupted behind a trusted fingerprint: the shallow gate judges by its genuine bytes, --deep catches it', async () => {
  const { repo, receipt } = await builtRepo();
  try {
    corruptAndTrust(repo, receipt, editRunId);
    // The index's copy of the receipt hashes to its id: the genuine result, never the edited bytes
    // (D49; the same shallow trust in a file's stat every artifact gets).
    const shallow = cli(repo, ['gate', '--json']);
    assert.equal(shallow.code, 0, shallow.stdout);
    const deep = cli(repo, ['gate', '--deep', '--json']);
    assert.equal(deep.code, 3, deep.stdout);
    assert.equal(deep.json().items[0].status, 'STALE');
    assert.match(deep.json().items[0].reason, /receipt .* is altered/);
    // The deep read dropped the fingerprint it found untrue: a shallow gate now reads the file too.
    const after = cli(repo, ['gate', '--json']);
    assert.equal(after.code, 3, after.stdout);
    assert.match(after.json().items[0].reason, /receipt .* is altered/);
    const b = cli(repo, ['build', '--json']);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.json().actions[0].status, 'ran');
    assert.equal(cli(repo, ['gate', '--deep']).code, 0);
  } finally {
    repo.cleanup();
  }
});
