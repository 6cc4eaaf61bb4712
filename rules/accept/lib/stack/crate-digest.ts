/**
 * Crate digests (acceptance-details.md section 4): the files under a crate directory, named
 * relative to it, each hashed with SHA-512 over its raw bytes, listed and hashed in domain
 * `subject`. A library's own package subject and the app's inventory element name the same bytes,
 * so both sides compute this one function.
 *
 * Which files: inside a git work tree, `git ls-files --cached --others --exclude-standard` under
 * the directory (tracked files plus untracked files git does not ignore: an untracked `build.rs`
 * would be compiled by cargo, so leaving it out would let bytes the build consumes go unchecked);
 * outside git, a walk. `target/` at the top of the crate is never part of it, nor is `.git/`.
 * A listed file that no longer exists in the working tree is not consumed and is skipped; a
 * symlink counts as its target text (what git stores for it); anything else that is not a
 * regular file (a submodule, a socket) cannot be digested and is an error.
 */
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { git } from '../../../../src/capture/git.js';
import { fileListing, m11Digest, sha512Hex } from '../../../../src/hash/index.js';
import { noteRead } from '../reads.js';

interface ListedFile {
  /** Relative to the crate directory, `/`-separated. */
  path: string;
  sha512: string;
}

export interface CrateDigest {
  digest: string;
  files: ListedFile[];
}

/** Thrown when a directory cannot be digested; callers turn it into a finding. */
export class DigestError extends Error {}

const excluded = (rel: string) =>
  rel === 'target' || rel.startsWith('target/') || rel === '.git' || rel.startsWith('.git/');

/**
 * One check's memory of listings and digests. A stack check digests every crate twice (the app's
 * inventory element, then the library's own subject) and would otherwise spawn one git per crate;
 * with a cache the work tree is listed once, at its top, and each crate digested once. A cache
 * lives for one check only (a snapshot), never across checks: files may change between them.
 */
export interface DigestCache {
  /** Work tree top -> its listing (relative to the top). */
  trees: Map<string, Promise<string[]>>;
  digests: Map<string, Promise<CrateDigest>>;
  /** Directories known to be outside any git work tree (walked, never asked again). */
  plain: Set<string>;
}

const newDigestCache = (): DigestCache => ({ trees: new Map(), digests: new Map(), plain: new Set() });

const under = (top: string, dir: string) => {
  const rel = relative(top, dir);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel)) ? rel : undefined;
};

/** Asks git once whether `dir` (a workspace root) is in a work tree, so crates below it need no git call of their own. */
export async function primeDigestCache(cache: DigestCache, dir: string): Promise<void> {
  if ([...cache.trees.keys(), ...cache.plain].some((t) => under(t, dir) !== undefined)) return;
  try {
    const top = (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
    if (top && !cache.trees.has(top)) cache.trees.set(top, listGit(top));
  } catch {
    cache.plain.add(dir);
  }
}

const caches = new WeakMap<object, DigestCache>();
/**
 * The cache of one check, keyed by an object every nested check of it shares (the check's
 * `stores` map, which the stack check hands unchanged to each library's check).
 */
export function digestCacheFor(key: object): DigestCache {
  let c = caches.get(key);
  if (!c) caches.set(key, (c = newDigestCache()));
  return c;
}

const listGit = async (dir: string) => [
  ...new Set(
    (await git(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])).split('\0').filter(Boolean),
  ),
];

/** Relative paths of the files that make up `dir` (unsorted; the listing sorts bytewise). */
export async function crateFiles(dir: string, cache?: DigestCache): Promise<string[]> {
  let st;
  try {
    st = await lstat(dir);
  } catch {
    throw new DigestError(`directory ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new DigestError(`${dir} is not a directory`);
  let listed: string[] | undefined;
  if (cache) {
    for (const [top, files] of cache.trees) {
      const rel = under(top, dir);
      if (rel !== undefined) {
        const prefix = rel === '' ? '' : `${rel.split(sep).join('/')}/`;
        listed = (await files).filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
        break;
      }
    }
    if (!listed && [...cache.plain].some((p) => under(p, dir) !== undefined))
      return (await walk(dir, '')).filter((f) => !excluded(f));
    if (!listed) {
      try {
        const top = (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
        if (top) {
          if (!cache.trees.has(top)) cache.trees.set(top, listGit(top));
          return crateFiles(dir, cache);
        }
      } catch {
        cache.plain.add(dir); // not a git work tree: walk below
      }
    }
  } else {
    try {
      listed = await listGit(dir);
    } catch {
      listed = undefined; // not a git work tree (or no git): walk instead
    }
  }
  const files = listed ?? (await walk(dir, ''));
  return files.filter((f) => !excluded(f));
}

async function walk(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (excluded(rel)) continue;
    if (e.isDirectory()) out.push(...(await walk(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/** The bytes a listed file contributes, or undefined when it is gone from the working tree. */
export async function fileBytes(dir: string, rel: string): Promise<Buffer | undefined> {
  const abs = join(dir, rel);
  let st;
  try {
    st = await lstat(abs);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) {
    const target = Buffer.from(await readlink(abs), 'utf8');
    noteRead(abs);
    return target;
  }
  if (!st.isFile())
    throw new DigestError(`${rel} is not a regular file (a submodule or special file cannot be digested)`);
  const bytes = await readFile(abs);
  noteRead(abs);
  return bytes;
}

/** The crate digest of `dir` plus its listing (for messages that name a file). */
export async function crateDigest(dir: string, cache?: DigestCache): Promise<CrateDigest> {
  if (!cache) return computeDigest(dir);
  let d = cache.digests.get(dir);
  if (!d) cache.digests.set(dir, (d = computeDigest(dir, cache)));
  return d;
}

async function computeDigest(dir: string, cache?: DigestCache): Promise<CrateDigest> {
  const rels = await crateFiles(dir, cache);
  const files: ListedFile[] = [];
  // Bounded parallelism: a 500-crate stack reads thousands of small files.
  const queue = [...rels];
  const worker = async () => {
    for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
      if (rel.includes('\n'))
        throw new DigestError(`${rel}: a file name holding a newline cannot be listed unambiguously`);
      const bytes = await fileBytes(dir, rel);
      if (bytes) files.push({ path: rel, sha512: sha512Hex(bytes) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, queue.length) }, worker));
  return { digest: m11Digest('subject', fileListing(files)), files };
}
