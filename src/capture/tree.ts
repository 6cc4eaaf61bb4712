/**
 * Tree digests: one identity over sorted `(path, mode, sha256)` entries, hashed as a stream of
 * `mode sha256 path NUL` records. Mode and digest have fixed shapes and a path never holds NUL, so
 * the encoding is unambiguous; hashing it avoids building canonical JSON for every capture.
 */
import { hash } from 'node:crypto';

export interface TreeEntry {
  path: string;
  mode: string;
  sha256: string;
}

/** Entries must be unique by path; they are sorted here so callers' order never matters. */
export function treeDigest(entries: readonly TreeEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // One text and one digest of it: a capture of ten files was a dozen calls into the hash otherwise.
  let text = 'vkit.tree/1\n';
  for (const e of sorted) text += `${e.mode} ${e.sha256} ${e.path}\0`;
  return `sha256:${hash('sha256', text, 'hex')}`;
}

/**
 * A capture as a receipt records it. A text-mode one (CRLF -> LF) also gets, when the raw digests of
 * its files are known (`raw`: path -> raw digest, for the files whose normalisation changed them),
 * `raw_sha256` beside each such file and `raw_digest`, the tree digest over the raw bytes: what the
 * check actually read, so a later hit can tell that only line endings differ.
 */
export function recordedCapture(
  capture: { digest: string; files: readonly TreeEntry[]; hash?: 'raw' },
  raw: ReadonlyMap<string, string> | undefined,
): { digest: string; files: Array<TreeEntry & { raw_sha256?: string }>; raw_digest?: string } {
  const files = capture.files.map(({ path, mode, sha256 }) => ({ path, mode, sha256 }));
  if (capture.hash === 'raw' || !raw) return { digest: capture.digest, files };
  const withRaw: Array<TreeEntry & { raw_sha256?: string }> = files.map((f) =>
    raw.has(f.path) ? { ...f, raw_sha256: raw.get(f.path)! } : f,
  );
  return {
    digest: capture.digest,
    files: withRaw,
    raw_digest: treeDigest(withRaw.map((f) => ({ path: f.path, mode: f.mode, sha256: f.raw_sha256 ?? f.sha256 }))),
  };
}
