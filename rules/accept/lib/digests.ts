/**
 * Where two digests of one domain differ, for messages. A fixed-length prefix says nothing when a
 * digest was edited late (a hand-changed last digit prints two identical prefixes), so the text
 * names the first differing hex digit and shows a few digits around it.
 */

/** Hex digits of context on each side of the first difference. */
const CONTEXT = 4;

const hexOf = (digest: string) => digest.slice(digest.lastIndexOf(':') + 1);

/**
 * `first differ at hex digit 118 of 128: …9c0d a3f1… vs …9c0d b41c…`: the common digits before the
 * first difference, a space, then the digits from it on. Both digests carry the same domain.
 */
export function digestsDiffer(a: string, b: string): string {
  const x = hexOf(a);
  const y = hexOf(b);
  let at = 0;
  while (at < x.length && x[at] === y[at]) at++;
  const around = (hex: string) => {
    const start = Math.max(0, at - CONTEXT);
    const end = Math.min(hex.length, at + CONTEXT);
    const common = hex.slice(start, at);
    return `${start > 0 ? '…' : ''}${common}${common ? ' ' : ''}${hex.slice(at, end)}${end < hex.length ? '…' : ''}`;
  };
  return `first differ at hex digit ${at + 1} of ${x.length}: ${around(x)} vs ${around(y)}`;
}
