/**
 * A damaged store met by a detached worker, not by the face: the worker reports it on its stdout
 * and the face's build ends with that error (ERR_STORE_DAMAGED, exit 3, naming the index), at
 * once, instead of waiting for the heartbeat to go stale or starting worker after worker.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { cli, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('a frozen job damaged in the index: the rerun ends ERR_STORE_DAMAGED (exit 3) from the worker, within seconds', () => {
  const repo = tempRepo({ 'in.txt': 'in\n' });
  try {
    repo.age('in.txt');
    repo.manifest({ checks: [{ id: 't', run: nodeCheck('0'), inputs: ['in.txt'] }] });
    assert.equal(cli(repo, ['build']).code, 0);
    // The job row is content-addressed (INSERT OR IGNORE): a rerun of the same action reads this one.
    const db = new Database(join(storeDir(repo), 'index.sqlite'), { timeout: 10_000 });
    db.prepare("UPDATE jobs SET job = 'not json'").run();
    db.exec('DELETE FROM action_cache; DELETE FROM latest');
    db.close();
    const started = Date.now();
    const r = cli(repo, ['build', '--json']);
    assert.equal(r.code, 3, r.stderr);
    const error = r.json().error;
    assert.equal(error.code, 'ERR_STORE_DAMAGED');
    assert.match(error.message, /frozen job .* not JSON/);
    assert.match(error.message, /index\.sqlite/);
    assert.ok(error.hint);
    assert.ok(Date.now() - started < 8000, 'the face learns it from the worker, not from a stale heartbeat');
  } finally {
    repo.cleanup();
  }
});
