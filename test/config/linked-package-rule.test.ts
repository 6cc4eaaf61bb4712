/**
 * A user rule's identity includes the digest of the config's local module graph, so an edit to the
 * rule's code re-identifies its actions. In a workspace the rule often lives in a local package the
 * config imports by name (`@acme/rules`, linked into node_modules by npm/pnpm/yarn workspaces). That
 * package is the repository's own source, not an installed dependency: editing it must not leave
 * the old code's cached PASS standing.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { cli } from '../_support/evidence.js';
import { sections, tempRepo } from '../_support/repo.js';

const RULE = (outcome: 'PASS' | 'FAIL') => `
import { helper } from './helper.js';
export const wc = {
  kind: 'wc',
  version: 1,
  plan() {
    return { definition: {}, env: [], async execute() { return helper('${outcome}'); } };
  },
};
`;

test('editing a linked workspace package that holds a user rule re-identifies its actions', async () => {
  const repo = tempRepo({
    '.gitignore': 'node_modules\n',
    'a.txt': 'a\n',
    'packages/rules/package.json': JSON.stringify({
      name: '@acme/rules',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
    }),
    'packages/rules/index.js': RULE('PASS'),
    'packages/rules/helper.js': `export const helper = (o) => ({ outcome: o, claim: o === 'PASS' ? 'established' : 'refuted', reason: o === 'PASS' ? undefined : 'the rule now says no', artifacts: [] });\n`,
    'vkit.config.ts': `
import { defineConfig, v } from 'vkit';
import { wc } from '@acme/rules';
export default defineConfig({ rules: [{ ...wc, attrs: v.object({}) }], actions: [{ id: 'x', rule: 'wc', inputs: ['a.txt'] }] });
`,
  });
  mkdirSync(join(repo.dir, 'node_modules', '@acme'), { recursive: true });
  symlinkSync(join('..', '..', 'packages', 'rules'), join(repo.dir, 'node_modules', '@acme', 'rules'));
  repo.age('a.txt');
  try {
    const first = cli(repo, ['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(cli(repo, ['build', '--json']).json().actions[0].status, 'cached');

    // The rule's code changes (a module the package imports): now it fails.
    repo.write(
      'packages/rules/helper.js',
      `export const helper = (o) => ({ outcome: 'FAIL', claim: 'refuted', reason: 'the rule now says no', artifacts: [] });\n`,
    );
    const gate = cli(repo, ['gate', '--json']);
    assert.notEqual(gate.json().status, 'READY', `the old code's PASS must not stand: ${gate.stdout}`);
    const again = cli(repo, ['build', '--json']);
    assert.equal(again.code, 1, again.stdout + again.stderr);
    assert.equal(again.json().actions[0].status, 'failed');

    // The linked package's modules are part of the config's local module graph (and watched).
    const loaded = await loadConfig(repo.dir);
    assert.ok(loaded.sources.includes(join(repo.dir, 'packages/rules/index.js')), loaded.sources.join('\n'));
    assert.ok(loaded.sources.includes(join(repo.dir, 'packages/rules/helper.js')), loaded.sources.join('\n'));
  } finally {
    repo.cleanup();
  }
});

test('an installed (registry) package stays external and out of the sources', async () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'node_modules/left-pad-ish/package.json': JSON.stringify({
      name: 'left-pad-ish',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
    }),
    'node_modules/left-pad-ish/index.js': 'export const id = "a";\n',
    'vkit.config.ts': `
import { defineConfig } from 'vkit';
import { id } from 'left-pad-ish';
export default defineConfig({ checks: [{ id, run: ['true'], inputs: ['a.txt'] }] });
`,
  });
  try {
    const loaded = await loadConfig(repo.dir);
    assert.deepEqual(loaded.sources, [join(repo.dir, 'vkit.config.ts')]);
    assert.equal(sections(loaded.manifest).checks[0]!.id, 'a');
  } finally {
    repo.cleanup();
  }
});
