/**
 * Formal captures: exactly the files a component's `inputs` select, as RAW bytes (no CRLF
 * normalisation: a proof is about the bytes the checker reads), from the working tree (provisional:
 * nothing stops the next edit) or from a git commit (immutable: modes and bytes come from the object
 * database, so a dirty checkout cannot change the subject). Secret-looking paths, symlinks,
 * submodules and special files are refused, naming the path, and so is a glob that selects nothing:
 * vkit cannot infer a dependency closure, so every declared input must be there.
 *
 * A working tree outside git (the protected gate's candidate copy, or any plain directory) is
 * listed by walking it, skipping only the root's `.git` and `.vkit` as the workspace listing does.
 * The protected gate marks its copy with `.vkit/protected-candidate.json` (written after the copy,
 * so the candidate cannot supply it): the capture then records which candidate the bytes are, a
 * commit vkit copied itself (not provisional) or a working tree (provisional).
 */
import { walkTree } from '../capture/walk.js';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { modeOf } from '../capture/files.js';
import { captureRefused } from '../capture/source.js';
import { resolveCommit, isGitWorkTree, listGitFiles, lsTree, readBlobs } from '../capture/git.js';
import { compileGlob, matchGlobs } from '../text/glob.js';
import { isSecretPath } from '../capture/secrets.js';
import { treeDigest } from '../capture/tree.js';
import { invalid, type InvalidInputError } from '../errors.js';
import { sha256Id } from '../hash/index.js';

export type FormalSource =
  | { kind: 'working-tree' }
  | { kind: 'git-commit'; commit: string }
  /**
   * The protected gate's candidate copy (a plain directory): `of: 'git-commit'` is the commit's
   * bytes written by vkit from the object database (not provisional); `of: 'working-tree'` is a copy
   * of a checkout (provisional), `commit` then naming the HEAD it sat on, if any.
   */
  | { kind: 'protected-copy'; of: 'git-commit'; commit: string }
  | { kind: 'protected-copy'; of: 'working-tree'; commit: string | null };

/** Where the protected gate records which candidate its copy holds; never part of any capture. */
export const PROTECTED_MARKER = '.vkit/protected-candidate.json';
const MARKER_SCHEMA = 'vkit.protected-candidate/1';

/**
 * Marks a protected-gate candidate copy. Whatever the candidate put under `.vkit` is removed first:
 * only vkit may say what the copy is.
 */
export function markProtectedCopy(dir: string, source: Extract<FormalSource, { kind: 'protected-copy' }>): void {
  rmSync(join(dir, '.vkit'), { recursive: true, force: true });
  mkdirSync(join(dir, '.vkit'));
  writeFileSync(
    join(dir, PROTECTED_MARKER),
    `${JSON.stringify({ schema: MARKER_SCHEMA, of: source.of, commit: source.commit })}\n`,
  );
}

/** The marker's source, undefined when there is none; a malformed marker is refused (never guessed). */
function readProtectedMarker(root: string): Extract<FormalSource, { kind: 'protected-copy' }> | undefined {
  const path = join(root, PROTECTED_MARKER);
  if (!existsSync(path)) return undefined;
  let m: { schema?: unknown; of?: unknown; commit?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (parsed && typeof parsed === 'object') m = parsed as typeof m;
  } catch {
    // refused below
  }
  const commit = typeof m.commit === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(m.commit) ? m.commit : null;
  if (m.schema === MARKER_SCHEMA && m.of === 'git-commit' && commit)
    return { kind: 'protected-copy', of: 'git-commit', commit };
  if (m.schema === MARKER_SCHEMA && m.of === 'working-tree' && (commit || m.commit === null))
    return { kind: 'protected-copy', of: 'working-tree', commit };
  throw refused(PROTECTED_MARKER, 'a malformed protected-candidate marker');
}

export interface FormalCapture {
  source: FormalSource;
  provisional: boolean;
  /** Tree digest over sorted (path, mode, sha256 of raw bytes). */
  digest: string;
  files: Array<{ path: string; mode: string; sha256: string }>;
  /** The captured bytes, by path: materialisation writes these, never re-reads the tree. */
  bytes: Map<string, Buffer>;
}

function refused(path: string, what: string): InvalidInputError {
  return captureRefused(path, what, "Remove it from the component's inputs (formal inputs name regular files only).");
}

/** Matches each positive glob on its own so that one selecting nothing can be named. */
function selectAll(inputs: readonly string[], paths: readonly string[]): string[] {
  const sorted = [...paths].sort();
  for (const g of inputs) {
    const glob = compileGlob(g);
    if (glob.negated) continue;
    if (matchGlobs([glob], sorted).length === 0)
      throw invalid(
        'ERR_CAPTURE_REFUSED',
        `Formal input \`${g}\` selects no file`,
        { path: 'inputs' },
        'Declare only inputs that exist (source, specification, configuration and trusted dependencies).',
      );
  }
  const selected = matchGlobs(inputs.map(compileGlob), sorted);
  for (const p of selected) if (isSecretPath(p)) throw refused(p, 'secret-looking paths');
  return selected;
}

