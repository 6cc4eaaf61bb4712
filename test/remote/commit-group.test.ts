/**
 * Remote imports commit in groups (src/remote/exchange.ts `commitSoon`): writes reaching the store in
 * one turn of the event loop share one transaction, each in a savepoint of its own. A write that
 * throws must lose only its own rows and reject only its own caller; the others commit.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { commitSoon } from '../../src/remote/exchange.js';
import { Store } from '../../src/store/store.js';

const pointer = (label: string) => ({
  label,
  receipt: `sha256:${'a'.repeat(64)}`,
  key: `sha256:${label.padEnd(64, '0')}`,
});

test('a failing write in a group rolls back only its own savepoint; the rest of the group commits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-commit-group-'));
  try {
    const store = new Store(dir);
    const results = await Promise.allSettled([
      commitSoon(store, () => {
        store.actions.setLatest(pointer('a'));
        return 'a';
      }),
      commitSoon(store, () => {
        store.actions.setLatest(pointer('b'));
        throw new Error('b failed after its write');
      }),
      commitSoon(store, () => {
        store.actions.setLatest(pointer('c'));
        return 'c';
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /b failed after its write/);
    store.close();
    // Read back from a fresh connection: what was committed, not what one connection still holds.
    const reopened = new Store(dir);
    assert.equal(reopened.actions.latest('a')?.key, pointer('a').key);
    assert.equal(reopened.actions.latest('b'), undefined);
    assert.equal(reopened.actions.latest('c')?.key, pointer('c').key);
    reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
