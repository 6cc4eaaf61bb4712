/**
 * Host paths never enter a key: the same content checked out at different paths (a clone, a
 * worktree) gives the same action keys. And the tool a check runs is part of its identity: a
 * `#!/usr/bin/env node` script adds its interpreter, and editing the script changes the key.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkerIdentity, resolveExecutable } from '../../src/checkers/identity.js';
import { sha256Id } from '../../src/hash/index.js';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { awaitWorkersGoneSync } from '../_support/wait.js';

const TOOL = `#!/usr/bin/env node
// Reads its input and writes a report: a stand-in for a project-local checker script.
const fs = require('fs');
fs.mkdirSync('out', { recursive: true });
fs.writeFileSync('out/report.txt', String(fs.readFileSync('src/a.txt').length));
`;

/** A repo with a local executable checker, a shell-string check in a sub-directory, an env var and an `after` edge. */
function project(): TempRepo {
  const repo = tempRepo({
    'tool.js': TOOL,
    'src/a.txt': 'alpha\r\n',
    'sub/b.txt': 'beta\n',
    '.gitignore': 'out/\n',
  });
  chmodSync(join(repo.dir, 'tool.js'), 0o755);
  repo.manifest({
    checks: [
      { id: 'report', run: ['./tool.js'], inputs: ['src/**/*.txt'], outputs: ['out/report.txt'] },
      {
        id: 'sub',
        run: 'test -s b.txt && node -e 0',
        cwd: 'sub',
        inputs: ['sub/*'],
        env: ['VKIT_TEST_FLAVOUR'],
        after: ['report'],
      },
    ],
  });
  repo.commitAll();
  return repo;
}

type Action = { label: string; key: string; status: string };
const keys = (actions: Action[]) => actions.map((a) => [a.label, a.key]);

function build(dir: string): Action[] {
  const r = vkit(['build', '--json', '--root', dir], { env: { VKIT_TEST_FLAVOUR: 'vanilla' } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return sortByLabel(r.json().actions);
}

/** `check:report` first, then `check:sub`. */
const sortByLabel = (actions: Action[]) => [...actions].sort((x, y) => (x.label < y.label ? -1 : 1));

test('identical content at different paths (a clone and a worktree) gives identical action keys', () => {
  const first = project();
  const parent = mkdtempSync(join(tmpdir(), 'vkit-elsewhere-'));
  const clone = join(parent, 'a', 'much', 'deeper', 'checkout');
  const worktree = join(parent, 'wt');
  try {
    first.git('clone', '-q', first.dir, clone);
    first.git('worktree', 'add', '-q', worktree);
    const a = build(first.dir);
    assert.equal(a.length, 2);
    for (const action of a) assert.match(action.key, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(
      a.map((x) => x.status),
      ['ran', 'ran'],
    );

    // A clone has its own store, so it runs again, under the same keys.
    const b = build(clone);
    assert.deepEqual(keys(b), keys(a));
    assert.deepEqual(
      b.map((x) => x.status),
      ['ran', 'ran'],
    );

    // A worktree shares the repository's store: same keys, so the evidence is reused, except that
    // `report` runs again to write its declared output there (a build puts outputs back on disk).
    const c = build(worktree);
    assert.deepEqual(keys(c), keys(a));
    assert.deepEqual(
      c.map((x) => x.status),
      ['ran', 'cached'],
    );
    assert.ok(existsSync(join(worktree, 'out', 'report.txt')), 'the output is written in the worktree');

    // Sanity: the keys do depend on content (a different env value changes the `sub` key only).
    const r = vkit(['build', '--json', '--root', clone], { env: { VKIT_TEST_FLAVOUR: 'chocolate' } });
    assert.equal(r.code, 0, r.stderr);
    const d = sortByLabel(r.json().actions);
    assert.equal(d[0]!.key, a[0]!.key);
    assert.notEqual(d[1]!.key, a[1]!.key);
  } finally {
    first.git('worktree', 'remove', '--force', worktree);
    // The clone's store may still be closing a worker's handle: wait for it, then remove with retries.
    awaitWorkersGoneSync(parent);
    rmSync(parent, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    first.cleanup();
  }
});

test('checker identity: a `#!/usr/bin/env node` script records its interpreter; its bytes are its identity', () => {
  const repo = tempRepo({ 'tool.js': TOOL });
  try {
    chmodSync(join(repo.dir, 'tool.js'), 0o755);
    const node = resolveExecutable('node', repo.dir);
    const id = checkerIdentity('./tool.js', false, { cwd: repo.dir });
    assert.equal(id.tool, 'tool.js', 'the identity names the tool, never its host path');
    assert.equal(id.sha256, sha256Id(TOOL));
    assert.equal(id.interpreter, sha256Id(readFileSync(node)));
    assert.equal(id.shell, undefined);
    assert.ok(!JSON.stringify(id).includes(repo.dir), 'no host path in the identity');

    repo.write('tool.js', `${TOOL}// one more line\n`);
    const edited = checkerIdentity('./tool.js', false, { cwd: repo.dir });
    assert.equal(edited.sha256, sha256Id(`${TOOL}// one more line\n`));
    assert.equal(edited.interpreter, id.interpreter);

    // A native binary has no interpreter; a shell string adds the shell's identity.
    const direct = checkerIdentity('node', false, { cwd: repo.dir });
    assert.equal(direct.interpreter, undefined);
    assert.equal(direct.sha256, sha256Id(readFileSync(realpathSync(node))));
    const viaShell = checkerIdentity('node', true, { cwd: repo.dir });
    assert.equal(viaShell.shell, sha256Id(readFileSync(realpathSync('/bin/sh'))));
  } finally {
    repo.cleanup();
  }
});

test('CLI: editing the checker script (not an input) changes the key and reruns the check', () => {
  const repo = project();
  try {
    const before = build(repo.dir);
    const again = build(repo.dir);
    assert.deepEqual(
      again.map((a) => a.status),
      ['cached', 'cached'],
    );

    repo.write('tool.js', TOOL.replace('a stand-in', 'a stand in'));
    const after = build(repo.dir);
    assert.notEqual(after[0]!.key, before[0]!.key);
    assert.equal(after[0]!.status, 'ran');
    // The dependent's key covers the dependency's key, so it reruns too.
    assert.notEqual(after[1]!.key, before[1]!.key);
    assert.equal(after[1]!.status, 'ran');
  } finally {
    repo.cleanup();
  }
});
