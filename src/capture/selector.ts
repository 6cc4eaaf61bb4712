/**
 * Registered-check selectors: the working-tree files a check declares as `inputs`, hashed in text
 * mode (CRLF -> LF for text files only), symlinks as their target strings, secret-looking paths
 * skipped. A literal input path that is secret, or a glob that matches nothing, is a config error.
 */
import { sep } from 'node:path';
import type { Issue } from '../errors.js';
import { hashPath, SpecialFileError, type FileStateCache, type Fingerprint, type HashCounter, type HashMode } from './files.js';
import { compileGlob, matchGlobs } from './glob.js';
import { isSecretPath } from './secrets.js';
import { treeDigest } from './tree.js';

export interface SelectorFile {
  path: string;
  mode: string;
  sha256: string;
  fingerprint: Fingerprint;
}

export interface SelectorCapture {
  digest: string;
  files: SelectorFile[];
}

/** Selections already made against one file list (validation and capture ask the same question). */
const selections = new WeakMap<readonly string[], Map<string, string[]>>();

/** Paths (root-relative, sorted) a selector names in the current file list. */
export function selectPaths(globs: readonly string[], sortedFiles: readonly string[]): string[] {
  let memo = selections.get(sortedFiles);
  if (!memo) selections.set(sortedFiles, (memo = new Map()));
  const key = globs.join('\0');
  let paths = memo.get(key);
  if (!paths) {
    paths = matchGlobs(globs.map(compileGlob), sortedFiles).filter((p) => !isSecretPath(p));
    memo.set(key, paths);
  }
  return paths;
}

/** Problems with one node's `inputs` against the current file list: empty globs, literal secrets. */
export function selectorIssues(globs: readonly string[], sortedFiles: readonly string[], path: string, file?: string): Issue[] {
  const issues: Issue[] = [];
  globs.forEach((source, j) => {
    const g = compileGlob(source);
    if (g.negated) return;
    if (g.literal && isSecretPath(g.prefix)) {
      issues.push({ file, path: `${path}[${j}]`, message: `\`${source}\` is a secret-looking path; vkit never hashes or retains it. Remove it from inputs` });
      return;
    }
    if (selectPaths([source], sortedFiles).length === 0) {
      const dir = g.literal && selectPaths([`${g.prefix.replace(/\/$/, '')}/**`], sortedFiles).length > 0;
      const message = dir
        ? `\`${source}\` is a directory; inputs name files: write \`${g.prefix.replace(/\/$/, '')}/**\``
        : `Expected \`${source}\` to match at least one file (tracked or untracked, not ignored, not secret-looking), got none`;
      issues.push({ file, path: `${path}[${j}]`, message });
    }
  });
  return issues;
}

/** `hashMode` raw keeps CRLF bytes distinct: acceptance digests are over raw bytes, so its keys must be too. */
export function captureSelector(root: string, globs: readonly string[], sortedFiles: readonly string[], cache: FileStateCache | undefined, now: () => bigint, counter?: HashCounter, hashMode: HashMode = 'text'): SelectorCapture {
  const files: SelectorFile[] = [];
  // Paths from the listing are already normal and relative: plain concatenation is `join` without its cost.
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const path of selectPaths(globs, sortedFiles)) {
    let hashed;
    try {
      hashed = hashPath(prefix + path, hashMode, cache, now, counter);
    } catch (error) {
      if (error instanceof SpecialFileError) throw new SpecialFileError(path);
      throw error;
    }
    if (hashed) files.push({ path, ...hashed });
    // A listed name that is not valid UTF-8 reaches us with U+FFFD in place of its bytes and can never
    // be opened by that name: dropping it would leave bytes the check reads out of its key.
    else if (path.includes('\uFFFD')) throw new UndecodablePathError(path);
  }
  return { digest: treeDigest(files), files };
}

/** A selected path whose name is not valid UTF-8: vkit cannot open it by name, so it cannot capture it. */
export class UndecodablePathError extends Error {
  constructor(readonly path: string) {
    super(`${path} has a name that is not valid UTF-8`);
  }
}
