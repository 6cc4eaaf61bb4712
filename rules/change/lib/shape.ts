/** Small structural checks shared by the request and record parsers: each problem is an issue at its JSON path. */
import type { Issue } from '../../../src/errors.js';
import { didYouMean } from '../../../src/text/suggest.js';
import { childPath } from './paths.js';
import { type IntType, rangeOf, type ValueType } from './predicate.js';
import type { Value } from './evaluate.js';

/** An object with exactly the known keys and every required one; undefined (with issues) otherwise. */
export function objectAt(
  value: unknown,
  path: string,
  required: readonly string[],
  optional: readonly string[],
  issues: Issue[],
): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path: path || '$', message: `Expected an object, got ${describe(value)}` });
    return undefined;
  }
  const known = [...required, ...optional];
  const o = value as Record<string, unknown>;
  const before = issues.length;
  for (const k of Object.keys(o))
    if (!known.includes(k))
      issues.push({ path: childPath(path, k), message: `Unknown key \`${k}\`${didYouMean(k, known)}` });
  for (const k of required)
    if (!Object.hasOwn(o, k)) issues.push({ path: childPath(path, k), message: `Missing required key \`${k}\`` });
  return issues.length === before ? o : undefined;
}

export function stringAt(
  value: unknown,
  path: string,
  issues: Issue[],
  pattern?: RegExp,
  form?: string,
): string | undefined {
  if (typeof value !== 'string' || (pattern && !pattern.test(value))) {
    issues.push({ path, message: `Expected ${form ?? 'a string'}, got ${describe(value)}` });
    return undefined;
  }
  return value;
}

const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;

/** A concrete value of a declared type (a witness's or a sample's), in range: integers as JSON integers or decimal strings. */
export function valueAt(value: unknown, type: ValueType, path: string, issues: Issue[]): Value | undefined {
  if (type === 'bool') {
    if (typeof value === 'boolean') return value;
    issues.push({ path, message: `Expected true or false (type bool), got ${describe(value)}` });
    return undefined;
  }
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && INTEGER_TEXT.test(value)) n = BigInt(value);
  if (n === undefined) {
    issues.push({
      path,
      message: `Expected an integer of type ${type} (a JSON integer, or a decimal string beyond ±2^53), got ${describe(value)}`,
    });
    return undefined;
  }
  const [lo, hi] = rangeOf(type as IntType);
  if (n < lo || n > hi) {
    issues.push({ path, message: `${n} is not a value of type ${type} (${lo} to ${hi})` });
    return undefined;
  }
  return n;
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
