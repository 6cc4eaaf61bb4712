/**
 * What the watching daemon watches and how it knows nothing changed (src/fast/tree-watch.ts,
 * noop-proof.ts watchedPaths): real inotify watches on real directories, real file systems.
 */
import assert from 'node:assert/strict';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { watchedPaths } from '../../src/fast/noop-proof.js';
import { TreeWatch, unwatchableFileSystem } from '../../src/fast/tree-watch.js';

test('only local file systems are watched: /proc (and anything unknown) is refused, naming its type', () => {
  assert.equal(unwatchableFileSystem(tmpdir()), undefined);
  assert.match(unwatchableFileSystem('/proc') ?? '', /type 0x9fa0.*network, FUSE and unknown/);
  assert.match(unwatchableFileSystem('/no/such/dir') ?? '', /cannot tell the file system/);
});

test('every change in a watched directory bumps the generation once settled; one outside does not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-tw-'));
  try {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'a', 'f'), '1');
    const watch = new TreeWatch(join(dir, 'sentinel'));
    const ino = (p: string) => lstatSync(p, { bigint: true }).ino;
    assert.equal(watch.cover(new Map([[join(dir, 'a'), ino(join(dir, 'a'))]])), 1);
    await watch.settle();
    const start = watch.generation;
    writeFileSync(join(dir, 'b', 'g'), 'not watched');
    await watch.settle();
    assert.equal(watch.generation, start, 'a change outside the watch counted');
    writeFileSync(join(dir, 'a', 'f'), '2');
    // No waiting but the settle: the sentinel's event comes after the write's.
    await watch.settle();
    assert.ok(watch.generation > start, 'a write in a watched directory was not counted');
    const afterWrite = watch.generation;
    const both = new Map([
      [join(dir, 'a'), ino(join(dir, 'a'))],
      [join(dir, 'b'), ino(join(dir, 'b'))],
    ]);
    assert.equal(watch.cover(both), 1, 'only the new path is added');
    assert.equal(watch.cover(both), 0);
    writeFileSync(join(dir, 'b', 'g'), 'now watched');
    await watch.settle();
    assert.ok(watch.generation > afterWrite);
    assert.equal(watch.broken, undefined);
    watch.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the watched paths: every listed file, and every directory but what git ignores whole (unless it holds a listed file), the store and the inside of .git', () => {
  const root = mkdtempSync(join(tmpdir(), 'vkit-td-'));
  try {
    for (const d of ['src/deep', 'node_modules/x', 'build/keep', '.git/info', '.git/objects/ab', 'store/cas'])
      mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, 'src/deep/a.ts'), '');
    writeFileSync(join(root, 'build/keep/tracked.txt'), '');
    const paths = watchedPaths(
      root,
      ['src/deep/a.ts', 'build/keep/tracked.txt'],
      ['node_modules/', 'build/', 'x.log'],
      join(root, 'store'),
    );
    const rel = [...paths.keys()].map((d) => d.slice(root.length + 1) || '.').sort();
    assert.deepEqual(rel, [
      '.',
      '.git',
      '.git/info',
      'build',
      'build/keep',
      'build/keep/tracked.txt',
      'src',
      'src/deep',
      'src/deep/a.ts',
    ]);
    assert.equal(paths.get(join(root, 'src/deep/a.ts')), lstatSync(join(root, 'src/deep/a.ts'), { bigint: true }).ino);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a file's own watch hears a hard link made elsewhere and a write through it; a file renamed over is watched again", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-tw-'));
  try {
    mkdirSync(join(dir, 'tree'));
    mkdirSync(join(dir, 'elsewhere'));
    const file = join(dir, 'tree', 'f');
    writeFileSync(file, '1');
    const watched = () => new Map([[file, lstatSync(file, { bigint: true }).ino]]);
    const watch = new TreeWatch(join(dir, 'sentinel'));
    watch.cover(watched());
    await watch.settle();
    let start = watch.generation;
    linkSync(file, join(dir, 'elsewhere', 'g'));
    await watch.settle();
    assert.ok(watch.generation > start, 'a new hard link was not heard');
    start = watch.generation;
    writeFileSync(join(dir, 'elsewhere', 'g'), '2');
    await watch.settle();
    assert.ok(watch.generation > start, 'a write through the other link was not heard');
    // An editor's save: a new file renamed over the old one is another inode, watched anew.
    writeFileSync(join(dir, 'tree', 'f.new'), '3');
    renameSync(join(dir, 'tree', 'f.new'), file);
    assert.equal(watch.cover(watched()), 1);
    await watch.settle();
    start = watch.generation;
    writeFileSync(join(dir, 'elsewhere', 'g'), 'old inode');
    writeFileSync(file, '4');
    await watch.settle();
    assert.ok(watch.generation > start);
    watch.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
