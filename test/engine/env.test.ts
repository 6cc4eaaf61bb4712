/**
 * Environment: only declared names plus PATH and HOME reach a check; a declared value's digest is in
 * the key (a change reruns it and --explain says env changed); receipts hold names only, never
 * values or value digests.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { sha256Id } from '../../src/hash/index.js';
import { artifactText, blobPath, cli, openOpts } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const SECRET = 'value-of-declared-7f3a9c';

test('only declared env names plus PATH and HOME reach a check; receipts hold names only', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.age('a.txt');
    repo.manifest({
      checks: [
        {
          id: 'env',
          // Prints the names it sees, and whether the declared value arrived intact (not the value).
          run: nodeCheck(
            'console.log(JSON.stringify({ names: Object.keys(process.env).sort(), ok: process.env.VKIT_T_DECL === process.env.VKIT_T_DECL_EXPECT }))',
          ),
          inputs: ['a.txt'],
          env: ['VKIT_T_DECL', 'VKIT_T_DECL_EXPECT', 'VKIT_T_UNSET'],
        },
      ],
    });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      VKIT_T_DECL: SECRET,
      VKIT_T_DECL_EXPECT: SECRET,
      VKIT_T_UNDECLARED: 'must-not-leak',
      HOME: '/home/vkit-test',
    };
    delete env.VKIT_T_UNSET;
    const first = await build(openOpts(repo, { env }));
    const a = first.actions[0]!;
    assert.equal(a.outcome, 'PASS');
    const seen = JSON.parse(artifactText(repo, a.receipt!, 'stdout'));
    assert.deepEqual(seen.names, ['HOME', 'PATH', 'VKIT_T_DECL', 'VKIT_T_DECL_EXPECT']);
    assert.equal(seen.ok, true);

    const bytes = readFileSync(blobPath(repo, a.receipt!), 'utf8');
    const receipt = JSON.parse(bytes);
    assert.deepEqual(receipt.env, ['VKIT_T_DECL', 'VKIT_T_DECL_EXPECT', 'VKIT_T_UNSET']);
    assert.ok(!bytes.includes(SECRET), 'no value in the receipt');
    assert.ok(!bytes.includes(sha256Id(SECRET).slice(7)), 'no value digest in the receipt');
    assert.ok(!bytes.includes('must-not-leak'));
    assert.ok(!bytes.includes('/home/vkit-test'), 'not even PATH/HOME values');

    // Same values: cached. Undeclared variables do not matter.
    const same = await build(openOpts(repo, { env: { ...env, VKIT_T_UNDECLARED: 'other' } }));
    assert.equal(same.actions[0]!.status, 'cached');
    assert.equal(same.actions[0]!.key, a.key);

    // A declared value changed: rerun, and --explain says env changed.
    const changed = await build(
      openOpts(repo, { env: { ...env, VKIT_T_DECL: 'another', VKIT_T_DECL_EXPECT: 'another' } }),
      { explain: true },
    );
    assert.equal(changed.actions[0]!.status, 'ran');
    assert.notEqual(changed.actions[0]!.key, a.key);
    assert.deepEqual(changed.actions[0]!.explain, ['env: the value of a declared variable changed']);

    // Unset is distinct from empty.
    const empty = await build(openOpts(repo, { env: { ...env, VKIT_T_UNSET: '' } }));
    assert.equal(empty.actions[0]!.status, 'ran');
  } finally {
    repo.cleanup();
  }
});

test('CLI: changing a declared variable reruns the check and --explain says env changed', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'e', run: nodeCheck('0'), inputs: ['a.txt'], env: ['VKIT_T_MODE'] }] });
    assert.equal(cli(repo, ['build'], { VKIT_T_MODE: 'one' }).code, 0);
    const cached = cli(repo, ['build', '--json'], { VKIT_T_MODE: 'one', VKIT_T_OTHER: 'x' });
    assert.equal(cached.json().actions[0].status, 'cached');
    const r = cli(repo, ['build', '--explain'], { VKIT_T_MODE: 'two' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ran\s+check:e/m);
    assert.match(r.stdout, /why: env: the value of a declared variable changed/);
  } finally {
    repo.cleanup();
  }
});
