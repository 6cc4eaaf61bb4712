/**
 * A config is user code: its default export may be a function, it registers rules whose `plan` and
 * `tool` the engine calls on every build and gate. A throw or a malformed value there is a mistake in
 * the user's config (exit 2, naming the file or rule), never "internal error, please report" (exit 4).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

const RULE = (body: string) => `
import { defineConfig, v } from 'vkit';
const rule: any = { kind: 'wc', version: 1, attrs: v.object({}), ${body} };
export default defineConfig({ rules: [rule], actions: [{ id: 'x', rule: 'wc', inputs: ['a.txt'] }] });
`;
const PLAN_OK = `plan() { return { definition: {}, env: [], async execute() { return { outcome: 'PASS', claim: 'established', artifacts: [] }; } }; }`;

const cases: Array<[string, string, RegExp]> = [
  [
    'a config function that throws',
    `import { defineConfig } from 'vkit';\nexport default defineConfig(() => { throw new Error('boom'); });\n`,
    /boom/,
  ],
  [
    'an async config function that rejects',
    `import { defineConfig } from 'vkit';\nexport default defineConfig(async () => { throw new Error('boom'); });\n`,
    /boom/,
  ],
  [
    'a rule without an attrs schema',
    `import { defineConfig } from 'vkit';\nconst rule: any = { kind: 'wc', version: 1, ${PLAN_OK} };\nexport default defineConfig({ rules: [rule], actions: [{ id: 'x', rule: 'wc', inputs: ['a.txt'] }] });\n`,
    /rules\[0\]/,
  ],
  ['a rule whose plan throws', RULE(`plan() { throw new Error('plan bug'); }`), /plan bug/],
  ['a rule whose plan returns nothing', RULE(`plan() { return undefined; }`), /wc/],
  [
    'a rule whose definition has no JSON form',
    RULE(
      `plan() { return { definition: { n: 1n }, env: [], async execute() { return { outcome: 'PASS', claim: 'established', artifacts: [] }; } }; }`,
    ),
    /wc/,
  ],
  ['a rule whose tool() throws', RULE(`tool() { throw new Error('tool bug'); }, ${PLAN_OK}`), /tool bug/],
];

for (const [name, config, message] of cases) {
  test(`${name}: build and gate exit 2 naming the problem, not 4`, () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': config });
    try {
      for (const verb of ['build', 'gate']) {
        const r = cli(repo, [verb]);
        assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
        assert.doesNotMatch(r.stderr, /internal error/);
        assert.match(r.stderr, message);
      }
    } finally {
      repo.cleanup();
    }
  });
}
