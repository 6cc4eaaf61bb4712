/**
 * `vkit gate --deep` promises to re-hash everything the gate relies on, the way it
 * re-hashes artifact blobs whose stat fingerprint the shallow check trusts. It still took input
 * digests from the file-state cache: an index row that says "this fingerprint has the old digest"
 * (a damaged or tampered row) kept the old key, and the deep gate said READY over an input whose
 * current bytes were never checked.
 */
import assert from 'node:assert/strict';
import { lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, openStoreOf } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('gate --deep re-hashes inputs: a file-state row trusted for edited bytes cannot keep a PASS READY', () => {
  const repo = tempRepo({ 'in.txt': 'ok\n' });
  try {
    repo.age('in.txt');
    repo.manifest({
      checks: [
        {
          id: 't',
          run: nodeCheck("if (require('fs').readFileSync('in.txt', 'utf8').includes('bad')) process.exit(1)"),
          inputs: ['in.txt'],
        },
      ],
    });
    assert.equal(cli(repo, ['build']).code, 0);
    const abs = join(repo.dir, 'in.txt');
    const store = openStoreOf(repo);
    const row = store.fileStates.get(abs, 'text:same'); // an LF text file's text-mode entry
    store.close();
    assert.ok(row, 'the build recorded the input in the file-state cache');

    // Edit the input (same size), then make the index claim the new stat has the old digest.
    writeFileSync(abs, 'bad');
    repo.age('in.txt');
    const st = lstatSync(abs, { bigint: true });
    const s2 = openStoreOf(repo);
    try {
      s2.fileStates.put(abs, 'text:same', {
        size: Number(st.size),
        mtime_ns: String(st.mtimeNs),
        ctime_ns: String(st.ctimeNs),
        ino: String(st.ino),
        sha256: row!.sha256,
        recorded_ns: String(s2.now()),
      });
    } finally {
      s2.close();
    }
    assert.equal(
      cli(repo, ['gate']).code,
      0,
      'the shallow gate trusts the file-state cache (as it trusts blob fingerprints)',
    );
    const deep = cli(repo, ['gate', '--deep', '--json']);
    assert.equal(deep.code, 3, `--deep must not be READY: ${deep.stdout}`);
    assert.equal(deep.json().items[0].status, 'STALE');
    // The deep gate re-recorded the true digest: the next build reruns and sees the failure.
    const b = cli(repo, ['build', '--json']);
    assert.equal(b.json().actions[0].status, 'failed', b.stdout);
    assert.equal(b.code, 1);
  } finally {
    repo.cleanup();
  }
});
