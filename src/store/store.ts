/**
 * The store: CAS blobs plus the SQLite index, opened once and handed to its parts by concern, all
 * over the one connection: `fileStates` (the file-state cache), `actions` (receipts, the action
 * cache, the latest receipt per label) and `lifecycle` (jobs, runs, attempts, cancellation,
 * recovery). Opening a store runs the recovery pass, so what a killed process left behind becomes
 * `interrupted` under the liveness rule, and never a pass. A damaged index is `ERR_STORE_DAMAGED`
 * (exit 3) wherever it is met: SQLite's own errors through the guarded connection (sqlite.ts), and
 * values vkit never writes (a time that is not a number, a pid that would signal a group) as rows
 * are read by the parts.
 */
import { mkdirSync } from 'node:fs';
import { invalid } from '../errors.js';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { Actions } from './actions.js';
import { Cas } from './cas.js';
import { FileStates } from './file-states.js';
import { immediate, type IndexHandle } from './handle.js';
import { Lifecycle } from './lifecycle.js';
import { ownerAlive, type Owner } from './liveness.js';
import { DDL, MIGRATIONS, USER_VERSION } from './schema.js';
import { damagedIndex, openIndex } from './sqlite.js';

// What callers of the store have always imported from here.
export { newId, type RunRow, STALE_HEARTBEAT_NS } from './lifecycle.js';

export interface StoreOptions {
  /** Wall clock in nanoseconds; injected so tests can age heartbeats. */
  now?: () => bigint;
  /** Whether an attempt's owner still runs; injected only to reach races in tests. */
  alive?: (owner: Owner) => boolean;
}

export const wallClockNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

export class Store implements IndexHandle {
  readonly dir: string;
  /** The SQLite index file, named in every damaged-store error. */
  readonly index: string;
  readonly db: Database.Database;
  readonly cas: Cas;
  readonly now: () => bigint;
  /** The file-state cache (path + hash mode -> fingerprint and digest). */
  readonly fileStates: FileStates;
  /** Receipts, the action cache and the latest receipt per label. */
  readonly actions: Actions;
  /** Jobs, runs, attempts, cancellation and the recovery pass. */
  readonly lifecycle: Lifecycle;
  /** Attempts this store recovered at open: what the recovery pass found. */
  readonly recovered: string[];

  constructor(dir: string, opts: StoreOptions = {}) {
    this.dir = dir;
    this.now = opts.now ?? wallClockNs;
    makeStoreDir(dir);
    // Every SQLite error on this connection is reported as a damaged (or busy) store, exit 3 (sqlite.ts).
    this.index = join(dir, 'index.sqlite');
    this.db = openIndex(this.index);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // Statement journals and sorts in memory: a grouped import or a file-state batch would
      // otherwise write thousands of pages to a temp file nobody keeps.
      this.db.pragma('temp_store = MEMORY');
      this.migrate();
      this.cas = new Cas(dir, this.db);
      const handle: IndexHandle = { db: this.db, index: this.index, now: this.now };
      this.fileStates = new FileStates(handle);
      this.actions = new Actions(handle, this.cas);
      this.lifecycle = new Lifecycle(handle, this.actions, opts.alive ?? ownerAlive);
      this.recovered = this.lifecycle.recover();
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** Creates a new store's tables, or steps an older one forward, in one exclusive transaction. */
  private migrate(): void {
    const current = () => {
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (version < 0) throw damagedIndex(this.index, `its user_version is ${version}, which vkit never writes`);
      return version;
    };
    if (current() >= USER_VERSION) return;
    this.db
      .transaction(() => {
        let version = current(); // read again under the write lock: another process may have migrated
        if (version >= USER_VERSION) return;
        if (version === 0) {
          this.db.exec(DDL);
          version = USER_VERSION;
        }
        for (; version < USER_VERSION; version++) this.db.exec(MIGRATIONS[version]!);
        this.db.pragma(`user_version = ${USER_VERSION}`);
      })
      .exclusive();
  }

  close(): void {
    this.db.close();
  }

  /** Groups many writes (file states, cache rows, across the parts) into one IMMEDIATE transaction (handle.ts). */
  batch<T>(fn: () => T): T {
    return immediate(this, fn);
  }
}

/** The store's directory, made if missing; a path that is (or runs through) something else is a usage error, not a crash. */
function makeStoreDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EACCES' && code !== 'EROFS') throw error;
    throw invalid(
      'ERR_STORE',
      `Expected the store ${dir} to be a directory vkit can create or write (${code})`,
      { path: '--store' },
      'Name a directory with --store, or leave it out (default: <git common dir>/vkit).',
    );
  }
}
