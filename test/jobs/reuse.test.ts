/**
 * `verify --reuse` returns the original receipt only when captured source, policy (the check's own
 * definition) and checker identity all match; any one of them changed means a fresh run.
 */
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { verify } from '../../src/service/index.js';
import { openOpts } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

test('--reuse: same source, policy and checker -> the original receipt; each one changed -> a fresh run', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'tool.sh': '#!/bin/sh\nexit 0\n' });
  chmodSync(join(repo.dir, 'tool.sh'), 0o755);
  const manifest = (args: string[]) =>
    repo.manifest({ checks: [{ id: 'a', run: ['./tool.sh', ...args], inputs: ['a.txt'] }] });
  try {
    manifest([]);
    const v = async () => (await verify(openOpts(repo), { check: 'a', reuse: true })).actions[0]!;
    const original = (await verify(openOpts(repo), { check: 'a' })).actions[0]!;
    assert.equal(original.outcome, 'PASS');
    const same = await v();
    assert.equal(same.status, 'cached');
    assert.equal(same.receipt, original.receipt);
    assert.equal(same.run, original.run);

    repo.write('a.txt', 'changed source\n');
    const source = await v();
    assert.equal(source.status, 'ran', 'source changed');
    assert.notEqual(source.receipt, original.receipt);

    manifest(['--flag']);
    const policy = await v();
    assert.equal(policy.status, 'ran', 'policy changed');
    assert.notEqual(policy.key, source.key);

    const before = policy.key;
    repo.write('tool.sh', '#!/bin/sh\n# a different tool\nexit 0\n');
    chmodSync(join(repo.dir, 'tool.sh'), 0o755);
    const checker = await v();
    assert.equal(checker.status, 'ran', 'checker changed');
    assert.notEqual(checker.key, before);
    // And once more with nothing changed: the receipt just made is reused, unchanged.
    const again = await v();
    assert.equal(again.status, 'cached');
    assert.equal(again.receipt, checker.receipt);
  } finally {
    repo.cleanup();
  }
});
