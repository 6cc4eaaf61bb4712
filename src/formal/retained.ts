/**
 * What a profile leaves in its output directory is checked before anything of it is retained in
 * the CAS (vkit-reference.md, restricted containers): the container wrote it, so nothing there is
 * trusted. Only regular files the profile listed as artifacts are kept; a link, a special file, a
 * file or directory nobody listed, a listed artifact that is absent, or more than the limits
 * (10,000 entries, 512 MiB) rejects the whole output, naming the offending entry.
 *
 * Pure core (`checkRetained` over a listing) with the filesystem walk at the edge (`listOutput`).
 */
import { lstat, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';

export interface RetainedLimits {
  /** Entries (files and directories) under the output directory. @default 10000 */
  maxEntries: number;
  /** Total bytes of the regular files. @default 536870912 (512 MiB) */
  maxBytes: number;
}

export const RETAINED_LIMITS: RetainedLimits = { maxEntries: 10_000, maxBytes: 512 * 1024 * 1024 };

/** One entry under the output directory, as `lstat` saw it (links are never followed). */
export interface OutputEntry {
  /** Relative path with `/` separators. */
  path: string;
  kind: 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'block-device' | 'char-device' | 'unknown';
  size: number;
  /** Hard link count: a regular file with several names is refused (one of them may change it later). */
  nlink: number;
}

/** Thrown when the output cannot be retained; `entry` is the offending relative path. */
export class RetainedEvidenceError extends Error {
  constructor(
    message: string,
    readonly entry: string,
  ) {
    super(message);
    this.name = 'RetainedEvidenceError';
  }
}

/**
 * Checks an output listing against the listed artifacts and the limits; returns the artifacts to
 * retain (sorted). Throws {@link RetainedEvidenceError} naming the first offending entry.
 */
export function checkRetained(
  entries: readonly OutputEntry[],
  listed: readonly string[],
  limits: RetainedLimits = RETAINED_LIMITS,
): string[] {
  const wanted = new Set<string>();
  for (const a of listed) {
    if (
      a === '' ||
      a.startsWith('/') ||
      a.includes('\\') ||
      a.includes('\0') ||
      posix.normalize(a) !== a ||
      a === '.' ||
      a.startsWith('../') ||
      a.endsWith('/')
    ) {
      throw new RetainedEvidenceError(
        `Expected an artifact to be a normalised relative path inside the output directory, got \`${a}\``,
        a,
      );
    }
    wanted.add(a);
  }
  // Directories are allowed only as the way to a listed artifact.
  const ancestors = new Set<string>();
  for (const a of wanted) {
    const parts = a.split('/');
    for (let i = 1; i < parts.length; i++) ancestors.add(parts.slice(0, i).join('/'));
  }

  if (entries.length > limits.maxEntries) {
    throw new RetainedEvidenceError(
      `the output holds more than ${limits.maxEntries} entries (reached at \`${entries[limits.maxEntries]!.path}\`)`,
      entries[limits.maxEntries]!.path,
    );
  }
  let bytes = 0;
  const present = new Set<string>();
  for (const e of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    switch (e.kind) {
      case 'symlink':
        throw new RetainedEvidenceError(
          `\`${e.path}\` is a symbolic link; retained evidence holds regular files only`,
          e.path,
        );
      case 'directory':
        if (!ancestors.has(e.path))
          throw new RetainedEvidenceError(`\`${e.path}\` is a directory holding no listed artifact`, e.path);
        break;
      case 'file':
        if (!wanted.has(e.path)) throw new RetainedEvidenceError(`\`${e.path}\` is not a listed artifact`, e.path);
        if (e.nlink > 1)
          throw new RetainedEvidenceError(
            `\`${e.path}\` has ${e.nlink} hard links; retained evidence holds files with one name only`,
            e.path,
          );
        bytes += e.size;
        if (bytes > limits.maxBytes)
          throw new RetainedEvidenceError(
            `the output exceeds ${limits.maxBytes} bytes (reached at \`${e.path}\`)`,
            e.path,
          );
        present.add(e.path);
        break;
      default:
        throw new RetainedEvidenceError(
          `\`${e.path}\` is a special file (${e.kind}); retained evidence holds regular files only`,
          e.path,
        );
    }
  }
  for (const a of wanted) {
    if (!present.has(a))
      throw new RetainedEvidenceError(`listed artifact \`${a}\` is not a regular file in the output`, a);
  }
  return [...wanted].sort();
}

/**
 * Lists the output directory without following links. Stops one entry past `maxEntries`, so a
 * flood of files costs at most that many `lstat` calls.
 */
export async function listOutput(dir: string, maxEntries: number = RETAINED_LIMITS.maxEntries): Promise<OutputEntry[]> {
  const out: OutputEntry[] = [];
  const walk = async (rel: string): Promise<boolean> => {
    const names = (await readdir(rel ? join(dir, rel) : dir)).sort();
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(dir, path));
      const kind: OutputEntry['kind'] = st.isSymbolicLink()
        ? 'symlink'
        : st.isFile()
          ? 'file'
          : st.isDirectory()
            ? 'directory'
            : st.isFIFO()
              ? 'fifo'
              : st.isSocket()
                ? 'socket'
                : st.isBlockDevice()
                  ? 'block-device'
                  : st.isCharacterDevice()
                    ? 'char-device'
                    : 'unknown';
      out.push({ path, kind, size: st.size, nlink: st.nlink });
      if (out.length > maxEntries) return false;
      if (kind === 'directory' && !(await walk(path))) return false;
    }
    return true;
  };
  await walk('');
  return out;
}

/**
 * Validates a profile's output directory before retention and returns the relative paths to put in
 * the CAS. Throws {@link RetainedEvidenceError} naming the offending entry.
 */
export async function validateRetained(
  dir: string,
  listed: readonly string[],
  limits: RetainedLimits = RETAINED_LIMITS,
): Promise<string[]> {
  return checkRetained(await listOutput(dir, limits.maxEntries), listed, limits);
}
