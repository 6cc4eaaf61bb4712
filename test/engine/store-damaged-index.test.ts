/**
 * A store whose SQLite index is damaged (overwritten with other bytes) made every
 * verb that opens it die with "internal error" (exit 4, "please report"), as if vkit had a bug.
 * It is damaged evidence: the verbs must say BLOCKED (exit 3), name the index and say how to recover,
 * and never report READY.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, storeDir } from '../_support/evidence.js';
import { storeWorkers, waitFor } from '../_support/wait.js';
import { tempRepo } from '../_support/repo.js';

test('a damaged index.sqlite: build, gate and runs exit 3 naming the index, never an internal error', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.age('a.txt');
    repo.manifest({ checks: [{ id: 't', run: ['true'], inputs: ['a.txt'] }] });
    // No standby worker: one started ahead gets its store on stdin, so storeWorkers cannot see it wait.
    assert.equal(cli(repo, ['build'], { VKIT_STANDBY: '0' }).code, 0);
    // The build's workers linger a moment with the index open (also one started for the run that
    // another claimed first, which recorded no attempt); a closing checkpoint would write the database
    // back over the damage (real evidence, but not the damaged store this test is about).
    await waitFor(() => storeWorkers(storeDir(repo)).length === 0, 15_000, "the build's workers to exit");
    const index = join(storeDir(repo), 'index.sqlite');
    for (const suffix of ['-wal', '-shm']) rmSync(index + suffix, { force: true });
    writeFileSync(index, Buffer.concat([Buffer.from('not a database '), randomBytes(4096)]));
    for (const args of [['gate'], ['build'], ['runs'], ['gate', '--json']]) {
      const r = cli(repo, args);
      assert.equal(r.code, 3, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.doesNotMatch(r.stderr, /internal error/);
      assert.match(r.stderr, /index\.sqlite/);
      if (args.includes('--json')) assert.equal(r.json().error.code, 'ERR_STORE_DAMAGED');
    }
    // Moving the damaged index aside (the hint) recovers: the check reruns and the gate is READY again.
    rmSync(index);
    const b = cli(repo, ['build', '--json']);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.json().actions[0].status, 'ran');
    // Its workers go before the repository does (they would write into a directory being removed).
    await waitFor(() => storeWorkers(storeDir(repo)).length === 0, 15_000, "the last build's workers to exit");
  } finally {
    repo.cleanup();
  }
});
