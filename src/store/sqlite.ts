/**
 * The one place vkit talks to SQLite. Every call on the connection, its statements, their iterators
 * and its transactions goes through a guard that turns a SQLite error into a `VkitError`: a damaged
 * or unusable index (a truncated file, a dropped table, a bad page, a full disk) is damaged
 * evidence, exit 3 with the way out, never an internal error, on whatever path it is met (a face,
 * a worker, a timer of the job service). A lock held past the busy timeout, and an index this user
 * may not write (another user's store, access.ts), are their own errors, since moving the index
 * aside would be the wrong advice.
 */
import Database from 'better-sqlite3';
import { EXIT, VkitError } from '../errors.js';
import { unwritableIndex } from './access.js';

const BUSY = /^SQLITE_(BUSY|LOCKED)/;

/** The error a SQLite failure on the index at `path` is reported as; anything else is returned as it is. */
function indexError(path: string, error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  const why = `${error.code}: ${error.message}`;
  if (BUSY.test(error.code)) {
    return new VkitError(
      'ERR_STORE_BUSY',
      EXIT.blocked,
      `the store index ${path} stayed locked by another process (${why})`,
      {
        where: path,
        hint: 'Another vkit process holds the store; run the command again when it is done.',
        cause: error,
      },
    );
  }
  // An index out of this user's reach is not damaged: moving it aside would throw evidence away.
  return unwritableIndex(path, why, error) ?? damagedIndex(path, why, error);
}

/** The error for a damaged index: what SQLite said, or what vkit read in it that it never writes. */
export function damagedIndex(path: string, why: string, cause?: unknown): VkitError {
  return new VkitError(
    'ERR_STORE_DAMAGED',
    EXIT.blocked,
    `the store index ${path} is damaged or unusable (${why}): no evidence in it can be trusted`,
    {
      where: path,
      hint: `Check that the disk has room and the store is writable; if it is, move ${path} aside (with its -wal and -shm files): the next build starts an empty index and reruns every check.`,
      cause,
    },
  );
}

/** Opens the index with every SQLite error reported through `indexError`. */
export function openIndex(path: string): Database.Database {
  return guardObject(
    guarded(path, () => new Database(path, { timeout: 10_000 })),
    path,
  );
}

function guarded<T>(path: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw indexError(path, error);
  }
}

/**
 * A proxy of the connection or of a statement whose methods report SQLite errors through
 * `indexError`. What they return is guarded too when it can fail later: a statement (`prepare`, and
 * the chaining methods that return their statement), an iterator (`iterate`), a transaction function.
 */
function guardObject<T extends object>(target: T, path: string): T {
  const methods = new Map<PropertyKey, unknown>();
  const proxy: T = new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      let method = methods.get(prop);
      if (!method) {
        method = (...args: unknown[]) => {
          const result = guarded(path, () => (value as (...a: unknown[]) => unknown).apply(obj, args));
          if (result === obj) return proxy;
          if (prop === 'prepare') return guardObject(result as object, path);
          if (prop === 'iterate') return guardIterator(result as IterableIterator<unknown>, path);
          if (prop === 'transaction')
            return guardTransaction(result as Database.Transaction<(...a: unknown[]) => unknown>, path);
          return result;
        };
        methods.set(prop, method);
      }
      return method;
    },
  });
  return proxy;
}

function guardIterator<T>(iterator: IterableIterator<T>, path: string): IterableIterator<T> {
  return {
    next: () => guarded(path, () => iterator.next()),
    return: (value?: unknown) =>
      guarded(path, () => iterator.return?.(value) ?? { done: true as const, value: undefined }),
    [Symbol.iterator]() {
      return this;
    },
  };
}

type AnyTransaction = Database.Transaction<(...a: unknown[]) => unknown>;

function guardTransaction(transaction: AnyTransaction, path: string): AnyTransaction {
  const wrap =
    (fn: (...a: unknown[]) => unknown) =>
    (...args: unknown[]) =>
      guarded(path, () => fn(...args));
  return Object.assign(wrap(transaction), {
    default: wrap(transaction.default),
    deferred: wrap(transaction.deferred),
    immediate: wrap(transaction.immediate),
    exclusive: wrap(transaction.exclusive),
  }) as AnyTransaction;
}
