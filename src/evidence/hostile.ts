/**
 * Reading a bundle as hostile input. The tar is streamed through the `tar` package's parser in
 * strict mode (any malformed header is an error) and never extracted: each entry is checked before
 * its content is read, and content goes only to numbered files inside a scratch directory the
 * caller owns, never to a path named by the bundle.
 *
 * Before the parser sees anything, every raw header is judged by its type flag: a bundle holds
 * regular files (`0`) only. Refused so, naming the entry: links, devices, FIFOs, directories, pax
 * and GNU long-name headers (which the parser would fold into the next entry), sparse files and
 * unknown types (which it would skip unseen, where GNU tar extracts them), a header whose checksum
 * does not match, and any byte after the end-of-archive marker.
 *
 * Then refused, naming the entry: absolute paths, `..` segments, names that are not plain relative
 * paths, duplicate names, a first entry that is not the manifest, entries the manifest does not
 * list, header sizes that disagree with the manifest, content whose digest disagrees with it,
 * entries the manifest lists but the bundle lacks, and more entries or bytes than the limits.
 *
 * A refusal is given only once every file it started writing is closed, so the caller may remove
 * the scratch directory at once.
 */
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { invalid } from '../errors.js';
import { sha256Stream } from '../hash/index.js';
import { MANIFEST_ENTRY, parseManifest, type BundleManifest } from './manifest.js';
import { capsuleEntryNames, checkCapsules, type CapsuleLimits } from './capsule.js';
import { badName, refuse } from './refusal.js';
import { walkHeaders, type RawHeader } from './tar.js';

export interface BundleLimits {
  /** Most entries a bundle may hold, the manifest included. */
  entries: number;
  /** Most content bytes over all entries. */
  bytes: number;
}

/**
 * Registered-check evidence is bounded by the check rule's output limits (10,000 outputs, 512 MiB)
 * plus the logs; these leave room for that and no more. Capsules (formal assets) will carry their
 * own, separate limits (16 GiB archives and total, 100,000 entries per tool tree).
 */
export const BUNDLE_LIMITS: BundleLimits = { entries: 10_016, bytes: 1024 * 1024 * 1024 };

/** A manifest larger than this is not a manifest. */
const MANIFEST_MAX_BYTES = 16 * 1024 * 1024;

export interface ReadBundle {
  manifest: BundleManifest;
  manifestBytes: Buffer;
  /** Every other entry: its name, size, digest and where its bytes were put in the scratch directory. */
  entries: Map<string, { size: number; sha256: string; file: string }>;
}

/** What each tar type flag but `0` (a regular file) makes an entry, for refusals. */
const ENTRY_TYPES: Record<string, string> = {
  '\0': 'a pre-POSIX entry',
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '5': 'a directory',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  x: 'a pax extended header',
  g: 'a pax global header',
  X: 'an old extended header',
  L: 'a GNU long name',
  K: 'a GNU long link name',
  N: 'an old GNU long name',
  S: 'a GNU sparse file',
  D: 'a GNU directory dump',
  M: 'a GNU multi-volume continuation',
  V: 'a tape volume header',
  A: 'a Solaris ACL',
  I: 'an inode-only entry',
};

/** Why a header does not start a regular file, judged from its raw type flag, or undefined when it does. */
function typeProblem(h: RawHeader): string | undefined {
  if (h.flag === '0' && h.type === 'File') return undefined;
  const what =
    h.flag === '0' ? 'a directory (a name ending in `/`)' : (ENTRY_TYPES[h.flag] ?? 'an entry of an unknown type');
  return `${what} (tar type \`${JSON.stringify(h.flag).slice(1, -1)}\`); a bundle holds regular files only`;
}

/** Resolves when `out` has closed, destroying it first if it is still open (or still opening). */
function closed(out: WriteStream): Promise<void> {
  if (out.closed) return Promise.resolve();
  return new Promise((done) => {
    out.once('close', () => done());
    out.destroy();
  });
}

/** How `readBundle` treats the entries it checks. */
export interface ReadOptions {
  /** Whether to keep an entry's bytes in the scratch directory; others are only hashed. @default all */
  keep?: (name: string) => boolean;
  capsuleLimits?: CapsuleLimits;
}

