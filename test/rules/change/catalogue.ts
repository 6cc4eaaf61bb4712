/**
 * Small functions for the change-certification tests (the catalogue): saturating add on u8,
 * clamp on i32, abs on i8, max of two u8. Each has a basis (assumptions, intent, baseline), a proper
 * strengthening with its witness, and the near misses a solver must refute.
 */
type T = Record<string, unknown>;
export const v = (name: string): T => ({ var: name });
export const n = (value: number | string): T => ({ int: value });
export const op = (o: string, ...args: T[]): T => ({ op: o, args });
const r = v('result');

export interface CatalogueEntry {
  basis: T;
  claim: T;
  witness: { inputs: Record<string, number>; result: number | boolean };
  /** A claim no legal input may be dropped by, dropping one. */
  drops: T;
  /** A claim the intent does not entail. */
  notEntailed: T;
  /** A claim weaker than the baseline somewhere. */
  weakens: T;
  /** A witness the intent permits. */
  wrongWitness: { inputs: Record<string, number>; result: number };
}

function basisOf(name: string, params: [string, string][], result: string, a: T, intent: T, baseline: T): T {
  return {
    schema: 'vkit.delegation-basis/1',
    function: {
      crate: name,
      manifest: `crates/${name}/Cargo.toml`,
      path: `crates/${name}/src/lib.rs`,
      name,
      params: params.map(([p, t]) => ({ name: p, type: t })),
      result,
    },
    assumptions: a,
    intent,
    baseline,
    method: 'restricted_captured_rust_kani_model',
  };
}

const TRUE = { bool: true };

export const CATALOGUE: Record<string, CatalogueEntry> = {
  saturating_add: {
    basis: basisOf(
      'saturating_add',
      [
        ['a', 'u8'],
        ['b', 'u8'],
      ],
      'u8',
      TRUE,
      op('==', r, op('min', op('+', v('a'), v('b')), n(255))),
      op('>=', r, op('max', v('a'), v('b'))),
    ),
    claim: op('and', op('>=', r, op('max', v('a'), v('b'))), op('<=', r, op('+', v('a'), v('b')))),
    witness: { inputs: { a: 1, b: 2 }, result: 10 },
    drops: op('and', op('>=', r, op('max', v('a'), v('b'))), op('<', r, op('+', v('a'), v('b')))),
    notEntailed: op('==', r, op('max', v('a'), v('b'))),
    weakens: op('<=', r, n(255)),
    wrongWitness: { inputs: { a: 1, b: 2 }, result: 3 },
  },
  clamp: {
    basis: basisOf(
      'clamp_percent',
      [['x', 'i32']],
      'i32',
      op('and', op('<=', n(-1000), v('x')), op('<=', v('x'), n(1000))),
      op('==', r, op('max', n(0), op('min', v('x'), n(100)))),
      op('and', op('<=', n(0), r), op('<=', r, n(100))),
    ),
    claim: op(
      'and',
      op('<=', n(0), r),
      op('<=', r, n(100)),
      op('implies', op('<=', v('x'), n(0)), op('==', r, n(0))),
      op('implies', op('>=', v('x'), n(100)), op('==', r, n(100))),
    ),
    witness: { inputs: { x: 150 }, result: 50 },
    drops: op('and', op('<=', n(0), r), op('<=', r, n(100)), op('!=', v('x'), n(7))),
    notEntailed: op('and', op('<=', n(0), r), op('<=', r, n(100)), op('==', r, op('abs', v('x')))),
    weakens: op('and', op('<=', n(0), r), op('<=', r, n(1000))),
    wrongWitness: { inputs: { x: 150 }, result: 100 },
  },
  abs_i8: {
    basis: basisOf(
      'abs_i8',
      [['x', 'i8']],
      'i8',
      op('>', v('x'), n(-128)),
      op('==', r, op('abs', v('x'))),
      op('>=', r, n(0)),
    ),
    claim: op('==', r, op('abs', v('x'))),
    witness: { inputs: { x: -3 }, result: 5 },
    drops: op('and', op('==', r, op('abs', v('x'))), op('!=', r, n(7))),
    notEntailed: op('==', r, op('-', v('x'))),
    weakens: op('>=', r, n(-1)),
    wrongWitness: { inputs: { x: -3 }, result: 3 },
  },
  max_u8: {
    basis: basisOf(
      'max_u8',
      [
        ['a', 'u8'],
        ['b', 'u8'],
      ],
      'u8',
      TRUE,
      op('==', r, op('max', v('a'), v('b'))),
      op('or', op('==', r, v('a')), op('==', r, v('b'))),
    ),
    claim: op('and', op('>=', r, v('a')), op('>=', r, v('b')), op('or', op('==', r, v('a')), op('==', r, v('b')))),
    witness: { inputs: { a: 1, b: 5 }, result: 1 },
    drops: op('and', op('>', r, v('a')), op('>', r, v('b'))),
    notEntailed: op('==', r, v('a')),
    weakens: op('>=', r, op('min', v('a'), v('b'))),
    wrongWitness: { inputs: { a: 1, b: 5 }, result: 5 },
  },
};

/** A basis whose entailment is nonlinear integer arithmetic Z3 cannot settle quickly (cubes of u64). */
export const HARD = {
  basis: basisOf(
    'cubes',
    [
      ['a', 'u64'],
      ['b', 'u64'],
      ['c', 'u64'],
    ],
    'bool',
    op('and', op('>', v('a'), n(0)), op('>', v('b'), n(0))),
    op(
      '==',
      r,
      op(
        '!=',
        op('+', op('*', v('a'), v('a'), v('a')), op('*', v('b'), v('b'), v('b'))),
        op('*', v('c'), v('c'), v('c')),
      ),
    ),
    TRUE,
  ),
  claim: op('==', r, { bool: true }),
  witness: { inputs: { a: 1, b: 1, c: 1 }, result: false },
};
