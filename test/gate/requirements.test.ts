/**
 * What the gate is judged against: a config with no checks is BLOCKED ("no requirements"); a
 * required formal component that cannot be checked (here: its package is not installed) is a BLOCKED
 * item that is never ignored; one with `required: false` is shown but does not change a READY gate.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, gate } from '../../src/service/index.js';
import { cli, openOpts } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const component = (id: string, required: boolean) => ({
  id,
  package: { id: 'pkg', version: '1.0.0', sha256: `sha256:${'0'.repeat(64)}` },
  contract: 'contracts/alloc.md',
  source: { entry: 'src/alloc.rs' },
  profile: 'verus',
  bindings: { alloc: 'alloc' },
  inputs: ['a.txt'],
  required,
});

const CHECK = { id: 'ok', run: nodeCheck('0'), inputs: ['a.txt'] };

test('a config with no checks is BLOCKED, exit 3, naming "no requirements"', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [] });
    const b = cli(repo, ['build', '--json']);
    assert.equal(b.code, 3, b.stderr);
    assert.equal(b.json().gate.status, 'BLOCKED');
    assert.match(b.json().gate.reason, /no requirements/);
    assert.deepEqual(b.json().actions, []);
    const g = cli(repo, ['gate']);
    assert.equal(g.code, 3);
    assert.match(g.stdout, /gate BLOCKED: no requirements/);
    // The same for a manifest that declares nothing at all.
    repo.manifest({});
    assert.equal((await gate(openOpts(repo))).gate.status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});

test('a required formal component that cannot be checked is a BLOCKED item, exit 3', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [CHECK], formal: { components: [component('alloc', true)] } });
    const report = await build(openOpts(repo));
    assert.equal(report.actions.find((a) => a.label === 'check:ok')!.outcome, 'PASS');
    assert.equal(report.gate.status, 'BLOCKED');
    const item = report.gate.items.find((i) => i.id === 'formal:alloc')!;
    assert.equal(item.required, true);
    assert.equal(item.status, 'BLOCKED');
    assert.match(item.reason, /package pkg 1\.0\.0 is not installed/);
    const g = cli(repo, ['gate', '--json']);
    assert.equal(g.code, 3);
    assert.equal(g.json().items.find((i: { id: string }) => i.id === 'formal:alloc').status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});

test('a formal component with required false is shown but leaves a READY gate READY', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [CHECK], formal: { components: [component('optional', false)] } });
    const report = await build(openOpts(repo));
    assert.equal(report.gate.status, 'READY');
    const item = report.gate.items.find((i) => i.id === 'formal:optional')!;
    assert.equal(item.required, false);
    assert.equal(item.status, 'BLOCKED');
    assert.equal((await gate(openOpts(repo))).gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});

test('only optional components and no checks: still BLOCKED for lack of requirements', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ formal: { components: [component('optional', false)] } });
    const g = await gate(openOpts(repo));
    assert.equal(g.gate.status, 'BLOCKED');
    assert.match(g.gate.reason, /no requirements/);
  } finally {
    repo.cleanup();
  }
});
