/**
 * `--tree COMMIT=DIR`: where the bytes of a subject commit can be read, and the check that they
 * are that commit's bytes. Digests are always computed over DIR's files; when DIR's repository
 * has the commit, every file under the subject root must also equal the commit's blob (same
 * path set, same bytes, compared by git blob id), and each difference names its file.
 *
 * When DIR cannot show the commit (its repository lacks it, or DIR is in no git repository),
 * nothing ties DIR's bytes to the commit except the digests the documents record. Those pin
 * the subject only when every file under the subject root in DIR has a recorded digest,
 * recomputed over DIR's bytes, that matches: `pinnedByRecordedDigests` says which files do not.
 */
import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import { m11Digest, type M11Domain } from '../../../../src/hash/index.js';
import { gitBytes, git } from '../../../../src/capture/git.js';
import { crateDigest, crateFiles, DigestError, fileBytes } from './crate-digest.js';

const HEX = /^[0-9a-f]{7,64}$/;

/** The --tree directory given for `commit` (the key may be the full id or a prefix of 7+ hex). */
export function treeFor(trees: Record<string, string>, commit: string): string | undefined {
  for (const [key, dir] of Object.entries(trees)) {
    const k = key.toLowerCase();
    if (HEX.test(k) && commit.toLowerCase().startsWith(k)) return dir;
  }
  return undefined;
}

/** Whether the git repository holding `dir` has `commit`, lacks it, or there is no such repository. */
export type CommitPresence = 'present' | 'absent' | 'no-repository';

export async function commitPresence(dir: string, commit: string): Promise<CommitPresence> {
  try {
    await git(dir, ['rev-parse', '--git-dir']);
  } catch {
    return 'no-repository';
  }
  try {
    await git(dir, ['cat-file', '-e', `${commit}^{commit}`]);
    return 'present';
  } catch {
    return 'absent';
  }
}

