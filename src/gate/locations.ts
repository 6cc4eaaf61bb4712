/**
 * Where an item is declared, for reports that point at a file and line (SARIF's `locations`): the
 * line of the config entry whose id is the item's. Pure: the config's text is given.
 */

/** The 1-based line of each item's entry in `text`, for the items whose id is found there. */
export function entryLines(text: string, itemIds: readonly string[]): Record<string, number> {
  const lines = text.split('\n');
  const found: Record<string, number> = {};
  for (const itemId of itemIds) {
    const name = itemId.slice(itemId.indexOf(':') + 1);
    if (name === '') continue;
    const quoted = new RegExp(`(['"\`])${escapeRegExp(name)}\\1`);
    const asId = new RegExp(`\\bid["'\`]?\\s*:\\s*(['"\`])${escapeRegExp(name)}\\1`);
    // The entry's `id: '<name>'` first; else the first place the name is written as a string.
    const at = lines.findIndex((l) => asId.test(l));
    const loose = at === -1 ? lines.findIndex((l) => quoted.test(l)) : at;
    if (loose !== -1) found[itemId] = loose + 1;
  }
  return found;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
