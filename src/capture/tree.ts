/**
 * Tree digests: one identity over sorted `(path, mode, sha256)` entries, hashed as a stream of
 * `mode sha256 path NUL` records. Mode and digest have fixed shapes and a path never holds NUL, so
 * the encoding is unambiguous; streaming it avoids building canonical JSON for every capture.
 */
import { createHash } from 'node:crypto';

export interface TreeEntry {
  path: string;
  mode: string;
  sha256: string;
}

/** Entries must be unique by path; they are sorted here so callers' order never matters. */
export function treeDigest(entries: readonly TreeEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const h = createHash('sha256').update('vkit.tree/1\n');
  for (const e of sorted) h.update(`${e.mode} ${e.sha256} ${e.path}\0`);
  return `sha256:${h.digest('hex')}`;
}