/** Git's blob id of raw bytes (sha1, or sha256 for repositories in that object format). */
function gitBlobId(bytes: Buffer, algo: 'sha1' | 'sha256'): string {
  return createHash(algo).update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export interface TreeDifference {
  /** Relative to the subject directory. */
  path: string;
  problem: 'differs' | 'not in the commit' | 'missing from the tree' | 'not a file in the commit';
}

/** The commit's entries under `subjectDir` (which must exist), relative to it. */
async function commitEntries(
  subjectDir: string,
  commit: string,
): Promise<Map<string, { mode: string; type: string; oid: string }>> {
  const out = (await gitBytes(subjectDir, ['ls-tree', '-r', '-z', commit])).toString('utf8');
  const entries = new Map<string, { mode: string; type: string; oid: string }>();
  for (const rec of out.split('\0').filter(Boolean)) {
    const tab = rec.indexOf('\t');
    const [mode, type, oid] = rec.slice(0, tab).split(' ');
    entries.set(rec.slice(tab + 1), { mode: mode!, type: type!, oid: oid! });
  }
  return entries;
}

/** Differences between the files under `subjectDir` and `commit`'s tree there (sorted by path). */
export async function compareWithCommit(subjectDir: string, commit: string): Promise<TreeDifference[]> {
  // Listed first: a missing directory is a DigestError the caller reports (git cannot start in it).
  const files = await crateFiles(subjectDir);
  const entries = await commitEntries(subjectDir, commit);
  const diffs: TreeDifference[] = [];
  const present = new Set<string>();
  for (const rel of files) {
    const bytes = await fileBytes(subjectDir, rel);
    if (!bytes) continue;
    present.add(rel);
    const entry = entries.get(rel);
    if (!entry) diffs.push({ path: rel, problem: 'not in the commit' });
    else if (entry.type !== 'blob') diffs.push({ path: rel, problem: 'not a file in the commit' });
    else if (gitBlobId(bytes, entry.oid.length === 64 ? 'sha256' : 'sha1') !== entry.oid)
      diffs.push({ path: rel, problem: 'differs' });
  }
  for (const rel of entries.keys()) {
    // The digest never covers target/ (crateFiles drops it), so neither does the comparison.
    if (!present.has(rel) && !(rel === 'target' || rel.startsWith('target/')))
      diffs.push({ path: rel, problem: 'missing from the tree' });
  }
  return diffs.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/** A digest the documents record over one file, named relative to --root (`/`-separated). */
interface RecordedFile {
  path: string;
  domain: M11Domain;
  digest: string;
}

/** A crate digest the documents record (an inventory element): it covers every file under `dir`. */
interface RecordedCrate {
  dir: string;
  digest: string;
}

export interface RecordedDigests {
  files: RecordedFile[];
  crates: RecordedCrate[];
}

export interface Pinning {
  /** Files under the subject directory in the tree. */
  total: number;
  /** Those without a matching recorded digest (relative to the subject directory, sorted); `differs` when one was recorded but does not match. */
  unpinned: { path: string; differs: boolean }[];
}

/** `path` is `dir` or below it (both relative to --root, `/`-separated; `.` is the root). */
const within = (path: string, dir: string) => dir === '.' || path === dir || path.startsWith(`${dir}/`);

/** The listed files that exist (git lists a tracked file deleted from the work tree; it is not part of the bytes). */
async function presentFiles(dir: string): Promise<string[]> {
  const listed = await crateFiles(dir);
  const present = await Promise.all(
    listed.map((rel) =>
      lstat(resolve(dir, rel)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return listed.filter((_, i) => present[i]);
}

/**
 * Which files under `subjectDir` (relative to --root) in `tree` are not pinned by the documents: a
 * file is pinned when at least one recorded digest covers it and every one that does, recomputed
 * over the tree's bytes, matches (two records disagreeing about a file pin nothing). Throws
 * DigestError when the subject directory cannot be listed or a file cannot be read.
 */
export async function pinnedByRecordedDigests(
  tree: string,
  subjectRoot: string,
  recorded: RecordedDigests,
): Promise<Pinning> {
  const subjectDir = posix.normalize(subjectRoot).replace(/(.)\/$/, '$1');
  const files = (await presentFiles(resolve(tree, subjectDir))).map((rel) => posix.join(subjectDir, rel));
  const verdicts = new Map<string, boolean>();
  const judge = (path: string, matches: boolean) => verdicts.set(path, (verdicts.get(path) ?? true) && matches);
  for (const crate of recorded.crates) {
    if (!within(crate.dir, subjectDir) && !within(subjectDir, crate.dir)) continue;
    let digest;
    try {
      digest = await crateDigest(resolve(tree, crate.dir));
    } catch (error) {
      if (error instanceof DigestError) continue; // no such crate in the tree: it pins nothing
      throw error;
    }
    for (const f of digest.files) judge(posix.join(crate.dir, f.path), digest.digest === crate.digest);
  }
  // A file many records cite is read and hashed once: every citation is judged against the same bytes.
  const read = new Map<string, Promise<Buffer | undefined>>();
  const digests = new Map<string, string>();
  for (const file of recorded.files) {
    if (!within(file.path, subjectDir)) continue;
    if (!read.has(file.path)) read.set(file.path, fileBytes(tree, file.path));
    const bytes = await read.get(file.path)!;
    if (!bytes) continue;
    const memo = `${file.domain}\u0000${file.path}`;
    const digest = digests.get(memo) ?? m11Digest(file.domain, bytes);
    digests.set(memo, digest);
    judge(file.path, digest === file.digest);
  }
  const unpinned = files
    .filter((path) => verdicts.get(path) !== true)
    .map((path) => ({
      path: subjectDir === '.' ? path : path.slice(subjectDir.length + 1),
      differs: verdicts.get(path) === false,
    }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  return { total: files.length, unpinned };
}