export async function captureFormal(
  root: string,
  inputs: readonly string[],
  source: FormalSource,
): Promise<FormalCapture> {
  return source.kind === 'git-commit'
    ? captureFromCommit(root, inputs, source.commit)
    : captureFromWorkingTree(root, inputs);
}

async function captureFromWorkingTree(root: string, inputs: readonly string[]): Promise<FormalCapture> {
  const files: FormalCapture['files'] = [];
  const bytes = new Map<string, Buffer>();
  let listing: string[];
  let source: FormalSource = { kind: 'working-tree' };
  if (await isGitWorkTree(root)) {
    // git lists neither fifos nor sockets, so a special file under a declared input would otherwise
    // be silently absent from the capture: look for them on disk under each glob's static prefix.
    // A marker inside a git checkout is ignored: only the protected gate's plain copy carries one.
    const special = specialFilesUnder(root, inputs);
    if (special.length) throw refused(special[0]!, 'special files');
    listing = await listGitFiles(root);
  } else {
    source = readProtectedMarker(root) ?? source;
    listing = walkTree(root);
  }
  for (const path of selectAll(inputs, listing)) {
    const abs = join(root, path);
    let st;
    try {
      st = lstatSync(abs, { bigint: true });
    } catch {
      continue; // tracked but deleted in the checkout: not part of the working tree
    }
    if (st.isSymbolicLink()) throw refused(path, 'symlinks');
    if (st.isDirectory()) throw refused(path, 'submodules');
    if (!st.isFile()) throw refused(path, 'special files');
    const data = readFileSync(abs);
    // A file that changed while it was read has no single identity; refuse rather than guess.
    const after = lstatSync(abs, { bigint: true });
    if (after.mtimeNs !== st.mtimeNs || after.size !== st.size || after.ino !== st.ino)
      throw refused(path, 'files changing while captured');
    files.push({ path, mode: modeOf(st), sha256: sha256Id(data) });
    bytes.set(path, data);
  }
  // Only vkit's own copy of a commit is immutable evidence; every other working tree is provisional.
  const provisional = !(source.kind === 'protected-copy' && source.of === 'git-commit');
  return { source, provisional, digest: treeDigest(files), files, bytes };
}

async function captureFromCommit(root: string, inputs: readonly string[], rev: string): Promise<FormalCapture> {
  const commit = await resolveCommit(root, rev);
  if (commit === undefined)
    throw invalid(
      'ERR_CAPTURE_REV',
      `Expected a commit in this repository, got \`${rev}\``,
      { path: 'source.commit' },
      'Pass a full commit id that exists in the repository.',
    );
  const rows = await lsTree(root, commit);
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const selected = selectAll(
    inputs,
    rows.map((r) => r.path),
  );
  for (const p of selected) {
    const r = byPath.get(p)!;
    if (r.type === 'commit') throw refused(p, 'submodules');
    if (r.mode === '120000') throw refused(p, 'symlinks');
    if (r.type !== 'blob') throw refused(p, 'special files');
  }
  const blobs = await readBlobs(
    root,
    selected.map((p) => byPath.get(p)!.oid),
  );
  const files = selected.map((p) => ({
    path: p,
    mode: byPath.get(p)!.mode,
    sha256: sha256Id(blobs.get(byPath.get(p)!.oid)!),
  }));
  const bytes = new Map(selected.map((p) => [p, Buffer.from(blobs.get(byPath.get(p)!.oid)!)]));
  return { source: { kind: 'git-commit', commit }, provisional: false, digest: treeDigest(files), files, bytes };
}

/** Special files (not regular, directory or symlink) that the inputs select, found on disk. */
function specialFilesUnder(root: string, inputs: readonly string[]): string[] {
  const globs = inputs.map(compileGlob);
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (rel: string) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    let entries;
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && (e.name === '.git' || e.name === '.vkit')) continue;
      if (e.isDirectory()) walk(path);
      else if (!e.isFile() && !e.isSymbolicLink()) found.push(path);
    }
  };
  for (const g of globs)
    if (!g.negated)
      walk(
        g.prefix
          .replace(/\/$/, '')
          .split('/')
          .slice(0, g.literal ? -1 : undefined)
          .join('/'),
      );
  return matchGlobs(globs, found.sort());
}

/**
 * Writes the capture into a fresh temp directory the restricted worker (uid 65534) can read:
 * directories 0755, files 0644 (executable bits are not needed to read sources, and the capture's
 * identity keeps the recorded modes). Returns the directory; the caller removes it.
 */
export function materialise(capture: FormalCapture, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'vkit-capture-'));
  chmodSync(dir, 0o755);
  for (const f of capture.files) {
    const abs = join(dir, f.path);
    mkdirDirs(dir, dirname(f.path));
    writeFileSync(abs, capture.bytes.get(f.path)!, { mode: 0o644 });
    chmodSync(abs, 0o644); // the umask may have removed read bits
  }
  return dir;
}

function mkdirDirs(root: string, rel: string): void {
  if (rel === '.' || rel === '') return;
  let at = root;
  for (const part of rel.split('/')) {
    at = join(at, part);
    mkdirSync(at, { recursive: true, mode: 0o755 });
    chmodSync(at, 0o755);
  }
}
