/**
 * Whole-source captures: the working tree (tracked + untracked non-ignored, raw bytes; provisional)
 * and a git commit (ids, modes and bytes read from the object database; immutable). With
 * `formal: true` they refuse secret-looking paths, symlinks, submodules and special files, naming
 * the path, as formal captures must.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { type InvalidInputError, invalid } from '../errors.js';
import { sha256Id } from '../hash/index.js';
import { hashPath, SpecialFileError, type FileStateCache } from './files.js';
import { resolveCommit, git, listGitFiles, lsTree, readBlobs } from './git.js';
import { isSecretPath } from './secrets.js';
import { treeDigest, type TreeEntry } from './tree.js';

export interface SourceCapture {
  kind: 'working_tree' | 'git_commit';
  /** Working-tree captures are provisional: nothing stops the next edit. */
  provisional: boolean;
  commit?: string;
  tree?: string;
  digest: string;
  entries: Array<TreeEntry & { oid?: string }>;
}

interface CaptureOptions {
  formal?: boolean;
  cache?: FileStateCache;
  now?: () => bigint;
}

/** The error a formal capture gives for a path it will not take; `fix` says what to change. */
export function captureRefused(path: string, what: string, fix: string): InvalidInputError {
  return invalid('ERR_CAPTURE_REFUSED', `Formal captures refuse ${what}: \`${path}\``, { file: path }, fix);
}

function refuse(path: string, what: string): never {
  throw captureRefused(path, what, 'Remove it from the source, or exclude it with .gitignore.');
}

export async function captureWorkingTree(root: string, opts: CaptureOptions = {}): Promise<SourceCapture> {
  // Recording times are compared with file mtimes (racy-clean rule), so they must be wall-clock
  // nanoseconds; a monotonic clock would make every entry look racy and defeat the cache.
  const now = opts.now ?? (() => BigInt(Date.now()) * 1_000_000n);
  const entries: TreeEntry[] = [];
  for (const path of (await listGitFiles(root)).sort()) {
    const abs = join(root, path);
    if (opts.formal && isSecretPath(path)) refuse(path, 'secret-looking paths');
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      continue; // tracked but deleted in the checkout: not part of the working tree
    }
    if (st.isDirectory()) {
      if (opts.formal) refuse(path, 'submodules');
      continue;
    }
    if (opts.formal && st.isSymbolicLink()) refuse(path, 'symlinks');
    let hashed;
    try {
      hashed = hashPath(abs, 'raw', { cache: opts.cache, now });
    } catch (error) {
      if (error instanceof SpecialFileError) refuse(path, 'special files');
      throw error;
    }
    if (hashed) entries.push({ path, mode: hashed.mode, sha256: hashed.sha256 });
  }
  return { kind: 'working_tree', provisional: true, digest: treeDigest(entries), entries };
}

export async function captureCommit(root: string, rev: string, opts: CaptureOptions = {}): Promise<SourceCapture> {
  const commit = await resolveCommit(root, rev);
  if (commit === undefined)
    throw invalid(
      'ERR_CAPTURE_REV',
      `Expected a commit, got \`${rev}\``,
      {},
      'Pass a commit id, branch or tag that exists in this repository.',
    );
  const tree = (await git(root, ['rev-parse', `${commit}^{tree}`])).trim();
  const rows = await lsTree(root, commit);
  for (const r of rows) {
    if (!opts.formal) continue;
    if (isSecretPath(r.path)) refuse(r.path, 'secret-looking paths');
    if (r.type === 'commit') refuse(r.path, 'submodules');
    if (r.mode === '120000') refuse(r.path, 'symlinks');
  }
  const blobs = rows.filter((r) => r.type === 'blob');
  const bytes = await readBlobs(
    root,
    blobs.map((r) => r.oid),
  );
  const entries = blobs.map((r) => ({ path: r.path, mode: r.mode, oid: r.oid, sha256: sha256Id(bytes.get(r.oid)!) }));
  return { kind: 'git_commit', provisional: false, commit, tree, digest: treeDigest(entries), entries };
}
