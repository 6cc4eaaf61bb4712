/**
 * Content-addressed blobs under `<store>/cas/`. Writes go to a temp file, are fsynced and renamed
 * into place, so a reader never sees half a blob. Each blob's stat fingerprint is recorded when
 * written or last verified; an unchanged fingerprint counts as intact, anything else is re-hashed.
 */
import {
  close,
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  fsync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  utimesSync,
  write,
  writeSync,
  open as openFile,
} from 'node:fs';
import { lstat, mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Database } from 'better-sqlite3';
import { fingerprintOf, sameFingerprint, streamDigest, type Fingerprint } from '../capture/files.js';
import { hexOf, sha256Id, sha256Stream, type Sha256Id } from '../hash/index.js';

export type BlobState = 'intact' | 'missing' | 'altered';

type FingerprintRow = Fingerprint & { id: string };

/** Larger blobs are verified by streaming before `readVerified` reads them whole. */
const READ_WHOLE_UP_TO = 64 * 1024 * 1024;

export class Cas {
  readonly dir: string;
  private readonly tmp: string;
  private readonly getFp;
  private readonly putFp;
  private readonly delFp;
  private readonly recordAll: (rows: FingerprintRow[]) => void;
  /** Fingerprints of blobs the async paths installed, recorded together once the event loop turns. */
  private installed: FingerprintRow[] = [];
  private seq = 0;
  /** Shard directories known to exist: a fill installs thousands of blobs, one mkdir each otherwise. */
  private readonly shards = new Set<string>();

