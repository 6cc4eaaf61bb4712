/**
 * Direct evaluation of a typed predicate on one assignment (a witness), with the language's
 * semantics: mathematical integers (bigint, no wrap), `implies` and `ite` as in logic. The solver
 * re-checks every evaluated fact; the two must agree.
 */
import type { Term } from './predicate.js';

export type Value = bigint | boolean;
export type Assignment = ReadonlyMap<string, Value>;

export function evaluate(t: Term, env: Assignment): Value {
  if (t.kind === 'int' || t.kind === 'bool') return t.value;
  if (t.kind === 'var') {
    const v = env.get(t.name);
    if (v === undefined) throw new Error(`No value for variable \`${t.name}\``);
    return v;
  }
  const a = t.args.map((x) => evaluate(x, env));
  const ints = a as bigint[];
  const bools = a as boolean[];
  switch (t.op) {
    case '+':
      return ints.reduce((x, y) => x + y);
    case '-':
      return ints.length === 1 ? -ints[0]! : ints[0]! - ints[1]!;
    case '*':
      return ints.reduce((x, y) => x * y);
    case 'min':
      // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.min rejects.
      return ints.reduce((x, y) => (y < x ? y : x));
    case 'max':
      // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max rejects.
      return ints.reduce((x, y) => (y > x ? y : x));
    case 'abs':
      return ints[0]! < 0n ? -ints[0]! : ints[0]!;
    case '<':
      return ints[0]! < ints[1]!;
    case '<=':
      return ints[0]! <= ints[1]!;
    case '>':
      return ints[0]! > ints[1]!;
    case '>=':
      return ints[0]! >= ints[1]!;
    case '==':
      return a[0] === a[1];
    case '!=':
      return a[0] !== a[1];
    case 'and':
      return bools.every(Boolean);
    case 'or':
      return bools.some(Boolean);
    case 'not':
      return !bools[0];
    case 'implies':
      return !bools[0] || bools[1]!;
    case 'ite':
      return bools[0] ? a[1]! : a[2]!;
  }
}

/** Evaluates a predicate (a bool term). */
export const holds = (t: Term, env: Assignment): boolean => evaluate(t, env) === true;