/**
 * Reads and checks a bundle. Resolves only when every entry was checked and every listed entry was
 * seen; rejects with a refusal (exit 2) naming the first entry at fault.
 */
export function readBundle(
  file: string,
  scratch: string,
  limits: BundleLimits = BUNDLE_LIMITS,
  opts: ReadOptions = {},
): Promise<ReadBundle> {
  return new Promise((resolve, reject) => {
    const input = createReadStream(file);
    const parser = new Parser({ strict: true });
    const reading = new BundleReading(scratch, limits, opts, input, reject);
    input.on('error', (error) =>
      reading.fail(invalid('ERR_BUNDLE_READ', `Cannot read the bundle: ${error.message}`, { file })),
    );
    // Raw headers first: the parser would skip or fold some types without a trace.
    const headers = walkHeaders({
      header: (h) => reading.header(h),
      afterEnd() {
        throw refuse(
          '(end of bundle)',
          'non-zero bytes after the end-of-archive marker (another reader could find entries there); a bundle ends at the marker',
        );
      },
    });
    headers.on('error', reading.fail);
    // Strict mode turns every warning (truncated archive, not a tar) into an error.
    parser.on('error', (error: Error) =>
      reading.fail(refuse(reading.last, `the tar is malformed after this entry (${error.message})`)),
    );
    parser.on('entry', (entry: ReadEntry) => reading.entry(entry));
    parser.on('end', () => reading.end(resolve));
    input.pipe(headers).pipe(parser);
  });
}

type DeclaredEntry = BundleManifest['entries'][number];

/** One read of a bundle: what its entries showed so far, and whether it was refused. */
class BundleReading {
  private failed = false;
  /** The last entry whose raw header passed: a malformed tar is refused as malformed after it. */
  last = '(start of bundle)';
  private count = 0;
  private total = 0;
  private manifest: BundleManifest | undefined;
  private manifestBytes: Buffer | undefined;
  private readonly seen = new Set<string>();
  // Capsule entries are judged by the capsule limits (from the manifest, before their bytes are read).
  private capsuleNames = new Set<string>();
  private readonly entries: ReadBundle['entries'] = new Map();
  private readonly pending: Promise<void>[] = [];
  private readonly outs: WriteStream[] = [];

  constructor(
    private readonly scratch: string,
    private readonly limits: BundleLimits,
    private readonly opts: ReadOptions,
    private readonly input: ReadStream,
    private readonly reject: (error: Error) => void,
  ) {}

  /** The first refusal ends the read; every later one is ignored. */
  readonly fail = (error: Error): void => {
    if (this.failed) return;
    this.failed = true;
    this.input.destroy();
    // A write stream still opening would create its file after the caller removed the scratch
    // directory (ENOTEMPTY, replacing the refusal): answer only once every one has closed.
    void Promise.all(this.outs.map(closed)).then(() => this.reject(error));
  };

  /** A raw header, judged before the parser sees it. */
  header(h: RawHeader): void {
    if (!h.wellFormed)
      throw refuse(this.last, 'the tar is malformed after this entry (a header checksum does not match)');
    const problem = typeProblem(h);
    if (problem) throw refuse(h.name, problem);
    this.last = h.name;
  }

  /** An entry as the parser reads it: checked against the manifest before any of its bytes are read. */
  entry(entry: ReadEntry): void {
    if (this.failed) return void entry.resume();
    const name = entry.path;
    const problem = this.check(entry, name);
    if (problem) {
      entry.resume();
      return this.fail(refuse(name, problem));
    }
    this.seen.add(name);
    if (!this.capsuleNames.has(name)) this.total += entry.size;
    if (this.total > this.limits.bytes) {
      entry.resume();
      return this.fail(refuse(name, `the bundle holds more than the limit of ${this.limits.bytes} content bytes`));
    }
    if (!this.manifest) return this.readManifest(entry);
    const declared = this.manifest.entries.find((e) => e.name === name)!;
    if (this.opts.keep && !this.opts.keep(name)) return this.hashOnly(entry, name, declared);
    this.store(entry, name, declared);
  }

