/**
 * Whole-source captures in real git repositories: a commit capture reads bytes from the object
 * database (dirty edits cannot reach it), a working-tree capture sees tracked + untracked
 * non-ignored files as they are, and formal captures refuse secrets, symlinks and submodules.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { captureCommit, captureWorkingTree, type SourceCapture } from '../../src/capture/source.js';
import { InvalidInputError } from '../../src/errors.js';
import { sha256Id } from '../../src/hash/index.js';
import { Store } from '../../src/store/store.js';
import { tempRepo, type TempRepo } from '../_support/repo.js';

const paths = (c: SourceCapture) => c.entries.map((e) => e.path);
const entry = (c: SourceCapture, path: string) => c.entries.find((e) => e.path === path);

function withRepo(files: Record<string, string>, fn: (repo: TempRepo) => Promise<void>): Promise<void> {
  const repo = tempRepo(files);
  return fn(repo).finally(() => repo.cleanup());
}

test('commit capture ignores dirty edits (unstaged and staged); working-tree capture sees them', () =>
  withRepo({ 'src/a.txt': 'committed\n', 'b.txt': 'b\n' }, async (repo) => {
    const commit = repo.commitAll();
    const before = await captureCommit(repo.dir, 'HEAD');
    const cleanTree = await captureWorkingTree(repo.dir);
    assert.equal(before.kind, 'git_commit');
    assert.equal(before.provisional, false);
    assert.equal(before.commit, commit);
    assert.equal(entry(before, 'src/a.txt')?.sha256, sha256Id('committed\n'));
    // A clean checkout and its commit are the same tree: one identity scheme for both.
    assert.equal(cleanTree.digest, before.digest);

    repo.write('src/a.txt', 'dirty edit\n');
    const afterEdit = await captureCommit(repo.dir, 'HEAD');
    assert.equal(afterEdit.digest, before.digest);
    assert.equal(entry(afterEdit, 'src/a.txt')?.sha256, sha256Id('committed\n'));

    // Staging the edit does not make it part of the commit either.
    repo.git('add', 'src/a.txt');
    const afterStage = await captureCommit(repo.dir, commit);
    assert.equal(afterStage.digest, before.digest);

    const dirtyTree = await captureWorkingTree(repo.dir);
    assert.equal(dirtyTree.kind, 'working_tree');
    assert.equal(dirtyTree.provisional, true);
    assert.notEqual(dirtyTree.digest, before.digest);
    assert.equal(entry(dirtyTree, 'src/a.txt')?.sha256, sha256Id('dirty edit\n'));
    assert.equal(entry(dirtyTree, 'b.txt')?.sha256, sha256Id('b\n'));

    // Committing the edit moves HEAD; the old commit still captures the old bytes.
    repo.commitAll('edit');
    assert.notEqual((await captureCommit(repo.dir, 'HEAD')).digest, before.digest);
    assert.equal((await captureCommit(repo.dir, commit)).digest, before.digest);
  }));

test('working tree: untracked non-ignored files are in, ignored ones and deleted tracked ones are out', () =>
  withRepo({ '.gitignore': 'build/\n*.log\n', 'tracked.txt': 't\n', 'gone.txt': 'g\n' }, async (repo) => {
    repo.commitAll();
    repo.write('new.txt', 'untracked\n');
    repo.write('build/out.bin', 'ignored\n');
    repo.write('debug.log', 'ignored\n');
    unlinkSync(join(repo.dir, 'gone.txt'));
    const tree = await captureWorkingTree(repo.dir);
    assert.deepEqual(paths(tree), ['.gitignore', 'new.txt', 'tracked.txt']);
    assert.equal(entry(tree, 'new.txt')?.sha256, sha256Id('untracked\n'));
    // The commit knows nothing of the untracked file and still has the deleted one.
    assert.deepEqual(paths(await captureCommit(repo.dir, 'HEAD')), ['.gitignore', 'gone.txt', 'tracked.txt']);
  }));

test('working tree hashes raw bytes and records modes: CRLF and an executable bit change the digest', () =>
  withRepo({ 'a.sh': 'echo a\n' }, async (repo) => {
    const lf = await captureWorkingTree(repo.dir);
    repo.write('a.sh', 'echo a\r\n');
    const crlf = await captureWorkingTree(repo.dir);
    assert.notEqual(crlf.digest, lf.digest);
    repo.write('a.sh', 'echo a\n');
    assert.equal((await captureWorkingTree(repo.dir)).digest, lf.digest);
    chmodSync(join(repo.dir, 'a.sh'), 0o755);
    const exec = await captureWorkingTree(repo.dir);
    assert.equal(entry(exec, 'a.sh')?.mode, '100755');
    assert.notEqual(exec.digest, lf.digest);
  }));

test('captureCommit of something that is not a commit: ERR_CAPTURE_REV', () =>
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    repo.commitAll();
    await assert.rejects(
      captureCommit(repo.dir, 'no-such-branch'),
      (e: unknown) => e instanceof InvalidInputError && e.code === 'ERR_CAPTURE_REV',
    );
    // An option-looking rev must not be taken as a git flag.
    await assert.rejects(
      captureCommit(repo.dir, '--all'),
      (e: unknown) => e instanceof InvalidInputError && e.code === 'ERR_CAPTURE_REV',
    );
  }));

/** Asserts a formal capture is refused with ERR_CAPTURE_REFUSED naming `path`. */
async function assertRefused(capture: Promise<SourceCapture>, path: string, what: RegExp): Promise<void> {
  await assert.rejects(capture, (error: unknown) => {
    assert.ok(error instanceof InvalidInputError, `expected an InvalidInputError, got ${String(error)}`);
    assert.equal(error.code, 'ERR_CAPTURE_REFUSED');
    assert.equal(error.exitCode, 2);
    assert.equal(error.issues[0]?.file, path);
    assert.ok(error.message.includes(`\`${path}\``), `expected the message to name \`${path}\`: ${error.message}`);
    assert.match(error.message, what);
    return true;
  });
}

