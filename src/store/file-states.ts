/**
 * The file-state cache: per absolute path and hash mode, the stat fingerprint a file had when its
 * bytes hashed to a digest, so an unchanged file is not read again. An entry holding a value vkit
 * never writes (a time that is not a number, a digest that is not one) is a damaged store.
 */
import { sep } from 'node:path';
import {
  fingerprintKey,
  RACY_WINDOW_NS,
  reusable,
  type CacheMode,
  type FileStateCache,
  type FileStateEntry,
  type Fingerprint,
} from '../capture/files.js';
import { isSha256Id } from '../hash/index.js';
import { DIGITS, immediate, refuse, type IndexHandle } from './handle.js';

/** At most this many entries wait to be recorded (one transaction each). */
const PUT_GROUP = 1000;

/** What in a file-state entry vkit never writes (its times are parsed, its digest trusted), or undefined. */
function fileStateDamage(entry: FileStateEntry): string | undefined {
  const field = [entry.mtime_ns, entry.ctime_ns, entry.ino, entry.recorded_ns].find((t) => !DIGITS.test(t));
  if (field !== undefined) return `\`${field}\` for a time or inode`;
  return isSha256Id(entry.sha256) ? undefined : `digest \`${entry.sha256}\``;
}

export class FileStates implements FileStateCache {
  private readonly stmts;

  constructor(private readonly handle: IndexHandle) {
    const { db } = handle;
    this.stmts = {
      fsGet: db.prepare<[string, string], FileStateEntry>(
        'SELECT size, mtime_ns, ctime_ns, ino, sha256, recorded_ns FROM file_states WHERE path = ? AND mode = ?',
      ),
      // `clean`: recorded outside the racy window, computed by SQLite so a no-op parses no timestamps.
      fsUnder: db.prepare<[string, string, string]>(
        "SELECT path, mode, size || ':' || mtime_ns || ':' || ctime_ns || ':' || ino, sha256 FROM file_states WHERE path >= ? AND path < ? AND mode <> 'text' AND CAST(mtime_ns AS INTEGER) < CAST(recorded_ns AS INTEGER) - CAST(? AS INTEGER)",
      ),
      // Positional parameters: binding by name costs an object per row (a fresh clone records thousands).
      fsPut: db.prepare<[string, CacheMode, number, string, string, string, string, string]>(
        'INSERT OR REPLACE INTO file_states (path, mode, size, mtime_ns, ctime_ns, ino, sha256, recorded_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  get(absPath: string, mode: CacheMode): FileStateEntry | undefined {
    const entry = this.stmts.fsGet.get(absPath, mode);
    if (entry) refuse(this.handle, `the file state of ${absPath}`, fileStateDamage(entry));
    return entry;
  }

  reuse(absPath: string, mode: CacheMode, fp: Fingerprint): string | undefined {
    const entry = this.get(absPath, mode);
    return reusable(entry, fp) ? entry.sha256 : undefined;
  }

  put(absPath: string, mode: CacheMode, entry: FileStateEntry): void {
    this.write(absPath, mode, entry);
  }

  private write(path: string, mode: CacheMode, e: FileStateEntry): void {
    this.stmts.fsPut.run(path, mode, e.size, e.mtime_ns, e.ctime_ns, e.ino, e.sha256, e.recorded_ns);
  }

  /**
   * Many entries in one transaction: one commit, not one per entry (a fresh clone's 3,000 cost
   * ~170 ms of commits, profiled).
   */
  private putMany(entries: ReadonlyArray<{ path: string; mode: CacheMode; entry: FileStateEntry }>): void {
    if (entries.length === 0) return;
    immediate(this.handle, () => {
      for (const { path, mode, entry } of entries) this.write(path, mode, entry);
    });
  }

  /**
   * What a build's cache records, in groups (`putMany`): kept back until `flush`, or until
   * `PUT_GROUP` entries wait. A build flushes before its first job starts (a worker process reuses
   * what the captures learnt) and when it ends; entries lost to a crash in between only cost a
   * re-hash.
   */
  private group(): { put(path: string, mode: CacheMode, entry: FileStateEntry): void; flush(): void } {
    let waiting: Array<{ path: string; mode: CacheMode; entry: FileStateEntry }> = [];
    const flush = () => {
      const taken = waiting;
      waiting = [];
      this.putMany(taken);
    };
    return {
      put: (path, mode, entry) => {
        waiting.push({ path, mode, entry });
        if (waiting.length >= PUT_GROUP) flush();
      },
      flush,
    };
  }

  /** A cache that reuses nothing and records every digest (`--deep`), in groups. */
  rehashing(): FileStateCache {
    const { put, flush } = this.group();
    return { reuse: () => undefined, put, flush };
  }

  /**
   * The file states of every path under `dir`, read with one query into memory, recording into the
   * index in groups (`flush`). An entry read here may be older than one another process writes
   * meanwhile; that is safe, because an entry is only used when the file's fingerprint still
   * matches it and it was not racily clean, and a stale one only costs a re-hash.
   */
  under(dir: string): FileStateCache {
    const lo = dir.endsWith(sep) ? dir : dir + sep;
    // Every path starting with `lo` sorts before `lo` with its last character incremented.
    const hi = lo.slice(0, -1) + String.fromCharCode(lo.charCodeAt(lo.length - 1) + 1);
    // Only entries that were not racily clean when recorded (SQLite compares the timestamps, so a
    // no-op parses none), never the retired `text` key (see CacheMode), as raw rows [path, mode,
    // fingerprint key, sha256] in one map per hash mode, entry objects made only on demand: loading
    // tens of thousands of rows is dominated by allocation otherwise.
    const loaded: Record<CacheMode, Map<string, unknown[]>> = {
      'text:same': new Map(),
      'text:crlf': new Map(),
      raw: new Map(),
    };
    // All rows in one call: a guarded iterator's step per row cost more than the rows' array.
    for (const r of this.stmts.fsUnder.raw(true).all(lo, hi, String(RACY_WINDOW_NS)) as unknown[][])
      loaded[r[1] as CacheMode]?.set(r[0] as string, r);
    const recorded = this.group();
    const byKey = (absPath: string, mode: CacheMode, key: string): string | undefined => {
      const r = loaded[mode].get(absPath);
      if (!r || r[2] !== key) return undefined;
      if (!isSha256Id(r[3])) refuse(this.handle, `the file state of ${absPath}`, `digest \`${String(r[3])}\``);
      return r[3] as string;
    };
    return {
      reuse: (absPath, mode, fp) =>
        absPath.startsWith(lo) ? byKey(absPath, mode, fingerprintKey(fp)) : this.reuse(absPath, mode, fp),
      // Outside the root the entry is not loaded: no answer here, `reuse` asks the index.
      reuseKey: (absPath, mode, key) => (absPath.startsWith(lo) ? byKey(absPath, mode, key) : undefined),
      put: (absPath, mode, entry) => {
        recorded.put(absPath, mode, entry);
        if (!absPath.startsWith(lo)) return;
        if (reusable(entry, entry)) loaded[mode].set(absPath, [absPath, mode, fingerprintKey(entry), entry.sha256]);
        else loaded[mode].delete(absPath);
      },
      flush: recorded.flush,
    };
  }
}
