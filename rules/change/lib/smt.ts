/**
 * Predicates as SMT-LIB 2 text. Integer variables are SMT `Int`s constrained to their declared
 * type's range, and `+ - *` are SMT's own mathematical integer operations: the spec's arithmetic has
 * no wrap and no overflow, which bit-vectors would add (a bit-vector `bvadd` wraps). Shared
 * subterms of `min`, `max` and `abs` are bound with `let`, so the text stays linear in the term.
 */
import { type IntType, rangeOf, type Term, type ValueType } from './predicate.js';

/** A quoted symbol: names are Rust identifiers, so `|` never occurs in them. */
export const sym = (name: string): string => `|${name}|`;

const num = (n: bigint): string => (n < 0n ? `(- ${-n})` : `${n}`);

/** `(and (<= lo x) (<= x hi))` for an integer variable; `true` for a bool. */
export function rangeOfVar(name: string, type: ValueType): string {
  if (type === 'bool') return 'true';
  const [lo, hi] = rangeOf(type as IntType);
  return `(and (<= ${num(lo)} ${sym(name)}) (<= ${sym(name)} ${num(hi)}))`;
}

export const sortText = (type: ValueType): string => (type === 'bool' ? 'Bool' : 'Int');

/** Declarations of the variables with their range constraints. */
export function declare(scope: ReadonlyMap<string, ValueType>): string[] {
  const lines: string[] = [];
  for (const [name, type] of scope) {
    lines.push(`(declare-const ${sym(name)} ${sortText(type)})`);
    if (type !== 'bool') lines.push(`(assert ${rangeOfVar(name, type)})`);
  }
  return lines;
}

/** One term as SMT-LIB text. */
export function smtTerm(t: Term): string {
  let fresh = 0;
  const go = (t: Term): string => {
    if (t.kind === 'int') return num(t.value);
    if (t.kind === 'bool') return t.value ? 'true' : 'false';
    if (t.kind === 'var') return sym(t.name);
    const a = t.args.map(go);
    switch (t.op) {
      case '+':
      case '*':
      case 'and':
      case 'or':
      case 'not':
      case 'ite':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return `(${t.op} ${a.join(' ')})`;
      case '-':
        return `(- ${a.join(' ')})`;
      case 'implies':
        return `(=> ${a.join(' ')})`;
      case '==':
        return `(= ${a.join(' ')})`;
      case '!=':
        return `(not (= ${a.join(' ')}))`;
      case 'abs': {
        const v = `|.t${fresh++}|`;
        return `(let ((${v} ${a[0]})) (ite (< ${v} 0) (- ${v}) ${v}))`;
      }
      case 'min':
      case 'max':
        return a.reduce((x, y) => {
          const l = `|.t${fresh++}|`;
          const r = `|.t${fresh++}|`;
          const pick = t.op === 'min' ? '<=' : '>=';
          return `(let ((${l} ${x}) (${r} ${y})) (ite (${pick} ${l} ${r}) ${l} ${r}))`;
        });
    }
  };
  return go(t);
}
