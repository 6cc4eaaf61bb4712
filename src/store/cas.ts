/**
 * Content-addressed blobs under `<store>/cas/`. Writes go to a temp file, are fsynced and renamed
 * into place, so a reader never sees half a blob. Each blob's stat fingerprint is recorded when
 * written or last verified; an unchanged fingerprint counts as intact, anything else is re-hashed.
 */
import { closeSync, createReadStream, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { fingerprintOf, sameFingerprint, type Fingerprint } from '../capture/files.js';
import { hexOf, sha256Id, sha256Stream, type Sha256Id } from '../hash/index.js';

export type BlobState = 'intact' | 'missing' | 'altered';

export class Cas {
  readonly dir: string;
  private readonly tmp: string;
  private readonly getFp;
  private readonly putFp;
  private readonly delFp;
  private seq = 0;

  constructor(root: string, db: Database) {
    this.dir = join(root, 'cas');
    this.tmp = join(root, 'tmp');
    mkdirSync(this.dir, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
    this.getFp = db.prepare<[string], Fingerprint>('SELECT size, mtime_ns, ctime_ns, ino FROM blobs WHERE id = ?');
    this.putFp = db.prepare('INSERT OR REPLACE INTO blobs (id, size, mtime_ns, ctime_ns, ino) VALUES (@id, @size, @mtime_ns, @ctime_ns, @ino)');
    this.delFp = db.prepare('DELETE FROM blobs WHERE id = ?');
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

  /** Copies a file into the CAS, hashing while streaming so large outputs never sit in memory. */
  async putFile(src: string): Promise<{ sha256: string; size: number }> {
    const temp = this.tempPath();
    const hash = sha256Stream();
    const fd = openSync(temp, 'w');
    let size = 0;
    try {
      for await (const chunk of createReadStream(src)) {
        hash.update(chunk as Buffer);
        writeSync(fd, chunk as Buffer);
        size += (chunk as Buffer).length;
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
    mkdirSync(join(dest, '..'), { recursive: true });
    renameSync(temp, dest);
    this.putFp.run({ id, ...fingerprintOf(lstatSync(dest, { bigint: true })) });
  }

  read(id: string): Buffer {
    return readFileSync(this.pathOf(id));
  }

  /**
   * Whether a blob is intact. With `deep`, or when the stat fingerprint differs from the recorded
   * one, the bytes are re-hashed; a matching re-hash refreshes the fingerprint.
   */
  state(id: string, deep: boolean): BlobState {
    const path = this.pathOf(id);
    let st;
    try {
      st = lstatSync(path, { bigint: true });
    } catch {
      return 'missing';
    }
    if (!st.isFile()) return 'altered';
    const now = fingerprintOf(st);
    const recorded = this.getFp.get(id);
    if (!deep && recorded && sameFingerprint(recorded, now)) return 'intact';
    if (sha256Id(readFileSync(path)) !== id) {
      // A blob found altered loses its recorded fingerprint, so later shallow checks (the next
      // build's hit check) re-hash it too instead of trusting a stat that was recorded as intact.
      this.delFp.run(id);
      return 'altered';
    }
    this.putFp.run({ id, ...now });
    return 'intact';
  }

  remove(id: string): void {
    rmSync(this.pathOf(id), { force: true });
    this.delFp.run(id);
  }
}
