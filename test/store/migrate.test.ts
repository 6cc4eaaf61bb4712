/** A store made by an earlier vkit (user_version 2, runs without `root`) opens, is stepped forward, and keeps its runs. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/store.js';
import { USER_VERSION } from '../../src/store/schema.js';

test('a version-2 store gains runs.root on open; its old runs read root null, new runs record theirs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-migrate-'));
  try {
    const first = new Store(dir);
    const old = first.lifecycle.createRun({
      key: `sha256:${'1'.repeat(64)}`,
      label: 'check:a',
      kind: 'check',
      queue: 'q_1',
    });
    first.close();
    // Make it what vkit wrote before runs had a root.
    const db = new Database(join(dir, 'index.sqlite'));
    db.exec('ALTER TABLE runs DROP COLUMN root');
    db.pragma('user_version = 2');
    db.close();

    const store = new Store(dir);
    try {
      assert.equal(store.db.pragma('user_version', { simple: true }), USER_VERSION);
      assert.equal(store.lifecycle.getRun(old)!.root, null);
      const fresh = store.lifecycle.createRun({
        key: `sha256:${'2'.repeat(64)}`,
        label: 'check:b',
        kind: 'check',
        queue: 'q_2',
        root: '/some/checkout',
      });
      assert.equal(store.lifecycle.getRun(fresh)!.root, '/some/checkout');
      // The frozen job's key is the run's job and its action key alike (one value, both columns).
      const row = store.lifecycle.getRun(fresh)!;
      assert.deepEqual([row.job, row.key], [`sha256:${'2'.repeat(64)}`, `sha256:${'2'.repeat(64)}`]);
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
