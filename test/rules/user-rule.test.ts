import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { loadConfig } from '../../src/config/load.js';
import { tempRepo } from '../_support/repo.js';

// A user rule with the same API the built-in kinds use: counts the words of its inputs and passes
// when they stay under `max`. It reads only what its capture names.
const RULE = (version: number) => `
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineRule, v } from 'vkit';

export const wordcount = defineRule({
  kind: 'wordcount',
  version: ${version},
  attrs: v.strictObject({ max: v.number() }),
  plan(node) {
    return {
      definition: { max: node.attrs.max },
      env: [],
      async execute(io) {
        let words = 0;
        for (const f of node.capture.files) words += readFileSync(join(io.root, f.path), 'utf8').split(/\\s+/).filter(Boolean).length;
        const report = await io.putBytes(String(words));
        const pass = words <= node.attrs.max;
        return { outcome: pass ? 'PASS' : 'FAIL', claim: pass ? 'established' : 'refuted', reason: pass ? undefined : words + ' words > ' + node.attrs.max, artifacts: [{ name: 'count', ...report }] };
      },
    };
  },
});
`;

const CONFIG = `
import { defineConfig } from 'vkit';
import { wordcount } from './rules/wordcount.ts';

export default defineConfig({
  rules: [wordcount],
  actions: [{ id: 'readme', rule: 'wordcount', inputs: ['README.md'], attrs: { max: 5 } }],
});
`;

test('a vkit.config.ts registers its own rule: manifest records it, actions run, cache and re-identify', async () => {
  const repo = tempRepo({ 'README.md': 'one two three\n', 'rules/wordcount.ts': RULE(1), 'vkit.config.ts': CONFIG });
  const store = join(repo.dir, '.store');
  try {
    const loaded = await loadConfig(repo.dir);
    assert.deepEqual(
      loaded.manifest.rules.map((r) => [r.kind, r.version]),
      [['wordcount', 1]],
    );
    assert.match(loaded.manifest.rules[0]!.source_sha256, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(
      loaded.sources.map((s) => s.slice(repo.dir.length + 1)),
      ['rules/wordcount.ts', 'vkit.config.ts'],
    );

    const first = await build({ root: repo.dir, store });
    assert.equal(first.gate.status, 'READY');
    assert.deepEqual(
      first.actions.map((a) => [a.label, a.status]),
      [['wordcount:readme', 'ran']],
    );
    const receiptId = first.actions[0]!.receipt!;
    const receipt = JSON.parse(readFileSync(join(store, 'cas', receiptId.slice(7, 9), receiptId.slice(9)), 'utf8'));
    assert.equal(receipt.rule.kind, 'wordcount');
    assert.equal(receipt.rule.source, loaded.manifest.rules[0]!.source_sha256);

    const second = await build({ root: repo.dir, store });
    assert.deepEqual(
      second.actions.map((a) => a.status),
      ['cached'],
    );

    // Editing the rule's module (even without a version bump) re-identifies its actions.
    repo.write('rules/wordcount.ts', `${RULE(1)}\n// edited\n`);
    const third = await build({ root: repo.dir, store });
    assert.deepEqual(
      third.actions.map((a) => a.status),
      ['ran'],
    );

    repo.write('README.md', 'one two three four five six\n');
    const fourth = await build({ root: repo.dir, store });
    assert.equal(fourth.gate.status, 'REJECTED');
    assert.match(fourth.actions[0]!.reason!, /6 words > 5/);
  } finally {
    repo.cleanup();
  }
});

test("a user rule's attrs are checked by its own schema, with the field path", async () => {
  const repo = tempRepo({
    'README.md': 'x\n',
    'rules/wordcount.ts': RULE(1),
    'vkit.config.ts': CONFIG.replace('max: 5', "max: 'five'"),
  });
  try {
    await assert.rejects(
      loadConfig(repo.dir),
      (error: { code: string; exitCode: number; issues: Array<{ path: string }> }) => {
        assert.equal(error.code, 'ERR_CONFIG_INVALID');
        assert.equal(error.exitCode, 2);
        assert.equal(error.issues[0]!.path, 'actions[0].attrs.max');
        return true;
      },
    );
  } finally {
    repo.cleanup();
  }
});
