/**
 * `vkit store gc` walks `<store>/cas/<2 hex>/<62 hex>` and `<store>/tmp/`. A file or folder there
 * that is not a blob (a Finder `.DS_Store`, a backup copy, a folder a tool left) must not crash gc
 * (exit 4), and gc must delete only blobs: nothing it cannot name as one.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { cli, openOpts, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('gc with stray files and folders in the store: exit 0, only blobs deleted, the gate stays READY', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('a')"), inputs: ['a.txt'] }] });
    assert.equal((await build(openOpts(repo))).gate.status, 'READY');
    const cas = join(storeDir(repo), 'cas');
    writeFileSync(join(cas, '.DS_Store'), 'finder\n');
    const someDir = join(cas, 'ab');
    mkdirSync(join(someDir, 'notes'), { recursive: true });
    writeFileSync(join(someDir, 'README'), 'not a blob\n');
    mkdirSync(join(storeDir(repo), 'tmp', '1-2-3'), { recursive: true });
    const gc = cli(repo, ['store', 'gc', '--keep-runs', '0', '--json']);
    assert.equal(gc.code, 0, gc.stderr);
    assert.ok(existsSync(join(cas, '.DS_Store')), 'not a blob: left alone');
    assert.ok(existsSync(join(someDir, 'README')), 'not a blob name: left alone');
    const g = cli(repo, ['gate', '--deep', '--json']);
    assert.equal(g.json().status, 'READY', g.stdout);
  } finally {
    repo.cleanup();
  }
});
