/**
 * Blobs are hashed by streaming: a CAS blob replaced by a file larger than node can read at once
 * (2 GiB, sparse here so the test costs no disk) is reported altered (the item STALE, exit 3) by a
 * plain gate, `gate --deep` and `evidence export`, never an internal error.
 */
import assert from 'node:assert/strict';
import { truncateSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { blobPath, cli, receiptJson } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const OVER_2_GIB = 2 ** 31 + 4096;

test('a stdout blob grown past 2 GiB: gate, gate --deep and evidence export say altered (exit 3), never exit 4', () => {
  const repo = tempRepo({ 'in.txt': 'in\n' });
  try {
    repo.age('in.txt');
    repo.manifest({ checks: [{ id: 't', run: nodeCheck("console.log('hello')"), inputs: ['in.txt'] }] });
    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 0, built.stderr);
    const receipt = receiptJson(repo, built.json().actions[0].receipt);
    const stdout = receipt.artifacts.find((a: { name: string }) => a.name === 'stdout');
    truncateSync(blobPath(repo, stdout.sha256), OVER_2_GIB);

    for (const args of [
      ['gate', '--deep', '--json'],
      ['gate', '--json'],
    ]) {
      const g = cli(repo, args);
      assert.equal(g.code, 3, `${args.join(' ')}: ${g.stderr}`);
      const item = g.json().items[0];
      assert.equal(item.status, 'STALE');
      assert.match(item.reason, /stdout .* is altered/);
    }
    const exported = cli(repo, [
      'evidence',
      'export',
      '--run',
      receipt.run,
      '--out',
      join(tmpdir(), `vkit-large-blob-${process.pid}.tar`),
      '--json',
    ]);
    assert.equal(exported.code, 3, exported.stderr);
    assert.equal(exported.json().error.code, 'ERR_EVIDENCE_DAMAGED');
    assert.match(exported.json().error.message, /is altered/);
  } finally {
    repo.cleanup();
  }
});
