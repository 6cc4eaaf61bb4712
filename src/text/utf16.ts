/**
 * UTF-16 well-formedness of JavaScript strings: a lone surrogate is no Unicode scalar value, so JSON
 * texts (json-text.ts) and model requests (rules/compare/lib/validate.ts) reject it.
 */
/** True when `s` holds a UTF-16 surrogate that is not part of a pair (not a Unicode scalar value). */
export function hasLoneSurrogate(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = k + 1 < s.length ? s.charCodeAt(k + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) k++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}
