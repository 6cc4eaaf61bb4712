/**
 * A rule's `judge` re-judges a retained result at every gate evaluation (the calendar may make a PASS
 * stale). It must never make a result better than its receipt: a user rule whose judge answers PASS
 * (here, a plausible "not expired -> PASS" judge that forgets to look at the outcome) would otherwise
 * turn a FAIL, or a BLOCKED attempt (inputs changed, timeout, cancelled), into a READY gate with no
 * passing check behind it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

const config = (outcome: 'FAIL' | 'BLOCKED') => `
import { defineConfig, defineRule, v } from 'vkit';

const dated = defineRule({
  kind: 'dated',
  version: 1,
  attrs: v.object({}),
  plan() {
    return {
      definition: {},
      env: [],
      async execute() {
        return { outcome: '${outcome}', claim: '${outcome === 'FAIL' ? 'refuted' : 'unknown'}', reason: 'the real check said no', artifacts: [], subject: { expires: '2999-01-01' } };
      },
    };
  },
  judge(result, today) {
    const expires = (result.subject as { expires?: string } | undefined)?.expires ?? '0000-00-00';
    return today > expires ? { status: 'STALE', reason: 'expired' } : { status: 'PASS', reason: 'valid until ' + expires };
  },
});

export default defineConfig({ rules: [dated], actions: [{ id: 'x', rule: 'dated', inputs: ['a.txt'] }] });
`;

for (const outcome of ['FAIL', 'BLOCKED'] as const) {
  test(`a user rule's judge cannot turn a ${outcome} receipt into a PASS item`, () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': config(outcome) });
    repo.age('a.txt');
    try {
      const built = cli(repo, ['build', '--json']);
      assert.equal(built.code, outcome === 'FAIL' ? 1 : 3, built.stdout + built.stderr);
      assert.notEqual(built.json().gate.status, 'READY');
      const item = built.json().gate.items.find((i: { id: string }) => i.id === 'dated:x');
      assert.equal(item.status, outcome);

      const gate = cli(repo, ['gate', '--json']);
      assert.equal(gate.code, outcome === 'FAIL' ? 1 : 3, gate.stdout + gate.stderr);
      assert.notEqual(gate.json().status, 'READY');
      assert.notEqual(gate.json().items[0].status, 'PASS');
    } finally {
      repo.cleanup();
    }
  });
}

test("a user rule's judge may still downgrade a PASS, and a judge that throws leaves the item BLOCKED, not a crash", () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'vkit.config.ts': `
import { defineConfig, defineRule, v } from 'vkit';
const mk = (kind: string, judge: (r: any, today: string) => any) => defineRule({
  kind, version: 1, attrs: v.object({}),
  plan() { return { definition: {}, env: [], async execute() { return { outcome: 'PASS', claim: 'established', artifacts: [] }; } }; },
  judge,
});
export default defineConfig({
  rules: [mk('expiring', () => ({ status: 'STALE', reason: 'expired yesterday' })), mk('throwing', () => { throw new Error('judge bug'); }), mk('odd', () => ({ status: 'GREEN', reason: 'fine' }))],
  actions: [{ id: 'x', rule: 'expiring', inputs: ['a.txt'] }, { id: 'y', rule: 'throwing', inputs: ['a.txt'] }, { id: 'z', rule: 'odd', inputs: ['a.txt'] }],
});
`,
  });
  repo.age('a.txt');
  try {
    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 3, built.stdout + built.stderr);
    const items = Object.fromEntries(
      built.json().gate.items.map((i: { id: string; status: string; reason: string }) => [i.id, i]),
    );
    assert.equal(items['expiring:x'].status, 'STALE');
    assert.equal(items['throwing:y'].status, 'BLOCKED');
    assert.match(items['throwing:y'].reason, /judge bug/);
    assert.equal(items['odd:z'].status, 'BLOCKED');
    const gate = cli(repo, ['gate', '--json']);
    assert.equal(gate.code, 3, gate.stdout + gate.stderr);
  } finally {
    repo.cleanup();
  }
});
