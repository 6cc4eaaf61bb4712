/**
 * The logic obligations of a change request, each decided by Z3 (spec/change-certification.md, "What is
 * checked"): `logic.entailed` (A ∧ I → C), `logic.strengthens` (A ∧ C → B), `logic.keeps_legal_inputs`
 * (A → ∃r. C), and the four witness facts, each evaluated directly and confirmed by the solver. Each
 * query asks for a counterexample; `unsat` is the proof, `sat` the refutation (its model shown),
 * anything else unknown.
 */
import { holds, type Value } from './evaluate.js';
import type { Term } from './predicate.js';
import type { Basis } from './records.js';
import type { Observation } from './request.js';
import { declare, rangeOfVar, smtTerm, sortText, sym } from './smt.js';
import { type SolverFinding, type SolverIdentity, solve } from './z3.js';

type Status = 'holds' | 'refuted' | 'unknown';

export interface Obligation {
  id: string;
  status: Status;
  /** What was checked, in one line. */
  statement: string;
  /** Refuted: an assignment of every variable that shows it. */
  counterexample?: Record<string, Value>;
  reason?: string;
  checker?: Record<string, string>;
}

export interface LogicInput {
  basis: Basis;
  claim: Term;
  witness: Observation;
}

const assert = (t: Term | string, negate = false) => {
  const text = typeof t === 'string' ? t : smtTerm(t);
  return `(assert ${negate ? `(not ${text})` : text})`;
};

/** A query's answer as an obligation: `unsat` holds, `sat` is refuted with the model as counterexample. */
function fromFinding(id: string, statement: string, f: SolverFinding, solver: SolverIdentity): Obligation {
  const checker = { name: solver.name, path: solver.path, sha256: solver.sha256, version: solver.version };
  if (f.status === 'unsat') return { id, status: 'holds', statement, checker };
  if (f.status === 'sat')
    return { id, status: 'refuted', statement, counterexample: Object.fromEntries(f.model), checker };
  return { id, status: 'unknown', statement, reason: f.reason, checker };
}

/** The three universal obligations. */
async function universal(input: LogicInput, solver: SolverIdentity, timeoutMs: number): Promise<Obligation[]> {
  const { basis, claim } = input;
  const all = [...basis.scope.keys()].map(sym);
  const inputs = [...basis.inputScope.keys()].map(sym);
  const base = declare(basis.scope);
  const entailed = [...base, assert(basis.assumptions), assert(basis.intent), assert(claim, true)].join('\n');
  const strengthens = [...base, assert(basis.assumptions), assert(claim), assert(basis.baseline, true)].join('\n');
  const r = sym('result');
  const type = basis.function.result;
  const noOutput = `(forall ((${r} ${sortText(type)})) (=> ${rangeOfVar('result', type)} (not ${smtTerm(claim)})))`;
  const keeps = [...declare(basis.inputScope), assert(basis.assumptions), assert(noOutput)].join('\n');
  return [
    fromFinding(
      'logic.entailed',
      'for all legal x and r: intent(x, r) implies claim(x, r)',
      await solve(solver, entailed, all, timeoutMs),
      solver,
    ),
    fromFinding(
      'logic.strengthens',
      'for all legal x and r: claim(x, r) implies baseline(x, r)',
      await solve(solver, strengthens, all, timeoutMs),
      solver,
    ),
    fromFinding(
      'logic.keeps_legal_inputs',
      'for every legal x some r of the result type satisfies claim(x, r)',
      await solve(solver, keeps, inputs, timeoutMs),
      solver,
    ),
  ];
}

/**
 * One witness fact: evaluated directly, then confirmed by asking the solver for the witness with the
 * fact negated (`unsat`: it holds). The two must agree; a disagreement is unknown, never a pass.
 */
async function witnessFact(
  id: string,
  statement: string,
  fact: Term,
  expected: boolean,
  input: LogicInput,
  solver: SolverIdentity,
  timeoutMs: number,
): Promise<Obligation> {
  const { basis, witness } = input;
  const env: Map<string, Value> = new Map(witness.inputs);
  env.set('result', witness.result);
  const evaluated = holds(fact, env) === expected;
  const pinned = [...env].map(([name, v]) => assert(`(= ${sym(name)} ${literal(v)})`));
  const script = [...declare(basis.scope), ...pinned, expected ? assert(fact, true) : assert(fact)].join('\n');
  const finding = await solve(solver, script, [...basis.scope.keys()].map(sym), timeoutMs);
  const o = fromFinding(id, statement, finding, solver);
  if (o.status === 'unknown') return o;
  const solverSays = o.status === 'holds';
  if (solverSays !== evaluated)
    return {
      ...o,
      status: 'unknown',
      reason: `evaluation says ${evaluated ? 'holds' : 'refuted'}, z3 says ${o.status}: refusing to decide`,
    };
  return evaluated ? o : { ...o, counterexample: Object.fromEntries(env) };
}

const literal = (v: Value) => (typeof v === 'boolean' ? String(v) : v < 0n ? `(- ${-v})` : `${v}`);

async function witnessFacts(input: LogicInput, solver: SolverIdentity, timeoutMs: number): Promise<Obligation[]> {
  const { basis, claim } = input;
  const facts: [string, string, Term, boolean][] = [
    ['witness.legal', 'the witness input satisfies the assumptions', basis.assumptions, true],
    ['witness.baseline_permits', 'the baseline permits the witness output', basis.baseline, true],
    ['witness.intent_forbids', 'the intent forbids the witness output', basis.intent, false],
    ['witness.claim_forbids', 'the claim forbids the witness output', claim, false],
  ];
  const out: Obligation[] = [];
  for (const [id, statement, fact, expected] of facts)
    out.push(await witnessFact(id, statement, fact, expected, input, solver, timeoutMs));
  return out;
}

/** The logic obligations in the spec's order; without a solver, each is unknown naming why. */
export async function logicObligations(
  input: LogicInput,
  solver: SolverIdentity | string,
  timeoutMs: number,
): Promise<Obligation[]> {
  if (typeof solver === 'string')
    return LOGIC_IDS.map((id) => ({ id, status: 'unknown' as const, statement: id, reason: solver }));
  return [...(await universal(input, solver, timeoutMs)), ...(await witnessFacts(input, solver, timeoutMs))];
}

const LOGIC_IDS = [
  'logic.entailed',
  'logic.strengthens',
  'logic.keeps_legal_inputs',
  'witness.legal',
  'witness.baseline_permits',
  'witness.intent_forbids',
  'witness.claim_forbids',
] as const;
