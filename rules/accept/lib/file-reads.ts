/**
 * The files one acceptance command reads, each read once. A package of 2,000 claims may cite the
 * same few records 2,000 times; reading (and resolving, and hashing) a record once per citation
 * made a check spend most of its time waiting on the file system. Here every path is resolved,
 * read and hashed at most once per command, and every citation is judged against those same
 * bytes: a record that changes while the command runs cannot pass one citation and fail
 * another, and what was hashed is exactly what was read.
 *
 * A FileReads lives for one command (one `check`, `check-package`, `check-decision`, stack check
 * included) and is never kept: a later command must see a file's current bytes. Its reads are
 * noted (reads.ts) each time a caller takes the bytes, so an action that collects its reads sees
 * every file the check relied on; a file loaded ahead of need (`prefetch`) is noted only once
 * something takes it.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { m11Digest, type M11Domain } from '../../../src/hash/index.js';
import { insideRoot } from './paths.js';
import { noteRead } from './reads.js';
import { tables, type Table } from './toml.js';

/** How many files `prefetch` loads at once: enough to keep the thread pool busy, few descriptors. */
const PREFETCH_AT_ONCE = 16;

/** Files are named by absolute, normalised paths (as `path.resolve` returns them): one name, one read. */
export class FileReads {
  readonly #real = new Map<string, Promise<string | undefined>>();
  readonly #bytes = new Map<string, Promise<Buffer | undefined>>();
  readonly #digests = new Map<string, string>();

  /** The path with its symbolic links resolved; undefined when it does not exist or cannot be resolved. */
  realpath(key: string): Promise<string | undefined> {
    let real = this.#real.get(key);
    if (!real) {
      real = realpath(key).catch(() => undefined);
      this.#real.set(key, real);
    }
    return real;
  }

  /** The bytes of a regular file, or undefined when it does not exist or cannot be read. */
  async bytes(key: string): Promise<Buffer | undefined> {
    const bytes = await this.#load(key);
    if (bytes) noteRead(key);
    return bytes;
  }

  /** The M11 digest of a regular file's bytes in `domain`, computed once per file and domain. */
  async digest(key: string, domain: M11Domain): Promise<string | undefined> {
    const bytes = await this.bytes(key);
    if (!bytes) return undefined;
    const memo = `${domain}\u0000${key}`;
    let digest = this.#digests.get(memo);
    if (digest === undefined) {
      digest = m11Digest(domain, bytes);
      this.#digests.set(memo, digest);
    }
    return digest;
  }

  /**
   * Starts resolving and reading `paths` a few at a time, so that a walk asking for them one by
   * one finds them ready instead of waiting for each in turn. Nothing is judged or noted here.
   */
  prefetch(paths: Iterable<string>): void {
    const queue = [...new Set(paths)].filter((p) => !this.#bytes.has(p));
    const next = (): Promise<void> | undefined => {
      const key = queue.shift();
      if (key === undefined) return undefined;
      return Promise.all([this.realpath(key), this.#load(key)]).then(() => next());
    };
    for (let i = 0; i < PREFETCH_AT_ONCE; i++) void next();
  }

  #load(key: string): Promise<Buffer | undefined> {
    let bytes = this.#bytes.get(key);
    if (!bytes) {
      bytes = regularFileBytes(key);
      this.#bytes.set(key, bytes);
    }
    return bytes;
  }
}

async function regularFileBytes(abs: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(abs)).isFile()) return undefined;
    return await readFile(abs);
  } catch {
    return undefined;
  }
}

/**
 * The files a package's evidence names, for `prefetch`: records and cited packages (relative to
 * the package's directory), inputs and build inputs (relative to the subject root, when it is
 * valid), each only when it stays inside `root` as written. Whether a path is acceptable at all
 * is the validator's to judge when it asks for the file; this only says what to load early.
 */
export function evidenceFiles(data: Table, pkgDir: string, subjectRoot: string | undefined, root: string): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const add = (base: string | undefined, rel: unknown) => {
    if (base === undefined || typeof rel !== 'string' || rel === '' || isAbsolute(rel)) return;
    const key = `${base}\u0000${rel}`;
    if (seen.has(key)) return; // thousands of citations name a few files: resolve each once
    seen.add(key);
    const inside = insideRoot(root, relative(root, resolve(base, rel)) || '.');
    if (inside) out.add(inside);
  };
  for (const claim of tables(data, 'claim')) {
    for (const e of tables(claim, 'evidence')) {
      add(pkgDir, e.record);
      add(pkgDir, e.manifest);
      for (const i of [...tables(e, 'inputs'), ...tables(e, 'build_inputs')]) add(subjectRoot, i.path);
    }
  }
  return [...out];
}