interface RefusalCase {
  name: string;
  path: string;
  what: RegExp;
  /** Makes the offending entry in the repo (committed afterwards). */
  make(repo: TempRepo): void;
}

const REFUSALS: RefusalCase[] = [
  {
    name: 'secret-looking path',
    path: 'config/.env.local',
    what: /secret/,
    make: (r) => r.write('config/.env.local', 'TOKEN=not-real\n'),
  },
  {
    name: 'private key',
    path: 'keys/id_ed25519',
    what: /secret/,
    make: (r) => r.write('keys/id_ed25519', 'not a real key\n'),
  },
  { name: 'symlink', path: 'link.txt', what: /symlink/, make: (r) => symlinkSync('a.txt', join(r.dir, 'link.txt')) },
  {
    name: 'submodule',
    path: 'sub',
    what: /submodule/,
    make: (r) => {
      // A nested repository added as a gitlink: git's own representation of a submodule, no network needed.
      const nested = tempRepo({ 'n.txt': 'nested\n' });
      try {
        nested.commitAll();
        r.git('clone', '-q', nested.dir, join(r.dir, 'sub'));
      } finally {
        nested.cleanup();
      }
      r.git('-c', 'advice.addEmbeddedRepo=false', 'add', 'sub');
    },
  },
];

for (const c of REFUSALS) {
  test(`formal captures refuse a ${c.name}, naming it; non-formal captures accept the same tree`, () =>
    withRepo({ 'a.txt': 'a\n' }, async (repo) => {
      c.make(repo);
      repo.commitAll('with the offending entry');
      await assertRefused(captureWorkingTree(repo.dir, { formal: true }), c.path, c.what);
      await assertRefused(captureCommit(repo.dir, 'HEAD', { formal: true }), c.path, c.what);
      // Without `formal` nothing is refused (selectors, not source captures, skip secrets).
      await captureWorkingTree(repo.dir);
      const commit = await captureCommit(repo.dir, 'HEAD');
      assert.ok(paths(commit).includes('a.txt'));
    }));
}

test('formal working-tree capture also refuses an untracked secret before hashing anything', () =>
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    repo.commitAll();
    repo.write('aws-credentials.txt', 'not real\n');
    await assertRefused(captureWorkingTree(repo.dir, { formal: true }), 'aws-credentials.txt', /secret/);
    // The commit does not contain it, so a formal commit capture is fine.
    await captureCommit(repo.dir, 'HEAD', { formal: true });
  }));

test('working-tree capture records file states on the wall clock, so an unchanged aged file is reused next time', async () => {
  const repo = tempRepo({ 'a.txt': 'real content\n' });
  const storeDir = mkdtempSync(join(tmpdir(), 'vkit-store-'));
  const store = new Store(storeDir);
  try {
    repo.age('a.txt');
    const abs = join(repo.dir, 'a.txt');
    const first = await captureWorkingTree(repo.dir, { cache: store.fileStates });
    const recorded = store.fileStates.get(abs, 'raw');
    assert.ok(recorded, 'the capture records a file state');
    // Poison the recorded digest, keeping the fingerprint and recording time: a capture that trusts
    // the cache (as it must for a file last modified long before it was recorded) returns the poison.
    const poison = sha256Id('poison');
    store.fileStates.put(abs, 'raw', { ...recorded, sha256: poison });
    const second = await captureWorkingTree(repo.dir, { cache: store.fileStates });
    assert.equal(entry(second, 'a.txt')?.sha256, poison);
    assert.notEqual(second.digest, first.digest);
  } finally {
    store.close();
    rmSync(storeDir, { recursive: true, force: true });
    repo.cleanup();
  }
});
