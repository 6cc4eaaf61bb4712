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
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
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

/**
 * Reads and checks a bundle. Resolves only when every entry was checked and every listed entry was
 * seen; rejects with a refusal (exit 2) naming the first entry at fault.
 */
export interface ReadOptions {
  /** Whether to keep an entry's bytes in the scratch directory; others are only hashed. @default all */
  keep?: (name: string) => boolean;
  capsuleLimits?: CapsuleLimits;
}

export function readBundle(
  file: string,
  scratch: string,
  limits: BundleLimits = BUNDLE_LIMITS,
  opts: ReadOptions = {},
): Promise<ReadBundle> {
  return new Promise((resolve, reject) => {
    const input = createReadStream(file);
    const parser = new Parser({ strict: true });
    let failed = false;
    let last = '(start of bundle)';
    let count = 0;
    let total = 0;
    let manifest: BundleManifest | undefined;
    let manifestBytes: Buffer | undefined;
    const seen = new Set<string>();
    // Capsule entries are judged by the capsule limits (from the manifest, before their bytes are read).
    let capsuleNames = new Set<string>();
    const entries: ReadBundle['entries'] = new Map();
    const pending: Promise<void>[] = [];
    const outs: WriteStream[] = [];

    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      input.destroy();
      // A write stream still opening would create its file after the caller removed the scratch
      // directory (ENOTEMPTY, replacing the refusal): answer only once every one has closed.
      void Promise.all(outs.map(closed)).then(() => reject(error));
    };
    input.on('error', (error) =>
      fail(invalid('ERR_BUNDLE_READ', `Cannot read the bundle: ${error.message}`, { file })),
    );
    // Raw headers first: the parser would skip or fold some types without a trace.
    const headers = walkHeaders({
      header(h) {
        if (!h.wellFormed)
          throw refuse(last, 'the tar is malformed after this entry (a header checksum does not match)');
        const problem = typeProblem(h);
        if (problem) throw refuse(h.name, problem);
        last = h.name;
      },
      afterEnd() {
        throw refuse(
          '(end of bundle)',
          'non-zero bytes after the end-of-archive marker (another reader could find entries there); a bundle ends at the marker',
        );
      },
    });
    headers.on('error', fail);
    // Strict mode turns every warning (truncated archive, not a tar) into an error.
    parser.on('error', (error: Error) =>
      fail(refuse(last, `the tar is malformed after this entry (${error.message})`)),
    );

    parser.on('entry', (entry: ReadEntry) => {
      if (failed) return void entry.resume();
      const name = entry.path;
      const problem = check(entry, name);
      if (problem) {
        entry.resume();
        return fail(refuse(name, problem));
      }
      seen.add(name);
      if (!capsuleNames.has(name)) total += entry.size;
      if (total > limits.bytes) {
        entry.resume();
        return fail(refuse(name, `the bundle holds more than the limit of ${limits.bytes} content bytes`));
      }
      if (!manifest) {
        // The manifest comes first, so every later entry is checked against it before its bytes are read.
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => {
          if (failed) return;
          manifestBytes = Buffer.concat(chunks);
          const parsed = parseManifest(manifestBytes);
          if (typeof parsed === 'string') return fail(refuse(MANIFEST_ENTRY, parsed));
          try {
            checkCapsules(parsed, opts.capsuleLimits);
          } catch (error) {
            return fail(error as Error);
          }
          capsuleNames = capsuleEntryNames(parsed);
          manifest = parsed;
        });
        return;
      }
      const declared = manifest.entries.find((e) => e.name === name)!;
      if (opts.keep && !opts.keep(name)) {
        // Hashed as it streams past, never stored: a 1.4 GB image need not be copied to be checked.
        const hash = sha256Stream();
        entry.on('data', (c: Buffer) => hash.update(c));
        pending.push(
          new Promise<void>((done) => {
            entry.on('end', () => {
              const sha256 = hash.digest();
              if (!failed && sha256 !== declared.sha256)
                fail(refuse(name, `its content digest ${sha256} differs from the manifest's ${declared.sha256}`));
              else if (!failed) entries.set(name, { size: entry.size, sha256, file: '' });
              done();
            });
          }),
        );
        return;
      }
      // Numbered by position: a name from the bundle never becomes a path.
      const dest = join(scratch, `entry-${String(count).padStart(6, '0')}`);
      const out = createWriteStream(dest, { flags: 'wx', mode: 0o600 });
      outs.push(out);
      const hash = sha256Stream();
      entry.on('data', (c: Buffer) => hash.update(c));
      entry.pipe(out);
      pending.push(
        new Promise<void>((done) => {
          out.on('close', () => {
            if (failed) return done();
            const sha256 = hash.digest();
            if (sha256 !== declared.sha256)
              fail(refuse(name, `its content digest ${sha256} differs from the manifest's ${declared.sha256}`));
            else entries.set(name, { size: entry.size, sha256, file: dest });
            done();
          });
          out.on('error', (error) => {
            fail(error);
            done();
          });
        }),
      );
    });

    const check = (entry: ReadEntry, name: string): string | undefined => {
      const bad = badName(name);
      if (bad) return bad;
      if (seen.has(name)) return 'a duplicate name';
      count += 1;
      if (count > limits.entries) return `the bundle holds more than the limit of ${limits.entries} entries`;
      if (!manifest) {
        if (name !== MANIFEST_ENTRY) return `the first entry must be ${MANIFEST_ENTRY}`;
        if (entry.size > MANIFEST_MAX_BYTES) return `a manifest of ${entry.size} bytes exceeds ${MANIFEST_MAX_BYTES}`;
        return undefined;
      }
      const declared = manifest.entries.find((e) => e.name === name);
      if (!declared) return 'it is not listed in the manifest';
      if (declared.size !== entry.size) return `its size ${entry.size} disagrees with the manifest's ${declared.size}`;
      return undefined;
    };

    parser.on('end', () => {
      void Promise.all(pending).then(() => {
        if (failed) return;
        if (!manifest || !manifestBytes) return fail(refuse(MANIFEST_ENTRY, 'the bundle has no manifest'));
        const missing = manifest.entries.find((e) => !entries.has(e.name));
        if (missing) return fail(refuse(missing.name, 'the manifest lists it but the bundle does not hold it'));
        resolve({ manifest, manifestBytes, entries });
      });
    });
    input.pipe(headers).pipe(parser);
  });
}