  constructor(root: string, db: Database) {
    this.dir = join(root, 'cas');
    this.tmp = join(root, 'tmp');
    mkdirSync(this.dir, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
    this.getFp = db.prepare<[string], Fingerprint>('SELECT size, mtime_ns, ctime_ns, ino FROM blobs WHERE id = ?');
    this.putFp = db.prepare(
      'INSERT OR REPLACE INTO blobs (id, size, mtime_ns, ctime_ns, ino) VALUES (@id, @size, @mtime_ns, @ctime_ns, @ino)',
    );
    this.delFp = db.prepare('DELETE FROM blobs WHERE id = ?');
    this.recordAll = db.transaction((rows: FingerprintRow[]) => {
      for (const row of rows) this.putFp.run(row);
    });
  }

  pathOf(id: string): string {
    const hex = hexOf(id as Sha256Id);
    return join(this.dir, hex.slice(0, 2), hex.slice(2));
  }

  tempPath(): string {
    return join(this.tmp, `${process.pid}-${Date.now()}-${this.seq++}`);
  }

  putBytes(data: Uint8Array | string): { sha256: string; size: number } {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const id = sha256Id(bytes);
    if (!this.reuse(id)) {
      const temp = this.tempPath();
      const fd = openSync(temp, 'w');
      try {
        writeSync(fd, bytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.install(temp, id);
    }
    return { sha256: id, size: bytes.length };
  }

  /**
   * As `putBytes`, with the write and its fsync off the main thread: many can be in flight at once
   * (a remote fill imports hundreds of receipts, and a synchronous fsync each would serialise them).
   * The blob is always written anew, never looked up first: its callers write blobs the store
   * lacks (a download of a blob found missing, an imported receipt), and a copy already in place is
   * replaced by the same bytes with a fresh mtime, which spares it from a concurrent gc as `reuse`
   * would.
   */
  async putBytesAsync(data: Uint8Array | string): Promise<{ sha256: string; size: number }> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const id = sha256Id(bytes);
    const temp = this.tempPath();
    await writeDurably(temp, bytes);
    await this.installAsync(temp, id);
    return { sha256: id, size: bytes.length };
  }

  /**
   * Takes a finished file written at a `tempPath()` (a download) as a blob: hashed again here and
   * synced off the main thread, then renamed into place; the file is gone afterwards either way.
   */
  async adopt(temp: string): Promise<{ sha256: string; size: number }> {
    const fh = await open(temp, 'r');
    let id: string;
    let size = 0;
    try {
      const hash = sha256Stream();
      for await (const chunk of fh.createReadStream({ autoClose: false })) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      await fh.sync();
      id = hash.digest();
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    } finally {
      await fh.close();
    }
    if (this.reuse(id)) rmSync(temp, { force: true });
    else await this.installAsync(temp, id);
    return { sha256: id, size };
  }

  /** Copies a file into the CAS, hashing while streaming so large outputs never sit in memory. */
  putFile(src: string): Promise<{ sha256: string; size: number }> {
    return this.putStream(createReadStream(src));
  }

  /** Writes the bytes `chunks` yields as one blob, hashing while streaming. */
  async putStream(chunks: AsyncIterable<Uint8Array>): Promise<{ sha256: string; size: number }> {
    const temp = this.tempPath();
    const hash = sha256Stream();
    const fd = openSync(temp, 'w');
    let size = 0;
    try {
      for await (const chunk of chunks) {
        hash.update(chunk);
        writeSync(fd, chunk);
        size += chunk.length;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const id = hash.digest();
    if (this.reuse(id)) rmSync(temp, { force: true });
    else this.install(temp, id);
    return { sha256: id, size };
  }

  /**
   * Whether a blob already in the CAS can stand for a new write of the same bytes. It is touched (and
   * its fingerprint recorded again): `store gc` spares blobs written since the oldest running attempt
   * started, and an attempt naming an old blob it did not rewrite would otherwise lose it to a
   * concurrent gc. A blob that cannot be touched (gone meanwhile, another owner's) is written anew.
   */
  private reuse(id: string): boolean {
    if (this.state(id, false) !== 'intact') return false;
    const path = this.pathOf(id);
    try {
      const now = new Date();
      utimesSync(path, now, now);
      this.putFp.run({ id, ...fingerprintOf(lstatSync(path, { bigint: true })) });
      return true;
    } catch {
      return false;
    }
  }

  /** Moves a finished temp file into place (replacing a damaged copy) and records its fingerprint. */
  private install(temp: string, id: string): void {
    const dest = this.pathOf(id);
    const shard = join(dest, '..');
    if (!this.shards.has(shard)) {
      mkdirSync(shard, { recursive: true });
      this.shards.add(shard);
    }
    renameSync(temp, dest);
    this.putFp.run({ id, ...fingerprintOf(lstatSync(dest, { bigint: true })) });
  }

  /**
   * `install` for the async paths: the directory, rename and stat in libuv's pool (a fill installs
   * thousands of blobs, and the main thread is what it waits on), and the fingerprint recorded with
   * the others installed in the same turn, in one transaction. Until then the blob has no recorded
   * fingerprint, which only means a check re-hashes it; a lost write (a crash, a store closed
   * first, a busy index) costs the same and nothing more.
   */
  private async installAsync(temp: string, id: string): Promise<void> {
    const dest = this.pathOf(id);
    const shard = join(dest, '..');
    if (!this.shards.has(shard)) {
      await mkdir(shard, { recursive: true });
      this.shards.add(shard);
    }
    await rename(temp, dest);
    const row = { id, ...fingerprintOf(await lstat(dest, { bigint: true })) };
    if (this.installed.push(row) === 1) setImmediate(() => this.recordInstalled());
  }

  /**
   * Records the fingerprints the async paths are holding. A caller about to commit rows naming
   * those blobs calls it first, inside its transaction, so the next check of them is a stat.
   */
  recordInstalled(): void {
    if (this.installed.length === 0) return;
    const rows = this.installed;
    this.installed = [];
    try {
      this.recordAll(rows);
    } catch {
      // Unrecorded fingerprints are re-hashed when next checked (see installAsync).
    }
  }

  read(id: string): Buffer {
    return readFileSync(this.pathOf(id));
  }

  /**
   * A blob's bytes when they are the ones its id names (receipts are read this way). A file larger
   * than READ_WHOLE_UP_TO is hashed by streaming first and read only if intact, so a hostile huge
   * file in place of a receipt is never loaded. One found altered loses its recorded fingerprint, as
   * in `state`: a shallow check then reads it again instead of trusting its stat.
   */
  readVerified(id: string): { state: 'intact'; bytes: Buffer } | { state: Exclude<BlobState, 'intact'> } {
    const read = this.readChecked(id);
    if (read.state === 'altered') this.delFp.run(id);
    return read;
  }

  private readChecked(id: string): { state: 'intact'; bytes: Buffer } | { state: Exclude<BlobState, 'intact'> } {
    const path = this.pathOf(id);
    let fd: number;
    try {
      // No lstat first (a no-op build reads every receipt): O_NOFOLLOW refuses a symlink planted
      // here (ELOOP) and O_NONBLOCK keeps a FIFO from blocking the open; fstat says what opened.
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      return { state: (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'altered' : 'missing' };
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return { state: 'altered' };
      if (st.size > READ_WHOLE_UP_TO && streamDigest(path, 'raw') !== id) return { state: 'altered' };
      const bytes = Buffer.allocUnsafe(st.size);
      let n = 0;
      while (n < bytes.length) {
        const got = readSync(fd, bytes, n, bytes.length - n, n);
        if (got === 0) break;
        n += got;
      }
      return n === bytes.length && sha256Id(bytes) === id ? { state: 'intact', bytes } : { state: 'altered' };
    } catch {
      return { state: 'missing' };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * A blob's bytes in chunks of at most 1 MiB, or only its last `last` bytes: logs are read this
   * way, so one of any size costs one chunk of memory. A chunk is valid until the next one is asked for.
   */
  *chunks(id: string, last = Infinity): Generator<Buffer> {
    const fd = openSync(this.pathOf(id), 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let at = Math.max(0, size - last); ; ) {
        const n = readSync(fd, buf, 0, buf.length, at);
        if (n === 0) return;
        at += n;
        yield buf.subarray(0, n);
      }
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Whether a blob is intact. With `deep`, or when the stat fingerprint differs from the recorded
   * one, the bytes are re-hashed; a matching re-hash refreshes the fingerprint.
   */
  state(id: string, deep: boolean): BlobState {
    const path = this.pathOf(id);
    let st;
    try {
      // No exception for the common miss (a fill asks for every blob it is about to bring in).
      st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    } catch {
      return 'missing';
    }
    if (!st) return 'missing';
    if (!st.isFile()) return 'altered';
    const now = fingerprintOf(st);
    const recorded = this.getFp.get(id);
    if (!deep && recorded && sameFingerprint(recorded, now)) return 'intact';
    if (streamDigest(path, 'raw') !== id) {
      // A blob found altered loses its recorded fingerprint, so later shallow checks (the next
      // build's hit check) re-hash it too instead of trusting a stat that was recorded as intact.
      this.delFp.run(id);
      return 'altered';
    }
    this.putFp.run({ id, ...now });
    return 'intact';
  }

  /**
   * Whether the blob's file is a regular file with exactly this stat fingerprint (what the index
   * recorded when it was written or last verified): the shallow intact check without a query.
   */
  hasFingerprint(id: string, fp: Fingerprint): boolean {
    let st;
    try {
      st = lstatSync(this.pathOf(id), { bigint: true, throwIfNoEntry: false });
    } catch {
      return false;
    }
    return st !== undefined && st.isFile() && sameFingerprint(fp, fingerprintOf(st));
  }

  /** The stat fingerprint the index recorded for the blob's file, if any. */
  recordedFingerprint(id: string): Fingerprint | undefined {
    return this.getFp.get(id);
  }

  remove(id: string): void {
    rmSync(this.pathOf(id), { force: true });
    this.delFp.run(id);
  }
}

const openAsync = promisify(openFile);
const writeAsync = promisify(write);
const fsyncAsync = promisify(fsync);
const closeAsync = promisify(close);

/**
 * Writes `bytes` to a new file and syncs it, in libuv's pool through the callback API: a
 * `FileHandle` (fs/promises) cost the main thread about twice as much per file (2,000 blobs of
 * 3 KB: 220-242 against 127-157 ms of main-thread time, measured), and a fill writes thousands.
 */
async function writeDurably(path: string, bytes: Uint8Array): Promise<void> {
  const fd = await openAsync(path, 'w');
  try {
    for (let at = 0; at < bytes.length; ) {
      const { bytesWritten } = await writeAsync(fd, bytes, at, bytes.length - at);
      if (bytesWritten === 0) throw new Error(`writing ${path} made no progress`);
      at += bytesWritten;
    }
    await fsyncAsync(fd);
  } finally {
    await closeAsync(fd);
  }
}
