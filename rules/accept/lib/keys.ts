/**
 * The keys and value types every acceptance table may carry. A key vkit does not understand might
 * carry a promise vkit does not check (`stale_afer = "P30D"` silently dropping a 180-day limit),
 * so an unknown key is an ERROR naming the key, its path and line, with the nearest known key when
 * one is close enough to be a typo. A TOML date or time where a string is required is an ERROR too:
 * the parser hands it over as text, so without this check `id = 1979-05-27` would read as an id.
 */
import type { Findings } from './report.js';
import { nearestName } from '../../../src/text/suggest.js';
import { pathText, type Doc, type FieldPath, type Table } from './toml.js';

/** `unknown key 'stale_afer': did you mean 'stale_after'? (allowed: ...)`: the one wording of every table. */
export function unknownKeyMessage(where: string, key: string, allowed: readonly string[]): string {
  return `${where}: unknown key '${key}'${didYouMean(key, allowed)} (allowed: ${allowed.join(', ')})`;
}

/** `: did you mean 'stale_after'?` when `key` looks like a typo of an allowed key, else nothing. */
export function didYouMean(key: string, allowed: readonly string[]): string {
  const near = nearestKey(key, allowed);
  return near ? `: did you mean '${near}'?` : '';
}

/** Reports every key of `t` not in `allowed`, at `path` + the key. */
export function unknownKeys(f: Findings, t: Table, path: FieldPath, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(t)) if (!allowed.includes(k)) f.error(unknownKeyMessage(where, k, allowed), [...path, k]);
}

/** The known key a typo most likely meant (`stale_afer` -> `stale_after`), or undefined. */
export const nearestKey = nearestName;

/**
 * Every TOML date or time in `doc` outside the fields that take one: an ERROR naming the field,
 * since every other field wants a string, a number or a boolean. `dateFields` are the field paths
 * without array indices (`condition.due`).
 */
export function datesOutside(doc: Doc, f: Findings, dateFields: readonly string[]): void {
  for (const path of doc.datePaths) {
    if (dateFields.includes(path.filter((p) => typeof p === 'string').join('.'))) continue;
    f.error(
      `${pathText(path)} must be a string, not the TOML date/time ${String(valueAt(doc.data, path))}: quote it ("...")`,
      path,
    );
  }
}

function valueAt(data: Table, path: FieldPath): unknown {
  let v: unknown = data;
  for (const p of path) v = (v as Record<string | number, unknown> | undefined)?.[p];
  return v;
}
