/**
 * Hashing files through the file-state cache. A file's digest is reused when its stat fingerprint
 * `(size, mtime_ns, ctime_ns, ino)` is unchanged and it was not "racily clean" when recorded (git's
 * rule: a file modified within 2 s of being hashed may change again inside the same timestamp tick).
 */
import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, type BigIntStats } from 'node:fs';
import { sha256Id, sha256Stream } from '../hash/index.js';

export type HashMode = 'raw' | 'text';

/**
 * What a file-state entry's digest is, as the cache keys it. `raw`: the raw bytes. A text-mode hash
 * is recorded as `text:same` when normalising changed nothing (the raw digest is the same), or as
 * `text:crlf` beside a `raw` entry of the same fingerprint when it did: a text hash then yields the
 * raw digest too (receipts record it beside the normalised one) without reading the file again, and
 * an unchanged LF file still costs one lookup. Entries of the earlier `text` key made no such
 * promise and are not read.
 */
export type CacheMode = 'raw' | 'text:same' | 'text:crlf';

export interface Fingerprint {
  size: number;
  mtime_ns: string;
  ctime_ns: string;
  ino: string;
}

export interface FileStateEntry extends Fingerprint {
  sha256: string;
  recorded_ns: string;
}

/** The store implements this; captures only need reuse/put. */
export interface FileStateCache {
  /** The recorded digest, when the entry's fingerprint equals `fp` and it was not racily clean when recorded. */
  reuse(absPath: string, mode: CacheMode, fp: Fingerprint): string | undefined;
  /**
   * `reuse` by the fingerprint's key (`fingerprintKey`), for a cache that holds keys (the store's
   * bulk load): the capture's fast path. Undefined is only "not answered here".
   */
  reuseKey?(absPath: string, mode: CacheMode, key: string): string | undefined;
  put(absPath: string, mode: CacheMode, entry: FileStateEntry): void;
  /** Writes entries `put` kept back (the store's bulk cache groups them into one transaction). */
  flush?(): void;
}

/** Whether a recorded entry still stands for the file: same fingerprint, and not racily clean. */
export function reusable(entry: FileStateEntry | undefined, fp: Fingerprint): entry is FileStateEntry {
  return (
    entry !== undefined &&
    sameFingerprint(entry, fp) &&
    BigInt(entry.mtime_ns) < BigInt(entry.recorded_ns) - RACY_WINDOW_NS
  );
}

export const RACY_WINDOW_NS = 2_000_000_000n;

/** Files larger than this are hashed through one reused buffer of this size. */
const CHUNK = 1 << 20;
let chunk: Buffer | undefined;

export function fingerprintOf(st: BigIntStats): Fingerprint {
  return { size: Number(st.size), mtime_ns: String(st.mtimeNs), ctime_ns: String(st.ctimeNs), ino: String(st.ino) };
}

/** The fingerprint as one string, `size:mtime_ns:ctime_ns:ino` (what the store's bulk load compares). */
export function fingerprintKey(fp: Fingerprint): string {
  return `${fp.size}:${fp.mtime_ns}:${fp.ctime_ns}:${fp.ino}`;
}

export function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  return a.size === b.size && a.mtime_ns === b.mtime_ns && a.ctime_ns === b.ctime_ns && a.ino === b.ino;
}

/** Git-style file mode string. */
export function modeOf(st: BigIntStats): string {
  if (st.isSymbolicLink()) return '120000';
  return (Number(st.mode) & 0o111) !== 0 ? '100755' : '100644';
}

