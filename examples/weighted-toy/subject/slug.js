/**
 * slug(s): a URL slug for a title. Lowercases s, trims it, and replaces each run of whitespace
 * with a single '-'. The property the acceptance documents certify (requirement S-1): the result
 * never contains an uppercase ASCII letter.
 */
export function slug(s) {
  return s.trim().toLowerCase().replace(/\s+/g, '-');
}
