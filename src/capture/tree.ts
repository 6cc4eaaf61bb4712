/** Tree digests: one identity over sorted `(path, mode, sha256)` entries. */
import { jsonId } from '../hash/index.js';

export interface TreeEntry {
  path: string;
  mode: string;
  sha256: string;
}

/** Entries must be unique by path; they are sorted here so callers' order never matters. */
export function treeDigest(entries: readonly TreeEntry[]): string {
  const rows = entries.map((e) => [e.path, e.mode, e.sha256]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  return jsonId({ tree: 'vkit.tree/1', entries: rows });
}
