/**
 * Registered-check selectors: the working-tree files a check declares as `inputs`, hashed in text
 * mode (CRLF -> LF for text files only), symlinks as their target strings, secret-looking paths
 * skipped. A literal input path that is secret, or a glob that matches nothing, is a config error,
 * and so is a glob that selects what vkit will not capture (secret-looking or git-ignored files,
 * git-ignored directories it can reach; links and special files are the capture's to find) unless
 * the same inputs exclude it with a `!` glob: the check would read bytes its key does not see.
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, posix, relative, sep } from 'node:path';
import type { Issue } from '../errors.js';
import { capturePath, SpecialFileError, type FileStateCache, type HashCounter, type HashMode } from './files.js';
import { compileGlob, coversBelow, escapeGlob, type Glob, matchGlobs, pathsUnder, reachesBelow } from '../text/glob.js';
import { isSecretPath } from './secrets.js';
import { treeDigest } from './tree.js';

interface SelectorFile {
  path: string;
  mode: string;
  sha256: string;
  /** Text mode only, when CRLF normalisation changed the bytes: the raw bytes' digest. */
  raw?: string;
}

/** A selected path the capture will not stand for: a special file, or a link whose target it does not hold. */
export interface Refused {
  path: string;
  kind: 'special' | 'link';
  /** Why, in a few words: `a fifo`, `a symbolic link to ../x (outside the root)`. */
  why: string;
  /** The exclusion that leaves it out explicitly. */
  exclude: string;
}

export interface SelectorCapture {
  digest: string;
  files: SelectorFile[];
  /** Selected paths vkit did not capture as the bytes they stand for (see `captureSelector`). */
  refused: Refused[];
}

/** Selections already made against one file list (validation and capture ask the same question). */
const selections = new WeakMap<readonly string[], Map<string, { all: string[]; kept: string[] }>>();

function selection(globs: readonly string[], sortedFiles: readonly string[]): { all: string[]; kept: string[] } {
  let memo = selections.get(sortedFiles);
  if (!memo) selections.set(sortedFiles, (memo = new Map()));
  const key = globs.join('\0');
  let found = memo.get(key);
  if (!found) {
    const all = matchGlobs(globs.map(compileGlob), sortedFiles);
    found = { all, kept: all.filter((p) => !isSecretPath(p)) };
    memo.set(key, found);
  }
  return found;
}

/** Paths (root-relative, sorted) a selector names in the current file list. */
export function selectPaths(globs: readonly string[], sortedFiles: readonly string[]): string[] {
  return selection(globs, sortedFiles).kept;
}

/**
 * Problems with one node's `inputs` against the current file list: empty globs, literal secrets, and,
 * when `ignored` is given (git's ignored untracked paths, directories with a trailing `/`, as
 * `listIgnored` gives them; empty without git), globs selecting what vkit will not capture.
 */
