/**
 * The one ordering of the model comparison: tokens compare as sequences of Unicode code points, with
 * no normalisation and no locale. JavaScript's `<` and `Array.prototype.sort()` compare UTF-16 code
 * units instead, which puts U+10000..U+10FFFF (two surrogate units, 0xD800..0xDFFF) before
 * U+E000..U+FFFF; everything here sorts through `byCodePoint` so that never happens.
 */

/**
 * Compares two strings by Unicode code point. At the first differing UTF-16 unit the two orders agree
 * unless exactly one side is a surrogate: then that side encodes a code point above U+FFFF, which is
 * greater than any code point a single unit can hold. (Lone surrogates never get this far: validation
 * rejects them.)
 */
export function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a.charCodeAt(k);
    const y = b.charCodeAt(k);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Units from U+D800 up: the only ones whose UTF-16 order can disagree with code-point order. */
const HIGH_UNITS = /[\uD800-\uFFFF]/;

/**
 * A string whose UTF-16 order is `s`'s code-point order: units U+E000..U+FFFF move down to
 * U+D800..U+F7FF and surrogates move up to U+F800..U+FFFF, so a surrogate (part of a code point above
 * U+FFFF) compares above every BMP unit, as its code point does. Strings without such units are their
 * own key. Used only to sort many strings with the engine's native comparison; the results agree with
 * `byCodePoint` (tested).
 */
export function codePointKey(s: string): string {
  if (!HIGH_UNITS.test(s)) return s;
  let out = '';
  for (let k = 0; k < s.length; k++) {
    const u = s.charCodeAt(k);
    out += String.fromCharCode(u >= 0xe000 ? u - 0x800 : u >= 0xd800 ? u + 0x2000 : u);
  }
  return out;
}

/**
 * Sorts `values` in place by code point (the order of `byCodePoint`, at the speed of the engine's own
 * string sort: `Array.prototype.sort()` without a comparator compares UTF-16 units, which is
 * code-point order for strings without units from U+D800 up).
 */
export function sortByCodePoint(values: string[]): string[] {
  if (!values.some((v) => HIGH_UNITS.test(v))) return values.sort();
  const keyed = values
    .map((v) => [codePointKey(v), v] as const)
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  keyed.forEach(([, v], k) => (values[k] = v));
  return values;
}

/** The distinct strings of `values`, sorted by code point. */
export function uniqueSorted(values: readonly string[]): string[] {
  if (values.length < 2) return [...values];
  return sortByCodePoint([...new Set(values)]);
}
