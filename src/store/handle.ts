/**
 * What the store's parts (file states, actions, lifecycle) share: the one guarded connection to the
 * index, its path (named in every damaged-store error) and the store's clock, plus the refusal of a
 * value vkit never writes.
 */
import type Database from 'better-sqlite3';
import { damagedIndex } from './sqlite.js';

export interface IndexHandle {
  readonly db: Database.Database;
  /** The SQLite index file, named in every damaged-store error. */
  readonly index: string;
  /** Wall clock in nanoseconds. */
  readonly now: () => bigint;
}

/** A time or inode as vkit writes it: decimal digits. */
export const DIGITS = /^[0-9]+$/;

/** Throws the damaged-store error when `damage` names a value in `what` that vkit never writes. */
export function refuse(handle: IndexHandle, what: string, damage: string | undefined): void {
  if (damage) throw damagedIndex(handle.index, `${what} holds ${damage}, which vkit never writes`);
}

/**
 * Runs `fn` in one write transaction. BEGIN IMMEDIATE: a deferred transaction that reads first and
 * then writes gets SQLITE_BUSY at once in WAL mode when another writer committed meanwhile (the busy
 * timeout cannot help a stale snapshot); taking the write lock up front makes it wait its turn
 * instead ("database is locked" under concurrent faces).
 */
export function immediate<T>(handle: IndexHandle, fn: () => T): T {
  return handle.db.transaction(fn).immediate();
}
