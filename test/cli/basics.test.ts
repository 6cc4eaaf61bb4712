/** CLI surface: --version, --help per verb, and usage errors (exit 2). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, tempRepo, vkit } from '../_support/repo.js';

test('--version prints the package version, exit 0', () => {
  const r = vkit(['--version']);
  assert.equal(r.code, 0, r.stderr);
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  assert.equal(r.stdout, `vkit ${version}\n`);
});

test('--help (top level) lists every verb, exit 0; no verb at all is a usage error, exit 2', () => {
  const r = vkit(['--help']);
  assert.equal(r.code, 0);
  for (const verb of ['build', 'gate', 'verify', 'runs', 'run show', 'init', 'store gc'])
    assert.match(r.stdout, new RegExp(`^  ${verb} `, 'm'), verb);
  assert.equal(vkit([]).code, 2);
});

for (const verb of ['build', 'gate', 'verify', 'runs', 'run show', 'init', 'store gc']) {
  test(`vkit ${verb} --help: usage text, exit 0`, () => {
    const r = vkit([...verb.split(' '), '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Usage: vkit ${verb}\\b`));
  });
}

test('unknown verb: exit 2 with a message naming it', () => {
  const r = vkit(['frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command `frobnicate`/);
  assert.equal(vkit(['store', 'explode']).code, 2);
  assert.equal(vkit(['run', 'nope', '--help']).code, 2);
});

test('unknown flag or bad flag value: exit 2', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: ['node', '-e', '0'], inputs: ['a.txt'] }] });
    const r = vkit(['build', '--no-such-flag', '--root', repo.dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no-such-flag/);
    assert.equal(vkit(['gate', '--format', 'xml', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['build', '--jobs', '0', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['build', '--only', 'nope', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['verify', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['store', 'gc', '--root', repo.dir]).code, 2);
  } finally {
    repo.cleanup();
  }
});