  private check(entry: ReadEntry, name: string): string | undefined {
    const bad = badName(name);
    if (bad) return bad;
    if (this.seen.has(name)) return 'a duplicate name';
    this.count += 1;
    if (this.count > this.limits.entries)
      return `the bundle holds more than the limit of ${this.limits.entries} entries`;
    if (!this.manifest) {
      if (name !== MANIFEST_ENTRY) return `the first entry must be ${MANIFEST_ENTRY}`;
      if (entry.size > MANIFEST_MAX_BYTES) return `a manifest of ${entry.size} bytes exceeds ${MANIFEST_MAX_BYTES}`;
      return undefined;
    }
    const declared = this.manifest.entries.find((e) => e.name === name);
    if (!declared) return 'it is not listed in the manifest';
    if (declared.size !== entry.size) return `its size ${entry.size} disagrees with the manifest's ${declared.size}`;
    return undefined;
  }

  /** The manifest comes first, so every later entry is checked against it before its bytes are read. */
  private readManifest(entry: ReadEntry): void {
    const chunks: Buffer[] = [];
    entry.on('data', (c: Buffer) => chunks.push(c));
    entry.on('end', () => {
      if (this.failed) return;
      this.manifestBytes = Buffer.concat(chunks);
      const parsed = parseManifest(this.manifestBytes);
      if (typeof parsed === 'string') return this.fail(refuse(MANIFEST_ENTRY, parsed));
      try {
        checkCapsules(parsed, this.opts.capsuleLimits);
      } catch (error) {
        return this.fail(error as Error);
      }
      this.capsuleNames = capsuleEntryNames(parsed);
      this.manifest = parsed;
    });
  }

  /** Hashed as it streams past, never stored: a 1.4 GB image need not be copied to be checked. */
  private hashOnly(entry: ReadEntry, name: string, declared: DeclaredEntry): void {
    const hash = sha256Stream();
    entry.on('data', (c: Buffer) => hash.update(c));
    this.pending.push(
      new Promise<void>((done) => {
        entry.on('end', () => {
          const sha256 = hash.digest();
          if (!this.failed && sha256 !== declared.sha256)
            this.fail(refuse(name, `its content digest ${sha256} differs from the manifest's ${declared.sha256}`));
          else if (!this.failed) this.entries.set(name, { size: entry.size, sha256, file: '' });
          done();
        });
      }),
    );
  }

  /** Written to a file numbered by position: a name from the bundle never becomes a path. */
  private store(entry: ReadEntry, name: string, declared: DeclaredEntry): void {
    const dest = join(this.scratch, `entry-${String(this.count).padStart(6, '0')}`);
    const out = createWriteStream(dest, { flags: 'wx', mode: 0o600 });
    this.outs.push(out);
    const hash = sha256Stream();
    entry.on('data', (c: Buffer) => hash.update(c));
    entry.pipe(out);
    this.pending.push(
      new Promise<void>((done) => {
        out.on('close', () => {
          if (this.failed) return done();
          const sha256 = hash.digest();
          if (sha256 !== declared.sha256)
            this.fail(refuse(name, `its content digest ${sha256} differs from the manifest's ${declared.sha256}`));
          else this.entries.set(name, { size: entry.size, sha256, file: dest });
          done();
        });
        out.on('error', (error) => {
          this.fail(error);
          done();
        });
      }),
    );
  }

  /** The parser's end: once every entry's bytes are settled, the manifest must have been read and every entry it lists seen. */
  end(resolve: (read: ReadBundle) => void): void {
    void Promise.all(this.pending).then(() => {
      if (this.failed) return;
      if (!this.manifest || !this.manifestBytes) return this.fail(refuse(MANIFEST_ENTRY, 'the bundle has no manifest'));
      const missing = this.manifest.entries.find((e) => !this.entries.has(e.name));
      if (missing) return this.fail(refuse(missing.name, 'the manifest lists it but the bundle does not hold it'));
      resolve({ manifest: this.manifest, manifestBytes: this.manifestBytes, entries: this.entries });
    });
  }
}
