/**
 * A file path a user names for a CLI verb to write (`evidence export --out`, `formal qualify --out`,
 * `acceptance decide --out`) may be outside the root (the user typed it) and replaces the file it
 * names, but never lands in a git directory or the evidence store: exit 2 naming the flag, the
 * file left as it was.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';

const HOOK = '#!/bin/sh\nexit 0\n';

function refusedOut(r: { code: number | null; stdout: string; stderr: string }, why: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const error = JSON.parse(r.stdout).error;
  assert.equal(error.code, 'ERR_OUT_PATH', r.stdout);
  assert.equal(error.issues[0].path, '--out');
  assert.match(error.message, why);
}

test('evidence export --out: anywhere the user names, replacing it, but never into .git or the store', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['a.txt'] }] });
  const outside = mkdtempSync(join(tmpdir(), 'vkit-out-'));
  try {
    const run = cli(repo, ['build', '--json']).json().actions[0].run;
    const hook = join(repo.dir, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, HOOK, { mode: 0o755 });
    const exportTo = (out: string) => cli(repo, ['evidence', 'export', '--run', run, '--out', out, '--json']);
    refusedOut(exportTo(hook), /inside a `\.git` directory/);
    assert.equal(readFileSync(hook, 'utf8'), HOOK);
    refusedOut(exportTo(join(storeDir(repo), 'x.tar')), /\.git|evidence store/);
    assert.equal(existsSync(join(storeDir(repo), 'x.tar')), false);

    // A store outside .git is refused as the store.
    const store = join(outside, 'store');
    const withStore = (out: string) =>
      vkit(['evidence', 'export', '--run', run, '--out', out, '--json', '--root', repo.dir, '--store', store], {
        cwd: repo.dir,
      });
    vkit(['build', '--root', repo.dir, '--store', store], { cwd: repo.dir });
    refusedOut(withStore(join(store, 'x.tar')), /evidence store/);
    assert.equal(existsSync(join(store, 'x.tar')), false);

    const there = join(outside, 'b.tar');
    writeFileSync(there, 'an old bundle');
    const replaced = exportTo(there);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.notEqual(readFileSync(there, 'utf8'), 'an old bundle', 'the file the user named is replaced');
  } finally {
    repo.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('formal qualify --out and acceptance decide --out (even with --force) refuse .git before any work', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const hook = join(repo.dir, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, HOOK, { mode: 0o755 });
    refusedOut(
      cli(repo, ['formal', 'qualify', '--package', 'no.such', '--profile', 'p', '--out', hook, '--json']),
      /\.git/,
    );
    const decide = vkit(
      [
        'acceptance',
        'decide',
        'acceptance.toml',
        '--spec',
        'spec.toml',
        '--issuer',
        'x',
        '--out',
        '.git/hooks/pre-commit',
        '--force',
        '--root',
        repo.dir,
        '--json',
      ],
      { cwd: repo.dir },
    );
    refusedOut(decide, /\.git/);
    assert.equal(readFileSync(hook, 'utf8'), HOOK);
  } finally {
    repo.cleanup();
  }
});