/** True for bytes git would call binary: a NUL in the first 8,000 bytes. */
function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Content identity in text mode: CRLF -> LF for text files, raw bytes for binary ones. */
export function textDigest(bytes: Buffer): string {
  if (isBinary(bytes) || !bytes.includes(0x0d)) return sha256Id(bytes);
  return sha256Id(Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1'));
}

export interface HashedFile {
  mode: string;
  sha256: string;
  fingerprint: Fingerprint;
  /** Text mode only, and only when it differs from `sha256` (CRLF was normalised): the raw bytes' digest. */
  raw?: string;
}

/** What hashing a path may reuse and record: the file-state cache, its clock, and a tally of both. */
export interface FileStates {
  cache?: FileStateCache;
  /** The clock the cache's racy-window rule reads. */
  now: () => bigint;
  counter?: HashCounter;
}

export interface HashCounter {
  hashed: number;
  reused: number;
}

/**
 * Hashes one path (regular file, or a symlink as its target string, never followed). Returns
 * undefined for paths that vanished; throws for special files, which no capture accepts.
 */
export function hashPath(absPath: string, hashMode: HashMode, states: FileStates): HashedFile | undefined {
  const st = lstatOf(absPath);
  return st && hashStatted(absPath, st, hashMode, states);
}

/** The path's lstat, or undefined when it is gone. */
function lstatOf(absPath: string): BigIntStats | undefined {
  try {
    return lstatSync(absPath, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `hashPath` from the lstat just taken of the path. */
function hashStatted(absPath: string, st: BigIntStats, hashMode: HashMode, states: FileStates): HashedFile {
  const { cache, now, counter } = states;
  const fingerprint = fingerprintOf(st);
  const mode = modeOf(st);
  if (st.isSymbolicLink()) return { mode, sha256: sha256Id(readlinkSync(absPath)), fingerprint };
  if (!st.isFile()) throw new SpecialFileError(absPath);
  const reused = reuse(cache, absPath, hashMode, fingerprint);
  if (reused) {
    if (counter) counter.reused++;
    return { mode, ...reused, fingerprint };
  }
  // One descriptor for the read and the look after it: a small file's bytes go into a reused
  // buffer (no allocation per file), and the fingerprint after the read is the open file's own,
  // the inode the bytes came from (a file renamed over the path meanwhile is a new inode, which
  // the next lstat sees).
  const fd = openSync(absPath, 'r');
  let digests: { sha256: string; raw?: string };
  let after: BigIntStats;
  try {
    digests =
      st.size > BigInt(CHUNK) ? streamDigestsOf(fd, hashMode) : digestsOf(readUpTo(fd, Number(st.size)), hashMode);
    after = fstatSync(fd, { bigint: true });
  } finally {
    closeSync(fd);
  }
  if (counter) counter.hashed++;
  // Only remember a digest whose file did not change while it was read; the fingerprint returned
  // is the one from before the read, so a later comparison still sees the change.
  if (cache && sameFingerprint(fingerprint, fingerprintOf(after))) {
    const recorded_ns = String(now());
    // The raw entry first: a `text:crlf` entry is only ever read with its raw partner.
    if (digests.raw) cache.put(absPath, 'raw', { ...fingerprint, sha256: digests.raw, recorded_ns });
    cache.put(absPath, hashMode === 'raw' ? 'raw' : digests.raw ? 'text:crlf' : 'text:same', {
      ...fingerprint,
      sha256: digests.sha256,
      recorded_ns,
    });
  }
  return { mode, ...digests, fingerprint };
}

/** The recorded digests for an unchanged fingerprint; a `text:crlf` entry without its raw partner is no answer. */
function reuse(
  cache: FileStateCache | undefined,
  absPath: string,
  hashMode: HashMode,
  fp: Fingerprint,
): { sha256: string; raw?: string } | undefined {
  return cache && recorded((mode) => cache.reuse(absPath, mode, fp), hashMode);
}

/** What `ask` (a cache entry's digest under one mode, if it stands) answers for a hash mode. */
function recorded(
  ask: (mode: CacheMode) => string | undefined,
  hashMode: HashMode,
): { sha256: string; raw?: string } | undefined {
  if (hashMode === 'raw') {
    const sha256 = ask('raw');
    return sha256 ? { sha256 } : undefined;
  }
  const same = ask('text:same');
  if (same) return { sha256: same };
  const sha256 = ask('text:crlf');
  const raw = sha256 && ask('raw');
  return sha256 && raw ? { sha256, raw } : undefined;
}

/** What a capture holds of a path: `HashedFile` without the fingerprint. */
export type CapturedFile = Omit<HashedFile, 'fingerprint'>;

/**
 * `hashPath` for a capture, which asks it of every input: a regular file whose recorded digest
 * still stands under its fingerprint is answered from one lstat and that fingerprint's key, with
 * no fingerprint object (at 11,000 inputs, ~8 ms of a build's CPU and garbage; D59). Anything else
 * (a cache without keys, a link, a special file, a file to hash) is `hashPath`'s answer, from the
 * same lstat.
 */
export function capturePath(absPath: string, hashMode: HashMode, states: FileStates): CapturedFile | undefined {
  const { cache, counter } = states;
  const reuseKey = cache?.reuseKey?.bind(cache);
  if (!reuseKey) return hashPath(absPath, hashMode, states);
  const st = lstatOf(absPath);
  if (!st) return undefined;
  if (st.isFile()) {
    // `fingerprintKey(fingerprintOf(st))`, without the object in between.
    const key = `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
    const reused = recorded((mode) => reuseKey(absPath, mode, key), hashMode);
    if (reused) {
      if (counter) counter.reused++;
      return reused.raw
        ? { mode: modeOf(st), sha256: reused.sha256, raw: reused.raw }
        : { mode: modeOf(st), sha256: reused.sha256 };
    }
  }
  return hashStatted(absPath, st, hashMode, states);
}

/** The mode's digest of `bytes`, and in text mode the raw digest too when normalising changed the bytes. */
function digestsOf(bytes: Buffer, hashMode: HashMode): { sha256: string; raw?: string } {
  const raw = sha256Id(bytes);
  if (hashMode === 'raw' || isBinary(bytes) || !bytes.includes(0x0d)) return { sha256: raw };
  const sha256 = textDigest(bytes);
  return sha256 === raw ? { sha256 } : { sha256, raw };
}

/**
 * The digest `digestOf` would give, read through one reused buffer: a large file is never read into
 * a fresh allocation (which costs about as much as hashing it, and fails past 2 GiB). Text mode
 * normalises CRLF while streaming, unless the file is binary (NUL in the first 8,000 bytes). The
 * CAS verifies blobs with it too (raw).
 */
export function streamDigest(absPath: string, hashMode: HashMode): string {
  return streamDigests(absPath, hashMode).sha256;
}

/**
 * `streamDigest`, and in text mode the raw digest beside it when normalising changed the bytes: a
 * text file's raw bytes are hashed in the same pass (binary files and raw mode hash once).
 */
function streamDigests(absPath: string, hashMode: HashMode): { sha256: string; raw?: string } {
  const fd = openSync(absPath, 'r');
  try {
    return streamDigestsOf(fd, hashMode);
  } finally {
    closeSync(fd);
  }
}

/** `streamDigests` of an open file, from its current position. */
function streamDigestsOf(fd: number, hashMode: HashMode): { sha256: string; raw?: string } {
  chunk ??= Buffer.allocUnsafe(CHUNK);
  let n = fill(fd, chunk);
  const hash = sha256Stream();
  const raw = hashMode === 'text' && !isBinary(chunk.subarray(0, n)) ? sha256Stream() : undefined;
  const update = raw ? crlfToLf(hash.update) : hash.update;
  while (n > 0) {
    update(chunk.subarray(0, n));
    raw?.update(chunk.subarray(0, n));
    n = fill(fd, chunk);
  }
  update(new Uint8Array(0)); // a CR held back at the very end is a lone CR: written now
  const sha256 = hash.digest();
  const rawDigest = raw?.digest();
  return rawDigest && rawDigest !== sha256 ? { sha256, raw: rawDigest } : { sha256 };
}

/**
 * The first `size` bytes of an open file (fewer if it ended sooner), in the reused buffer: valid
 * until the next read through it. `size` is at most CHUNK.
 */
function readUpTo(fd: number, size: number): Buffer {
  chunk ??= Buffer.allocUnsafe(CHUNK);
  return chunk.subarray(0, fill(fd, chunk.subarray(0, size)));
}

/**
 * A sink that passes bytes on with every CRLF turned into LF, across chunk boundaries: a CR ending
 * one chunk is held until the next chunk's first byte says whether it starts a CRLF. An empty chunk
 * ends the stream (a held CR is then written as it is).
 */
function crlfToLf(sink: (bytes: Uint8Array) => void): (bytes: Buffer | Uint8Array) => void {
  let heldCr = false;
  return (bytes) => {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (heldCr && buf[0] !== 0x0a) sink(CR);
    heldCr = false;
    let from = 0;
    for (let cr = buf.indexOf(0x0d); cr !== -1; cr = buf.indexOf(0x0d, cr + 1)) {
      if (cr === buf.length - 1) {
        sink(buf.subarray(from, cr));
        heldCr = true;
        return;
      }
      if (buf[cr + 1] === 0x0a) {
        sink(buf.subarray(from, cr));
        from = cr + 1;
      }
    }
    sink(buf.subarray(from));
  };
}

const CR = Buffer.from('\r');

/** Reads until the buffer is full or the file ends, so the first chunk always holds the first 8,000 bytes. */
function fill(fd: number, buf: Buffer): number {
  let n = 0;
  while (n < buf.length) {
    const got = readSync(fd, buf, n, buf.length - n, null);
    if (got === 0) break;
    n += got;
  }
  return n;
}

export class SpecialFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} is not a regular file or symlink`);
  }
}
