/**
 * A check's installed npm dependencies (`deps: { npm: '.' }`): the lock file and every installed file
 * are part of its tool's identity, so an edit inside `node_modules` reruns it and the gate is never
 * READY on the old PASS; a hermetic check sees them read-only and runs `npx tsc` as written, with no
 * network (without `deps`, npx cannot find tsc and must not PASS); dependencies not installed, or
 * changed by the check itself, are BLOCKED. Each check runs once per sandbox backend on the machine.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { artifactText, cli, receiptJson } from '../_support/evidence.js';
import { REPO_ROOT, tempRepo, type TempRepo } from '../_support/repo.js';
import { sandboxBackends } from '../_support/sandboxes.js';

const backends = await sandboxBackends('test/jobs/npm-deps.test.ts');

/** A TypeScript project with typescript installed (copied from vkit's own node_modules) and git-ignored. */
function tsProject(): TempRepo {
  const repo = tempRepo({
    '.gitignore': 'node_modules/\n',
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', devDependencies: { typescript: '*' } }),
    'package-lock.json': JSON.stringify({ name: 'p', lockfileVersion: 3, packages: {} }),
    'src/a.ts': 'export const a: number = 1;\n',
  });
  cpSync(join(REPO_ROOT, 'node_modules', 'typescript'), join(repo.dir, 'node_modules', 'typescript'), {
    recursive: true,
  });
  mkdirSync(join(repo.dir, 'node_modules', '.bin'));
  symlinkSync('../typescript/bin/tsc', join(repo.dir, 'node_modules', '.bin', 'tsc'));
  return repo;
}

const types = (extra: Record<string, unknown> = {}) => ({
  id: 'types',
  run: ['npx', 'tsc', '--noEmit', 'src/a.ts'],
  inputs: ['src/**', 'package.json'],
  ...extra,
});

const actionOf = (r: { json(): any }) => r.json().actions.find((a: { label: string }) => a.label === 'check:types');

for (const b of backends) {
  test(`[${b.name}] hermetic npx tsc with deps.npm runs the installed tsc; an edit inside node_modules reruns it`, {
    skip: b.skip,
  }, () => {
    const repo = tsProject();
    try {
      repo.manifest({ sandbox: 'hermetic', checks: [types({ deps: { npm: '.' } })] });
      const first = cli(repo, ['build', '--json'], b.env);
      assert.equal(first.code, 0, first.stdout + first.stderr);
      const ran = actionOf(first);
      assert.equal(ran.outcome, 'PASS');
      const receipt = receiptJson(repo, ran.receipt);
      const [npm] = receipt.checker.npm;
      assert.equal(npm.dir, '.');
      assert.match(npm.lock, /^sha256:/);
      assert.match(npm.installed, /^sha256:/);
      assert.ok(npm.files > 100, `the installed tree is hashed file by file (${npm.files})`);

      const again = cli(repo, ['build', '--json'], b.env);
      assert.equal(actionOf(again).status, 'cached', 'unchanged dependencies: a hit');

      // One byte more in an installed file: the old PASS no longer stands.
      appendFileSync(join(repo.dir, 'node_modules', 'typescript', 'lib', 'tsc.js'), '\n// edited\n');
      const gate = cli(repo, ['gate', '--json'], b.env);
      assert.notEqual(gate.json().status, 'READY', gate.stdout);
      const rebuilt = cli(repo, ['build', '--json'], b.env);
      assert.equal(rebuilt.code, 0, rebuilt.stdout + rebuilt.stderr);
      assert.equal(actionOf(rebuilt).status, 'ran', 'an edited dependency reruns the check');
      assert.notEqual(receiptJson(repo, actionOf(rebuilt).receipt).checker.npm[0].installed, npm.installed);

      // The lock file alone moves the identity too.
      repo.write('package-lock.json', JSON.stringify({ name: 'p', lockfileVersion: 3, packages: { x: {} } }));
      assert.equal(actionOf(cli(repo, ['build', '--json'], b.env)).status, 'ran');

      // Not installed: BLOCKED naming the remedy, never run.
      rmSync(join(repo.dir, 'node_modules'), { recursive: true });
      const missing = cli(repo, ['build', '--json'], b.env);
      assert.equal(missing.code, 3, missing.stdout);
      assert.match(actionOf(missing).reason, /not installed.*npm ci/);
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] a hermetic npx tsc without deps cannot reach the installed package or the network: never PASS`, {
    skip: b.skip,
  }, () => {
    const repo = tsProject();
    try {
      // npx asks the registry for a package named `tsc` and fails: the network is not there. npm's
      // default retries (2, 10 s then 60 s apart) would only make that take 72 s; with none it still
      // asks once, and fails in about a second.
      repo.manifest({ sandbox: 'hermetic', checks: [types({ env: ['npm_config_fetch_retries'] })] });
      const r = cli(repo, ['build', '--json'], { ...b.env, npm_config_fetch_retries: '0' });
      assert.notEqual(actionOf(r).outcome, 'PASS', r.stdout);
      assert.notEqual(r.json().gate.status, 'READY');
      // It failed for the reason the title says: the installed tsc was not found, so npx asked the
      // registry for it, and that request found no network.
      const stderr = artifactText(repo, actionOf(r).receipt, 'stderr');
      assert.match(stderr, /request to \S+\/tsc failed/, stderr);
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] a check that changes its own installed dependencies is BLOCKED`, { skip: b.skip }, () => {
    const repo = tsProject();
    try {
      repo.manifest({
        checks: [
          {
            id: 'types',
            run: 'echo x >> node_modules/typescript/lib/tsc.js',
            inputs: ['src/**'],
            deps: { npm: '.' },
          },
        ],
      });
      const r = cli(repo, ['build', '--json'], b.env);
      assert.equal(r.code, 3, r.stdout + r.stderr);
      assert.equal(actionOf(r).outcome, 'BLOCKED');
      assert.match(actionOf(r).reason, /installed npm dependencies changed during the run/);
    } finally {
      repo.cleanup();
    }
  });
}

test('deps.npm must name directories inside the root, and only npm is known', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'c', run: ['true'], inputs: ['a.txt'], deps: { npm: '../elsewhere' } }] });
    const outside = cli(repo, ['build']);
    assert.equal(outside.code, 2, outside.stderr);
    assert.match(outside.stderr, /checks\[0\]\.deps\.npm/);
    repo.manifest({ checks: [{ id: 'c', run: ['true'], inputs: ['a.txt'], deps: { yarn: '.' } }] });
    const unknown = cli(repo, ['build']);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /yarn/);
  } finally {
    repo.cleanup();
  }
});
