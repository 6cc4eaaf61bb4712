/**
 * A listing started ahead (the CLI starts the root's git processes before its modules load) is the
 * next workspace's listing of that root, once: any later listing, and any listing of another root,
 * is new, so a file created after the first is seen by the second.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listAhead, listWorkTree } from '../../src/capture/listing.js';
import { tempRepo } from '../_support/repo.js';

test('a listing started ahead is taken once, by the same root only', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n', '.gitignore': 'out/\n', 'out/x': 'x\n' });
  const other = tempRepo({ 'b.txt': 'b\n' });
  try {
    listAhead(repo.dir);
    const ahead = await listWorkTree(repo.dir).files;
    repo.write('later.txt', 'later\n');
    // Taken already: the next listing runs git again and sees the new file.
    assert.deepEqual(ahead, ['.gitignore', 'a.txt']);
    const again = listWorkTree(repo.dir);
    assert.deepEqual(await again.files, ['.gitignore', 'a.txt', 'later.txt']);
    assert.deepEqual(await again.ignored, ['out/']);
    assert.equal((await again.info)?.prefix, '');
    // Started for one root, never handed to another.
    listAhead(repo.dir);
    assert.deepEqual(await listWorkTree(other.dir).files, ['b.txt']);
    repo.write('third.txt', '3\n');
    assert.ok((await listWorkTree(repo.dir).files).includes('third.txt'), 'the other root dropped the listing ahead');
  } finally {
    repo.cleanup();
    other.cleanup();
  }
});

test('without git, the listing is the walk and nothing is ignored', async () => {
  const plain = tempRepo({ 'a.txt': 'a\n', 'd/b.txt': 'b\n' }, { git: false });
  try {
    const tree = listWorkTree(plain.dir);
    assert.equal(await tree.info, undefined);
    assert.deepEqual(await tree.files, ['a.txt', 'd/b.txt']);
    assert.deepEqual(await tree.ignored, []);
  } finally {
    plain.cleanup();
  }
});
