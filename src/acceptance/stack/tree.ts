/**
 * `--tree COMMIT=DIR`: where the bytes of a subject commit can be read, and the check that they
 * are that commit's bytes. Digests are always computed over DIR's files; when DIR's repository
 * has the commit, every file under the subject root must also equal the commit's blob (same
 * path set, same bytes, compared by git blob id), and each difference names its file.
 */
import { createHash } from 'node:crypto';
import { gitBytes, git } from '../../capture/git.js';
import { crateFiles, fileBytes } from './crate-digest.js';

const HEX = /^[0-9a-f]{7,64}$/;

/** The --tree directory given for `commit` (the key may be the full id or a prefix of 7+ hex). */
export function treeFor(trees: Record<string, string>, commit: string): string | undefined {
  for (const [key, dir] of Object.entries(trees)) {
    const k = key.toLowerCase();
    if (HEX.test(k) && commit.toLowerCase().startsWith(k)) return dir;
  }
  return undefined;
}

/** Whether the git repository holding `dir` has `commit` (false outside git). */
export async function hasCommit(dir: string, commit: string): Promise<boolean> {
  try {
    await git(dir, ['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Git's blob id of raw bytes (sha1, or sha256 for repositories in that object format). */
export function gitBlobId(bytes: Buffer, algo: 'sha1' | 'sha256'): string {
  return createHash(algo).update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export interface TreeDifference {
  /** Relative to the subject directory. */
  path: string;
  problem: 'differs' | 'not in the commit' | 'missing from the tree' | 'not a file in the commit';
}

/** The commit's entries under `subjectDir` (which must exist), relative to it. */
async function commitEntries(subjectDir: string, commit: string): Promise<Map<string, { mode: string; type: string; oid: string }>> {
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
    else if (gitBlobId(bytes, entry.oid.length === 64 ? 'sha256' : 'sha1') !== entry.oid) diffs.push({ path: rel, problem: 'differs' });
  }
  for (const rel of entries.keys()) {
    // The digest never covers target/ (crateFiles drops it), so neither does the comparison.
    if (!present.has(rel) && !(rel === 'target' || rel.startsWith('target/'))) diffs.push({ path: rel, problem: 'missing from the tree' });
  }
  return diffs.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}
