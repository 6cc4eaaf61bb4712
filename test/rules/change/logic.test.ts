/**
 * The logic obligations with the real Z3 (Debian's `z3`, a real process) on the issue's catalogue:
 * a proper strengthening holds everywhere; a claim that drops a legal input, one the intent does not
 * entail, one weaker than the baseline, and a wrong witness are each refuted with the solver's
 * counterexample (checked here by evaluating it); a query that times out is unknown.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluate, holds } from '../../../rules/change/lib/evaluate.js';
import { type LogicInput, logicObligations, type Obligation } from '../../../rules/change/lib/logic.js';
import { parseBasis } from '../../../rules/change/lib/records.js';
import { parseEnvelope, typeRequest } from '../../../rules/change/lib/request.js';
import { z3Identity } from '../../../rules/change/lib/z3.js';
import { CATALOGUE, HARD } from './catalogue.js';
import { z3Skip } from './z3.js';

const DIGEST = `sha256:${'0'.repeat(64)}`;

/** The logic input of a basis, a claim and a witness, through the real parsers. */
function input(basisJson: unknown, claim: unknown, witness: unknown): LogicInput {
  const { basis, issues } = parseBasis(basisJson, 'basis.json');
  assert.deepEqual(issues, []);
  const env = parseEnvelope({
    schema: 'vkit.change-request/1',
    candidate: 'HEAD',
    basis: DIGEST,
    claim,
    delegation: { witness },
  });
  assert.deepEqual(env.issues, []);
  const typed = typeRequest(env.envelope!, basis!);
  assert.deepEqual(typed.issues, []);
  return { basis: basis!, claim: typed.request!.claim, witness: typed.request!.witness };
}

const solver = () => {
  const s = z3Identity();
  if (typeof s === 'string') throw new Error(s);
  return s;
};

const shown = (x: unknown) => JSON.stringify(x, (_, y) => (typeof y === 'bigint' ? `${y}` : y));
const byId = (os: Obligation[]) => new Map(os.map((o) => [o.id, o]));

/** A refutation's counterexample, re-evaluated: it must really falsify what was checked. */
function assertShows(o: Obligation | undefined, falsified: (env: Map<string, bigint | boolean>) => boolean) {
  assert.equal(o?.status, 'refuted', shown(o));
  const env = new Map(Object.entries(o!.counterexample ?? {}));
  assert.ok(env.size > 0, 'a refutation shows its counterexample');
  assert.ok(falsified(env), `counterexample ${shown(o!.counterexample)} does not show ${o!.id}`);
}

describe('logic obligations with the real Z3', z3Skip(), () => {
  for (const [name, c] of Object.entries(CATALOGUE)) {
    describe(name, () => {
      test('a proper strengthening holds on every logic obligation', async () => {
        const os = await logicObligations(input(c.basis, c.claim, c.witness), solver(), 20_000);
        assert.deepEqual(
          os.map((o) => [o.id, o.status]),
          os.map((o) => [o.id, 'holds']),
          shown(os),
        );
        assert.equal(os.length, 7);
        assert.match(os[0]!.checker!.version, /^Z3 version/);
        assert.match(os[0]!.checker!.sha256, /^sha256:[0-9a-f]{64}$/);
      });

      test('a claim that drops a legal input is refuted, showing the input', async () => {
        const i = input(c.basis, c.drops, c.witness);
        const o = byId(await logicObligations(i, solver(), 20_000)).get('logic.keeps_legal_inputs');
        assertShows(o, (env) => {
          // A legal input for which no output of the result type satisfies the claim (u8/i8/i32 results here: checked over u8/i8, and for i32 over a window).
          if (!holds(i.basis.assumptions, env)) return false;
          const t = i.basis.function.result;
          const [lo, hi] = t === 'u8' ? [0n, 255n] : t === 'i8' ? [-128n, 127n] : [-2000n, 2000n];
          for (let r = lo; r <= hi; r++) if (holds(i.claim, new Map([...env, ['result', r]]))) return false;
          return true;
        });
      });

      test('a claim the intent does not entail is refuted, showing where', async () => {
        const i = input(c.basis, c.notEntailed, c.witness);
        const o = byId(await logicObligations(i, solver(), 20_000)).get('logic.entailed');
        assertShows(o, (env) => holds(i.basis.assumptions, env) && holds(i.basis.intent, env) && !holds(i.claim, env));
      });

      test('a claim weaker than the baseline is refuted, showing where', async () => {
        const i = input(c.basis, c.weakens, c.witness);
        const o = byId(await logicObligations(i, solver(), 20_000)).get('logic.strengthens');
        assertShows(
          o,
          (env) => holds(i.basis.assumptions, env) && holds(i.claim, env) && !holds(i.basis.baseline, env),
        );
      });

      test('a witness the intent permits is refuted, showing the witness', async () => {
        const i = input(c.basis, c.claim, c.wrongWitness);
        const os = byId(await logicObligations(i, solver(), 20_000));
        assertShows(os.get('witness.intent_forbids'), (env) => holds(i.basis.intent, env));
        assert.equal(os.get('witness.legal')?.status, 'holds');
      });
    });
  }

  test('a witness outside the assumptions is refuted (abs on i8: x = -128 is not legal)', async () => {
    const c = CATALOGUE.abs_i8!;
    const i = input(c.basis, c.claim, { inputs: { x: -128 }, result: 5 });
    const o = byId(await logicObligations(i, solver(), 20_000)).get('witness.legal');
    assertShows(
      o,
      (env) => !holds(i.basis.assumptions, env) && evaluate({ kind: 'var', name: 'x', sort: 'int' }, env) === -128n,
    );
  });

  test('a query the solver cannot settle in time is unknown, never holds', async () => {
    const i = input(HARD.basis, HARD.claim, HARD.witness);
    const started = Date.now();
    const o = byId(await logicObligations(i, solver(), 300)).get('logic.entailed');
    assert.equal(o?.status, 'unknown', shown(o));
    assert.match(o!.reason!, /timeout|unknown/);
    assert.ok(Date.now() - started < 15_000);
  });

  test('without a solver every logic obligation is unknown naming apt-get install z3', async () => {
    const c = CATALOGUE.max_u8!;
    const os = await logicObligations(input(c.basis, c.claim, c.witness), z3Identity({ PATH: '/nonexistent' }), 1000);
    assert.equal(os.length, 7);
    for (const o of os) {
      assert.equal(o.status, 'unknown');
      assert.match(o.reason!, /apt-get install z3/);
    }
  });
});
