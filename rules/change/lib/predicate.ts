/**
 * The closed predicate language of change certification (spec/change-certification.md): JSON terms
 * over a function's parameters and `result`, integer literals, mathematical `+ - *`, `min max abs`,
 * comparisons, `and or not implies ite`. `checkPredicate` parses and type-checks one term into a
 * typed tree, or lists every problem with its JSON path (`claim.args[1].op`); nothing outside the
 * language is ever evaluated or sent to the solver.
 */
import type { Issue } from '../../../src/errors.js';
import { didYouMean } from '../../../src/text/suggest.js';
import { childPath, indexAt } from './paths.js';

export const INT_TYPES = ['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64'] as const;
export type IntType = (typeof INT_TYPES)[number];
export type ValueType = IntType | 'bool';
export const VALUE_TYPES: readonly ValueType[] = [...INT_TYPES, 'bool'];

/** The values a bounded integer type holds: `[min, max]`. */
export function rangeOf(t: IntType): [bigint, bigint] {
  const bits = BigInt(Number(t.slice(1)));
  return t.startsWith('u') ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
}

/** A term's sort: predicates are `bool`; arithmetic is on mathematical integers (`int`). */
type Sort = 'int' | 'bool';

export type Term =
  | { kind: 'var'; name: string; sort: Sort }
  | { kind: 'int'; value: bigint }
  | { kind: 'bool'; value: boolean }
  | { kind: 'op'; op: Op; args: Term[]; sort: Sort };

const ARITH = ['+', '-', '*', 'min', 'max', 'abs'] as const;
const ORDER = ['<', '<=', '>', '>='] as const;
const EQUALITY = ['==', '!='] as const;
const LOGIC = ['and', 'or', 'not', 'implies'] as const;
export const OPS = [...ARITH, ...ORDER, ...EQUALITY, ...LOGIC, 'ite'] as const;
type Op = (typeof OPS)[number];

/** Limits from the spec: deeper or larger terms are refused, never walked. */
const MAX_DEPTH = 64;
const MAX_NODES = 10_000;
/** Literals beyond every declared type's range cannot mean anything a bounded function computes. */
const LITERAL_MIN = -(1n << 63n);
const LITERAL_MAX = (1n << 64n) - 1n;
const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;

/** The variables a predicate may name, with their types. */
export type Scope = ReadonlyMap<string, ValueType>;

const sortOf = (t: ValueType): Sort => (t === 'bool' ? 'bool' : 'int');

function termSort(t: Term): Sort {
  return t.kind === 'int' ? 'int' : t.kind === 'bool' ? 'bool' : t.sort;
}

class Checker {
  readonly issues: Issue[] = [];
  nodes = 0;
  constructor(
    private readonly scope: Scope,
    private readonly what: string,
  ) {}

  fail(path: string, message: string): undefined {
    this.issues.push({ path, message });
    return undefined;
  }

