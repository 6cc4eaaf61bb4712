/**
 * Whether anyone committed to a store's index since an earlier look: SQLite's `data_version`, which
 * one connection kept open sees change with every commit made by any other connection, in this
 * process or another (the watched daemon's memo: fast/watched-memo.ts). The connection never writes.
 */
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openIndex } from './sqlite.js';

export class IndexVersion {
  private readonly db: Database.Database;

  constructor(readonly storeDir: string) {
    this.db = openIndex(join(storeDir, 'index.sqlite'));
  }

  /** Changes whenever another connection committed since the last read through this one. */
  read(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  close(): void {
    this.db.close();
  }
}