export function selectorIssues(
  globs: readonly string[],
  sortedFiles: readonly string[],
  path: string,
  file?: string,
  ignored?: readonly string[],
): Issue[] {
  const issues: Issue[] = [];
  const uncaptured = ignored ? uncapturedByGlob(globs, sortedFiles, ignored) : new Map<number, never[]>();
  globs.forEach((source, j) => {
    const g = compileGlob(source);
    if (g.negated) return;
    if (g.literal && isSecretPath(g.prefix)) {
      issues.push({
        file,
        path: `${path}[${j}]`,
        message: `\`${source}\` is a secret-looking path; vkit never hashes or retains it. Remove it from inputs`,
      });
      return;
    }
    const refused = uncaptured.get(j);
    if (refused) {
      issues.push({ file, path: `${path}[${j}]`, message: uncapturedMessage(source, refused) });
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

/** How to fix any `ERR_CONFIG_INPUTS` (the workspace's listing checks and the engine's capture checks). */
export const INPUTS_HINT =
  'Fix the globs, or create the files they should match; exclude what vkit will not capture with a `!` glob in the same inputs (`!path`, or `!dir/**` for a directory).';

/** Most uncaptured paths one message names; the rest are counted. */
const SHOWN = 5;

/**
 * The config error for one glob that selects what vkit will not capture: each path and why, at most
 * five and how many more, and the exclusions that say so explicitly.
 */
export function uncapturedMessage(
  source: string,
  items: ReadonlyArray<{ path: string; why: string; exclude: string }>,
): string {
  const shown = items.slice(0, SHOWN);
  const more = items.length > SHOWN ? `, and ${items.length - SHOWN} more` : '';
  const excludes = [...new Set(shown.map((i) => `\`${i.exclude}\``))].join(', ');
  return (
    `\`${source}\` selects what vkit will not capture, so a check reading it would depend on bytes its key does not see: ` +
    `${shown.map((i) => `\`${i.path}\` (${i.why})`).join(', ')}${more}. ` +
    `Exclude ${items.length === 1 ? 'it' : 'each'} explicitly in the same inputs (${excludes}${more ? ', …' : ''})` +
    (items.some((i) => i.why.startsWith('git-ignored'))
      ? '; or stop ignoring what the check reads, so vkit captures it'
      : '') +
    (items.some((i) => i.why.startsWith('a symbolic link'))
      ? "; or select a link's target (inside the root) in the same inputs"
      : '')
  );
}

interface IgnoredSplit {
  files: string[];
  /** Without their trailing `/`, sorted. */
  dirs: string[];
  dirSet: Set<string>;
}

/** Ignored entries split once per listing: files, and directories without their trailing `/`. */
const ignoredSplits = new WeakMap<readonly string[], IgnoredSplit>();

function splitIgnored(ignored: readonly string[]): IgnoredSplit {
  let split = ignoredSplits.get(ignored);
  if (!split) {
    const dirs = ignored
      .filter((p) => p.endsWith('/'))
      .map((p) => p.slice(0, -1))
      .sort();
    split = { files: ignored.filter((p) => !p.endsWith('/')).sort(), dirs, dirSet: new Set(dirs) };
    ignoredSplits.set(ignored, split);
  }
  return split;
}

/**
 * The ignored directories a positive glob could reach below (`reachesBelow`): those under its
 * static prefix and the prefix's own ancestors. Asking every glob about every directory cost
 * checks x directories: a thousand checks in a tree with an ignored directory per package (a
 * `node_modules/`, a tool's cache) took ~250 ms.
 */
function reachableIgnoredDirs(compiled: readonly Glob[], { dirs, dirSet }: IgnoredSplit): Set<string> {
  const candidates = new Set<string>();
  for (const g of compiled) {
    if (g.negated) continue;
    for (const dir of pathsUnder(dirs, g.prefix)) candidates.add(dir);
    for (let i = g.prefix.indexOf('/'); i >= 0; i = g.prefix.indexOf('/', i + 1)) {
      const ancestor = g.prefix.slice(0, i);
      if (dirSet.has(ancestor)) candidates.add(ancestor);
    }
  }
  return candidates;
}

/** Everything `selectorIssues` would refuse as uncaptured for these globs, with its exclusion (what `vkit init` writes). */
export function uncapturedPaths(
  globs: readonly string[],
  sortedFiles: readonly string[],
  ignored: readonly string[],
): Array<{ path: string; why: string; exclude: string }> {
  return [...uncapturedByGlob(globs, sortedFiles, ignored).values()]
    .flat()
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Index (into `globs`) of the first positive glob selecting `path`, or undefined. */
export function globIndexOf(globs: readonly string[], path: string): number | undefined {
  for (let j = 0; j < globs.length; j++) {
    const g = compileGlob(globs[j]!);
    if (!g.negated && path.startsWith(g.prefix) && (g.below || g.re.test(path))) return j;
  }
  return undefined;
}

/**
 * What the globs select that vkit will not capture, by the index of the first positive glob reaching
 * it: secret-looking listed files, git-ignored files, and git-ignored directories a glob can reach
 * into (git does not look inside them, so neither can vkit: whatever they hold, now or later, a glob
 * reaching them could select it) unless an exclusion covers the whole directory.
 */
function uncapturedByGlob(
  globs: readonly string[],
  sortedFiles: readonly string[],
  ignored: readonly string[],
): Map<number, Array<{ path: string; why: string; exclude: string }>> {
  const out = new Map<number, Array<{ path: string; why: string; exclude: string }>>();
  const add = (j: number | undefined, item: { path: string; why: string; exclude: string }) => {
    if (j === undefined) return;
    const list = out.get(j);
    if (list) list.push(item);
    else out.set(j, [item]);
  };
  for (const p of selection(globs, sortedFiles).all)
    if (isSecretPath(p))
      add(globIndexOf(globs, p), {
        path: p,
        why: 'secret-looking: vkit never reads one',
        exclude: `!${escapeGlob(p)}`,
      });
  if (ignored.length) {
    const split = splitIgnored(ignored);
    const compiled = globs.map(compileGlob);
    for (const p of matchGlobs(compiled, split.files))
      add(globIndexOf(globs, p), { path: p, why: 'git-ignored', exclude: `!${escapeGlob(p)}` });
    const negated = compiled.filter((g) => g.negated);
    for (const dir of reachableIgnoredDirs(compiled, split)) {
      if (negated.some((n) => coversBelow(n, dir))) continue;
      const j = compiled.findIndex((g) => !g.negated && reachesBelow(g, dir));
      if (j >= 0) add(j, { path: `${dir}/`, why: 'git-ignored directory', exclude: `!${escapeGlob(dir)}/**` });
    }
  }
  for (const list of out.values()) list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/** What `captureSelector` captures, and how. */
export interface SelectorOptions {
  /** The checkout the paths are relative to. */
  root: string;
  globs: readonly string[];
  /** The checkout's file listing, sorted. */
  files: readonly string[];
  /** Recorded file states to reuse (and record into); none hashes every file. */
  cache?: FileStateCache;
  now: () => bigint;
  counter?: HashCounter;
  /** `text` by default; `raw` keeps CRLF bytes distinct (acceptance digests are over raw bytes, so its keys must be too). */
  hashMode?: HashMode;
}

/**
 * Selected paths the capture cannot stand for are `refused`, for the caller to judge: special files
 * (not captured at all), and symbolic links (captured as their target strings, never followed)
 * whose target is not itself a path this capture holds: a check reading through such a link reads
 * bytes the key does not see. A link to a directory is refused the same way (a directory is not a
 * captured path; select its files and exclude the link).
 */
export function captureSelector({
  root,
  globs,
  files: sortedFiles,
  cache,
  now,
  counter,
  hashMode = 'text',
}: SelectorOptions): SelectorCapture {
  const files: SelectorFile[] = [];
  const refused: Refused[] = [];
  const links: string[] = [];
  // Paths from the listing are already normal and relative: plain concatenation is `join` without its cost.
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const path of selectPaths(globs, sortedFiles)) {
    let hashed;
    try {
      hashed = capturePath(prefix + path, hashMode, { cache, now, counter });
    } catch (error) {
      if (!(error instanceof SpecialFileError)) throw error;
      refused.push({
        path,
        kind: 'special',
        why: specialKind(prefix + path),
        exclude: path.endsWith('/') ? `!${escapeGlob(path)}**` : `!${escapeGlob(path)}`,
      });
      continue;
    }
    if (hashed) {
      files.push({ path, ...hashed });
      if (hashed.mode === '120000') links.push(path);
    }
    // A listed name that is not valid UTF-8 reaches us with U+FFFD in place of its bytes and can never
    // be opened by that name: dropping it would leave bytes the check reads out of its key.
    else if (path.includes('\uFFFD')) throw new UndecodablePathError(path);
  }
  if (links.length) {
    const held = new Set(files.map((f) => f.path));
    for (const path of links) {
      const target = linkTarget(root, prefix, path);
      if (target.inside !== undefined && held.has(target.inside)) continue;
      refused.push({
        path,
        kind: 'link',
        why: `a symbolic link to ${target.shown}, ${target.inside === undefined ? 'outside the root' : 'which these inputs do not capture'}`,
        exclude: `!${escapeGlob(path)}`,
      });
    }
    refused.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return { digest: treeDigest(files), files, refused };
}

/**
 * Where a link points, read lexically (the way a reader's open resolves it, as long as no directory
 * on the way is itself a link: git never lists paths through a linked directory, so such a target is
 * not a captured path either): the root-relative path, or undefined outside the root.
 */
function linkTarget(root: string, prefix: string, path: string): { shown: string; inside?: string } {
  let target: string;
  try {
    target = readlinkSync(prefix + path);
  } catch {
    return { shown: '(unreadable)' };
  }
  const shown = `\`${target}\``;
  let rel: string;
  if (isAbsolute(target)) {
    rel = relative(root, target);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      try {
        rel = relative(realpathSync(root), target);
      } catch {
        return { shown };
      }
    }
    rel = rel.split(sep).join('/');
  } else rel = posix.normalize(posix.join(posix.dirname(path), target));
  if (rel === '' || rel === '.' || rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) return { shown };
  return { shown, inside: rel };
}

/** What a special file is, for the message (the capture saw it was not a regular file or a link). */
function specialKind(abs: string): string {
  let st: Stats;
  try {
    st = lstatSync(abs);
  } catch {
    return 'not a regular file or symlink';
  }
  if (st.isFIFO()) return 'a fifo';
  if (st.isSocket()) return 'a socket';
  if (st.isBlockDevice() || st.isCharacterDevice()) return 'a device';
  if (st.isDirectory()) return 'a directory: a submodule or nested repository';
  return 'not a regular file or symlink';
}

/** A selected path whose name is not valid UTF-8: vkit cannot open it by name, so it cannot capture it. */
export class UndecodablePathError extends Error {
  constructor(readonly path: string) {
    super(`${path} has a name that is not valid UTF-8`);
  }
}
