/**
 * Did-you-mean: the known name a typo most likely meant. One rule for every message that offers
 * one (commands, flags, config keys, check ids, acceptance keys, MCP tools and arguments), so a
 * suggestion is never a guess: the nearest name by edit distance, only when at most a third of the
 * longer name differs and no other name is as near.
 */

/** The known name `word` most likely meant, or undefined (too far, or two equally near). */
export function nearestName(word: string, names: Iterable<string>): string | undefined {
  if (word.length > 64) return undefined; // no typo of a known name is that long; keeps the distance cheap
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const candidate of new Set(names)) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [candidate, d, false];
    else if (d === bestDistance) tie = true;
  }
  const limit = Math.max(1, Math.floor(Math.max(word.length, best?.length ?? 0) / 3));
  return best !== undefined && !tie && bestDistance <= limit ? best : undefined;
}

/** ` (did you mean `x`?)` for a near name, else nothing: appended to a message naming `word`. */
export function didYouMean(word: string, names: Iterable<string>): string {
  const near = nearestName(word, names);
  return near === undefined ? '' : ` (did you mean \`${near}\`?)`;
}

/** Levenshtein distance with transpositions counted as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  return rows[a.length]![b.length]!;
}
