/**
 * A user rule's `plan()` must return its definition as plain JSON data: the definition enters the
 * action key and the receipt, so anything JSON cannot hold (a function, a Map, a class instance,
 * NaN) would be dropped or changed on the way, and the key would not cover what the rule planned.
 * Such a rule is refused (exit 2, ERR_RULE_INVALID) naming the rule, the node and the field path
 * of the offending value, for build and gate alike; never BLOCKED with an unrelated reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

const config = (definition: string) => `
import { defineConfig, v } from 'vkit';
const rule: any = { kind: 'wc', version: 1, attrs: v.object({}), plan() { return { definition: ${definition}, env: [], async execute() { return { outcome: 'PASS', claim: 'established', artifacts: [] }; } }; } };
export default defineConfig({ rules: [rule], actions: [{ id: 'x', rule: 'wc', inputs: ['a.txt'] }] });
`;

const CASES: Array<[string, string, RegExp]> = [
  ['a function member', '{ f: () => 1 }', /definition\.f is a function/],
  ['a method deep inside', '{ a: [1, { g() { return 2; } }] }', /definition\.a\[1\]\.g is a function/],
  ['a Map', '{ m: new Map([["k", 1]]) }', /definition\.m is a Map/],
  ['a Date', '{ when: new Date(0) }', /definition\.when is a Date/],
  ['NaN', '{ n: NaN }', /definition\.n is NaN/],
  ['a symbol', '{ s: Symbol("s") }', /definition\.s is a symbol/],
  ['undefined in an array', '{ list: [1, undefined] }', /definition\.list\[1\] is undefined/],
  ['a cycle', '(() => { const o: any = { a: {} }; o.a.back = o; return o; })()', /definition\.a\.back is a cycle/],
  [
    'a getter that throws',
    '{ get x() { throw new Error("no reading me"); } }',
    /definition(\.x)? cannot be read: no reading me/,
  ],
];

for (const [what, definition, says] of CASES) {
  test(`a rule planning ${what}: build and gate exit 2 (ERR_RULE_INVALID) naming the field path`, () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': config(definition) });
    try {
      for (const verb of ['build', 'gate']) {
        const r = cli(repo, [verb, '--json']);
        assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
        const error = r.json().error;
        assert.equal(error.code, 'ERR_RULE_INVALID');
        assert.match(error.message, /Rule `wc`/);
        assert.match(error.message, /`wc:x`/);
        assert.match(error.message, /plain JSON data/);
        assert.match(error.message, says);
        assert.doesNotMatch(error.message, /altered/);
      }
    } finally {
      repo.cleanup();
    }
  });
}

test('plain data still plans: an `undefined` member is absent, as in JSON', () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'vkit.config.ts': config(
      '{ n: 1, s: "x", b: true, z: null, l: [1, "a", { k: [] }], o: Object.create(null), u: undefined }',
    ),
  });
  try {
    const r = cli(repo, ['build', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  } finally {
    repo.cleanup();
  }
});
