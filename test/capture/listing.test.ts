/**
 * A listing started ahead (the CLI starts the root's git processes before its modules load) is the
 * next workspace's listing of that root, once: any later listing, and any listing of another root,
 * is new, so a file created after the first is seen by the second.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitInfo, gitListing, listGitFiles, listGitFilesIfWorkTree, listIgnored } from '../../src/capture/git.js';
import { listAhead, listWorkTree, startListing } from '../../src/capture/listing.js';
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

test("a listing started before the CLI's code (bin's early step) is the one handed ahead, for its own root only", async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const other = tempRepo({ 'b.txt': 'b\n' });
  try {
    const early = startListing(repo.dir);
    assert.deepEqual(await early.listing.files, ['a.txt']);
    repo.write('later.txt', 'later\n');
    // Handed over: the workspace takes the listing git made before the new file, not a new one.
    listAhead(repo.dir, early);
    assert.equal(listWorkTree(repo.dir), early.listing);
    // Started for another root: a listing of this root starts instead, and sees the new file.
    listAhead(repo.dir, startListing(other.dir));
    assert.deepEqual(await listWorkTree(repo.dir).files, ['a.txt', 'later.txt']);
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

// The workspace's listing comes from one shell: the index's paths and one `status` walk for both the
// untracked and the ignored paths (D58). Its answers must be `ls-files --cached --others` and
// `listIgnored`'s own, below the work tree's top too, for names a shell or a pipe could mangle, and
// wherever the two kinds of walk could disagree: negated and nested ignore rules, untracked
// directories holding ignored files (or only those), tracked files in ignored directories, a nested
// repository, links, deleted, modified and staged files, empty directories.
test('the one-process listing answers as the separate git commands do', async () => {
  const repo = tempRepo({
    '.gitignore': 'out/\n*.log\n!keep.log\n*.tmp\n',
    'sub/a b.txt': 'a\n',
    'sub/-n': 'dash\n',
    'sub/new\nline.txt': 'newline\n',
    'sub/x.log': 'ignored\n',
    'sub/keep.log': 'negated: not ignored\n',
    'sub/out/deep.txt': 'ignored dir\n',
    'sub/tracked.txt': 't\n',
    'sub/gone.txt': 'deleted after the commit\n',
    'sub/deeper/.gitignore': 'local-*\n',
    'sub/deeper/local-x.txt': 'ignored by a nested rule\n',
    'sub/deeper/kept.txt': 'k\n',
    'top.txt': 'top\n',
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.dir, stdio: 'ignore' });
  try {
    repo.commitAll();
    // Tracked although ignored, deleted, modified, staged but never committed.
    repo.write('sub/out/forced.txt', 'tracked in an ignored directory\n');
    git('add', '-f', 'sub/out/forced.txt');
    rmSync(join(repo.dir, 'sub/gone.txt'));
    repo.write('sub/tracked.txt', 'modified\n');
    repo.write('sub/staged.txt', 'staged\n');
    git('add', 'sub/staged.txt');
    // Untracked: a file, a directory of mixed files, one of ignored files only, an empty one, links, a repository.
    repo.write('sub/untracked.txt', 'u\n');
    repo.write('sub/mixed/y.txt', 'y\n');
    repo.write('sub/mixed/z.log', 'z\n');
    repo.write('sub/mixed/inner/w.tmp', 'w\n');
    repo.write('sub/only-ignored/a.log', 'a\n');
    repo.write('sub/only-ignored/b.tmp', 'b\n');
    mkdirSync(join(repo.dir, 'sub/empty'));
    symlinkSync('tracked.txt', join(repo.dir, 'sub/link'));
    symlinkSync('../top.txt', join(repo.dir, 'sub/mixed/up'));
    repo.write('sub/nested/inside.txt', 'i\n');
    execFileSync('git', ['init', '-q'], { cwd: join(repo.dir, 'sub/nested') });
    for (const dir of [repo.dir, join(repo.dir, 'sub'), join(repo.dir, 'sub/mixed')]) {
      const one = gitListing(dir);
      const info = await gitInfo(dir);
      assert.deepEqual(await one.info, info);
      assert.deepEqual((await one.files).sort(), (await listGitFiles(dir)).sort(), dir);
      assert.deepEqual(await one.ignored, await listIgnored(dir, info!.prefix), dir);
      // The worker's one-process re-listing (D59) answers as listGitFiles does, limited or not.
      assert.deepEqual((await listGitFilesIfWorkTree(dir))!.sort(), (await listGitFiles(dir)).sort(), dir);
      for (const under of [['mixed/', 'nested/'], ['a b.txt', '-n'], ['']])
        assert.deepEqual(
          (await listGitFilesIfWorkTree(dir, under))!.sort(),
          (await listGitFiles(dir, under)).sort(),
          `${dir} ${under}`,
        );
    }
    const sub = gitListing(join(repo.dir, 'sub'));
    assert.equal((await sub.info)?.prefix, 'sub/');
    assert.deepEqual((await sub.files).sort(), [
      '-n',
      'a b.txt',
      'deeper/.gitignore',
      'deeper/kept.txt',
      'gone.txt',
      'keep.log',
      'link',
      'mixed/up',
      'mixed/y.txt',
      'nested/',
      'new\nline.txt',
      'out/forced.txt',
      'staged.txt',
      'tracked.txt',
      'untracked.txt',
    ]);
    assert.deepEqual(await sub.ignored, [
      'deeper/local-x.txt',
      'mixed/inner/w.tmp',
      'mixed/z.log',
      'only-ignored/a.log',
      'only-ignored/b.tmp',
      'out/deep.txt',
      'x.log',
    ]);
  } finally {
    repo.cleanup();
  }
});

test('a listing git cannot make is an error, never an empty or partial tree', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const plain = tempRepo({ 'b.txt': 'b\n' }, { git: false });
  try {
    repo.commitAll();
    writeFileSync(join(repo.dir, '.git', 'index'), 'DIRC but not an index');
    const broken = gitListing(repo.dir);
    assert.ok(await broken.info, 'rev-parse still finds the work tree');
    await assert.rejects(broken.files, /git ls-files in .* failed \(exit \d+\)/);
    await assert.rejects(broken.ignored, /git status in .* failed/);
    // And through the workspace's listing, which a build awaits.
    await assert.rejects(listWorkTree(repo.dir).files, /ls-files/);
    // Outside a work tree: no info, and the git answers are refusals (the workspace walks instead).
    const outside = gitListing(plain.dir);
    assert.equal(await outside.info, undefined);
    await assert.rejects(outside.files, /not in a git work tree/);
    // The worker's re-listing: a broken index is an error, outside a work tree there is no listing.
    await assert.rejects(listGitFilesIfWorkTree(repo.dir));
    assert.equal(await listGitFilesIfWorkTree(plain.dir), undefined);
  } finally {
    repo.cleanup();
    plain.cleanup();
  }
});