  term(value: unknown, path: string, depth: number): Term | undefined {
    if (depth > MAX_DEPTH) return this.fail(path, `Nested deeper than ${MAX_DEPTH} terms; simplify the ${this.what}`);
    if (++this.nodes > MAX_NODES)
      return this.nodes === MAX_NODES + 1
        ? this.fail(path, `More than ${MAX_NODES} terms in the ${this.what}; simplify it`)
        : undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return this.fail(
        path,
        `Expected a term object ({ "var" }, { "int" }, { "bool" } or { "op", "args" }), got ${shown(value)}`,
      );
    const keys = Object.keys(value);
    const form = keys.find((k) => k === 'var' || k === 'int' || k === 'bool' || k === 'op');
    if (form === undefined)
      return this.fail(
        path,
        `Expected one of the keys var, int, bool, op, got ${keys.map((k) => `\`${k}\``).join(', ') || 'an empty object'}`,
      );
    const allowed = form === 'op' ? ['op', 'args'] : [form];
    for (const k of keys)
      if (!allowed.includes(k))
        return this.fail(childPath(path, k), `Unknown key \`${k}\` in a \`${form}\` term${didYouMean(k, allowed)}`);
    const v = value as Record<string, unknown>;
    if (form === 'var') return this.variable(v.var, childPath(path, 'var'));
    if (form === 'int') return this.literal(v.int, childPath(path, 'int'));
    if (form === 'bool') {
      if (typeof v.bool !== 'boolean')
        return this.fail(childPath(path, 'bool'), `Expected true or false, got ${shown(v.bool)}`);
      return { kind: 'bool', value: v.bool };
    }
    return this.operation(v, path, depth);
  }

  variable(name: unknown, path: string): Term | undefined {
    if (typeof name !== 'string') return this.fail(path, `Expected a variable name, got ${shown(name)}`);
    const type = this.scope.get(name);
    if (type === undefined) {
      const names = [...this.scope.keys()];
      const why = name === 'result' ? `; \`result\` is not in scope in the ${this.what}` : didYouMean(name, names);
      return this.fail(path, `Unknown variable \`${name}\`${why} (in scope: ${names.join(', ') || 'none'})`);
    }
    return { kind: 'var', name, sort: sortOf(type) };
  }

  literal(raw: unknown, path: string): Term | undefined {
    let value: bigint;
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = BigInt(raw);
    else if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) value = BigInt(raw);
    else if (typeof raw === 'number' && Number.isInteger(raw))
      return this.fail(
        path,
        `Integer ${raw} is beyond ±2^53: write it as a decimal string ("${BigInt(raw)}" is what JSON read)`,
      );
    else
      return this.fail(
        path,
        `Expected an integer (a JSON integer, or a decimal string beyond ±2^53), got ${shown(raw)}`,
      );
    if (value < LITERAL_MIN || value > LITERAL_MAX)
      return this.fail(path, `Integer ${value} is outside every declared type (from -2^63 to 2^64-1)`);
    return { kind: 'int', value };
  }

  operation(v: Record<string, unknown>, path: string, depth: number): Term | undefined {
    const opPath = childPath(path, 'op');
    if (typeof v.op !== 'string' || !(OPS as readonly string[]).includes(v.op))
      return this.fail(
        opPath,
        `Unknown operator ${shown(v.op)}${typeof v.op === 'string' ? didYouMean(v.op, OPS) : ''} (operators: ${OPS.join(' ')})`,
      );
    const op = v.op as Op;
    const argsPath = childPath(path, 'args');
    if (!Array.isArray(v.args)) return this.fail(argsPath, `Expected \`args\`, an array of terms, for \`${op}\``);
    const arityProblem = arity(op, v.args.length);
    if (arityProblem) return this.fail(argsPath, `\`${op}\` ${arityProblem}, got ${v.args.length}`);
    const args: Term[] = [];
    for (const [i, a] of v.args.entries()) {
      const t = this.term(a, indexAt(argsPath, i), depth + 1);
      if (t) args.push(t);
    }
    if (args.length !== v.args.length) return undefined;
    const sort = this.typeOf(op, args, argsPath);
    return sort && { kind: 'op', op, args, sort };
  }

  /** The result sort of a well-typed operation; an ill-typed one is an issue at the offending argument. */
  typeOf(op: Op, args: Term[], argsPath: string): Sort | undefined {
    const want = (i: number, s: Sort) => {
      const got = termSort(args[i]!);
      return got === s
        ? true
        : this.fail(indexAt(argsPath, i), `\`${op}\` expects ${article(s)} here, got ${article(got)}`);
    };
    const all = (s: Sort) => args.map((_, i) => want(i, s)).every(Boolean);
    if ((ARITH as readonly string[]).includes(op)) return all('int') ? 'int' : undefined;
    if ((ORDER as readonly string[]).includes(op)) return all('int') ? 'bool' : undefined;
    if ((LOGIC as readonly string[]).includes(op)) return all('bool') ? 'bool' : undefined;
    if (op === 'ite') {
      if (!want(0, 'bool')) return undefined;
      const s = termSort(args[1]!);
      return want(2, s) ? s : undefined;
    }
    return want(1, termSort(args[0]!)) ? 'bool' : undefined; // == and !=: two of one sort
  }
}

function arity(op: Op, n: number): string | undefined {
  if (op === 'not' || op === 'abs') return n === 1 ? undefined : 'takes exactly 1 argument';
  if (op === '-') return n === 1 || n === 2 ? undefined : 'takes 1 argument (negation) or 2';
  if (op === 'ite') return n === 3 ? undefined : 'takes exactly 3 arguments (condition, then, else)';
  if ((ORDER as readonly string[]).includes(op) || (EQUALITY as readonly string[]).includes(op) || op === 'implies')
    return n === 2 ? undefined : 'takes exactly 2 arguments';
  return n >= 2 ? undefined : 'takes 2 or more arguments';
}

const article = (s: Sort) => (s === 'int' ? 'an integer' : 'a boolean');

function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * Parses and type-checks a predicate (a `bool` term) at `path`, over the variables of `scope`.
 * `what` names it in messages (`claim`, `assumptions`).
 */
export function checkPredicate(
  value: unknown,
  path: string,
  scope: Scope,
  what: string,
): { term?: Term; issues: Issue[] } {
  const c = new Checker(scope, what);
  const term = c.term(value, path, 1);
  if (term && termSort(term) !== 'bool')
    c.fail(path, `Expected the ${what} to be a predicate (a boolean term), got an integer term`);
  return c.issues.length ? { issues: c.issues } : { term, issues: [] };
}
