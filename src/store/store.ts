/**
 * The store: CAS blobs plus the SQLite index (runs, attempts, action cache, file states). Opening a
 * store runs the recovery pass, so what a killed process left behind becomes `interrupted` under
 * the liveness rule, and never a pass. A damaged index is `ERR_STORE_DAMAGED` (exit 3) wherever it
 * is met: SQLite's own errors through the guarded connection (sqlite.ts), and values vkit never
 * writes (a time that is not a number, a pid that would signal a group) as rows are read here.
 */
import { mkdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import type Database from 'better-sqlite3';
import {
  fingerprintKey,
  RACY_WINDOW_NS,
  reusable,
  type CacheMode,
  type FileStateCache,
  type FileStateEntry,
  type Fingerprint,
} from '../capture/files.js';
import { canonicalJson, isSha256Id, sha256Id } from '../hash/index.js';
import { Cas, type BlobState } from './cas.js';
import { currentOwner, ownerAlive, type Owner } from './liveness.js';
import { DDL, MIGRATIONS, USER_VERSION } from './schema.js';
import { damagedIndex, openIndex } from './sqlite.js';

export type RunState = 'queued' | 'running' | 'done' | 'interrupted';

export interface RunRow {
  id: string;
  job: string;
  queue: string | null;
  label: string;
  kind: string;
  key: string;
  state: RunState;
  outcome: string | null;
  reason: string | null;
  receipt: string | null;
  created_ns: string;
  ended_ns: string | null;
  /** The directory the run executes in (its submitter's root); null for runs made before it was recorded. */
  root: string | null;
}

export interface AttemptRow {
  id: string;
  run: string;
  state: RunState;
  host: string;
  pid: number;
  pid_start: string;
  heartbeat_ns: string;
  started_ns: string;
  ended_ns: string | null;
  outcome: string | null;
  reason: string | null;
  cancel_requested: number;
  child_pgid: number | null;
}

export interface StoreOptions {
  /** Wall clock in nanoseconds; injected so tests can age heartbeats. */
  now?: () => bigint;
  /** Whether an attempt's owner still runs; injected only to reach races in tests. */
  alive?: (owner: Owner) => boolean;
}

const STATES: ReadonlySet<string> = new Set<RunState>(['queued', 'running', 'done', 'interrupted']);
const DIGITS = /^[0-9]+$/;

/**
 * What in a run or attempt row vkit never writes, or undefined. A flipped byte in a value is not
 * SQLite's to notice, and these values are parsed (times), compared (states) and signalled (pids:
 * a damaged pid or process group of -1 would signal every process of the user).
 */
function damageIn(row: RunRow | AttemptRow): string | undefined {
  if (!STATES.has(row.state)) return `state \`${row.state}\``;
  const times =
    'heartbeat_ns' in row ? [row.started_ns, row.heartbeat_ns, row.ended_ns] : [row.created_ns, row.ended_ns];
  const time = times.find((t) => t !== null && !DIGITS.test(t));
  if (time !== undefined) return `time \`${time}\``;
  if ('pid' in row && !(Number.isInteger(row.pid) && row.pid > 0)) return `pid \`${row.pid}\``;
  if ('child_pgid' in row && row.child_pgid !== null && !(Number.isInteger(row.child_pgid) && row.child_pgid > 1))
    return `process group \`${row.child_pgid}\``;
  return undefined;
}

/** What in a file-state entry vkit never writes (its times are parsed, its digest trusted), or undefined. */
function fileStateDamage(entry: FileStateEntry): string | undefined {
  const field = [entry.mtime_ns, entry.ctime_ns, entry.ino, entry.recorded_ns].find((t) => !DIGITS.test(t));
  if (field !== undefined) return `\`${field}\` for a time or inode`;
  return isSha256Id(entry.sha256) ? undefined : `digest \`${entry.sha256}\``;
}

/** A heartbeat older than this, with its worker gone, marks an attempt interrupted. */
export const STALE_HEARTBEAT_NS = 10_000_000_000n;

export const wallClockNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

let idSeq = 0;
/** Time-ordered, collision-resistant ids: `run_0193...`. */
export function newId(prefix: string, now: bigint): string {
  const rand = sha256Id(`${process.pid}:${now}:${idSeq++}:${Math.random()}`).slice(7, 19);
  return `${prefix}_${(now / 1_000_000n).toString(36).padStart(9, '0')}${rand}`;
}

export class Store implements FileStateCache {
  readonly dir: string;
  /** The SQLite index file, named in every damaged-store error. */
  readonly index: string;
  readonly db: Database.Database;
  readonly cas: Cas;
  readonly now: () => bigint;
  private readonly alive: (owner: Owner) => boolean;
  private readonly stmts;
  /** Attempts this store recovered at open: what the recovery pass found. */
  readonly recovered: string[];

  constructor(dir: string, opts: StoreOptions = {}) {
    this.dir = dir;
    this.now = opts.now ?? wallClockNs;
    this.alive = opts.alive ?? ownerAlive;
    mkdirSync(dir, { recursive: true });
    // Every SQLite error on this connection is reported as a damaged (or busy) store, exit 3 (sqlite.ts).
    this.index = join(dir, 'index.sqlite');
    this.db = openIndex(this.index);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.migrate();
      this.cas = new Cas(dir, this.db);
      const db = this.db;
      this.stmts = {
        fsGet: db.prepare<[string, string], FileStateEntry>(
          'SELECT size, mtime_ns, ctime_ns, ino, sha256, recorded_ns FROM file_states WHERE path = ? AND mode = ?',
        ),
        // `clean`: recorded outside the racy window, computed by SQLite so a no-op parses no timestamps.
        fsUnder: db.prepare<[string, string, string]>(
          "SELECT path, mode, size || ':' || mtime_ns || ':' || ctime_ns || ':' || ino, sha256 FROM file_states WHERE path >= ? AND path < ? AND mode <> 'text' AND CAST(mtime_ns AS INTEGER) < CAST(recorded_ns AS INTEGER) - CAST(? AS INTEGER)",
        ),
        fsPut: db.prepare(
          'INSERT OR REPLACE INTO file_states (path, mode, size, mtime_ns, ctime_ns, ino, sha256, recorded_ns) VALUES (@path, @mode, @size, @mtime_ns, @ctime_ns, @ino, @sha256, @recorded_ns)',
        ),
        cacheGet: db.prepare<[string], { receipt: string }>('SELECT receipt FROM action_cache WHERE key = ?'),
        cachePut: db.prepare(
          'INSERT OR REPLACE INTO action_cache (key, receipt, label, created_ns) VALUES (?, ?, ?, ?)',
        ),
        cacheDel: db.prepare('DELETE FROM action_cache WHERE key = ?'),
        latestGet: db.prepare<[string], { receipt: string; key: string }>(
          'SELECT receipt, key FROM latest WHERE label = ?',
        ),
        latestPut: db.prepare('INSERT OR REPLACE INTO latest (label, receipt, key) VALUES (?, ?, ?)'),
        runInsert: db.prepare(
          'INSERT INTO runs (id, job, queue, label, kind, key, state, created_ns, root) VALUES (@id, @job, @queue, @label, @kind, @key, @state, @created_ns, @root)',
        ),
        runGet: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?'),
        runEnd: db.prepare(
          "UPDATE runs SET state = @state, outcome = @outcome, reason = @reason, receipt = @receipt, ended_ns = @ended_ns WHERE id = @id AND state = 'running'",
        ),
        runClaim: db.prepare("UPDATE runs SET state = 'running' WHERE id = ? AND state = 'queued'"),
        attemptInsert: db.prepare(
          'INSERT INTO attempts (id, run, state, host, pid, pid_start, heartbeat_ns, started_ns) VALUES (@id, @run, @state, @host, @pid, @pid_start, @heartbeat_ns, @started_ns)',
        ),
        attemptBeat: db.prepare("UPDATE attempts SET heartbeat_ns = ? WHERE id = ? AND state = 'running'"),
        attemptEnd: db.prepare(
          "UPDATE attempts SET state = @state, outcome = @outcome, reason = @reason, ended_ns = @ended_ns WHERE id = @id AND state = 'running'",
        ),
        attemptsOf: db.prepare<[string], AttemptRow>('SELECT * FROM attempts WHERE run = ? ORDER BY started_ns'),
        running: db.prepare<[], AttemptRow>("SELECT * FROM attempts WHERE state = 'running'"),
      };
      this.recovered = this.recover();
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

  // File-state cache -------------------------------------------------------------------------

  get(absPath: string, mode: CacheMode): FileStateEntry | undefined {
    const entry = this.stmts.fsGet.get(absPath, mode);
    if (entry) this.refuse(`the file state of ${absPath}`, fileStateDamage(entry));
    return entry;
  }

  reuse(absPath: string, mode: CacheMode, fp: Fingerprint): string | undefined {
    const entry = this.get(absPath, mode);
    return reusable(entry, fp) ? entry.sha256 : undefined;
  }

  put(absPath: string, mode: CacheMode, entry: FileStateEntry): void {
    this.stmts.fsPut.run({ path: absPath, mode, ...entry });
  }

  /**
   * The file states of every path under `dir`, read with one query into memory, writing through to
   * the index. An entry read here may be older than one another process writes meanwhile; that is
   * safe, because an entry is only used when the file's fingerprint still matches it and it was not
   * racily clean, and a stale one only costs a re-hash.
   */
  fileStatesUnder(dir: string): FileStateCache {
    const lo = dir.endsWith(sep) ? dir : dir + sep;
    // Every path starting with `lo` sorts before `lo` with its last character incremented.
    const hi = lo.slice(0, -1) + String.fromCharCode(lo.charCodeAt(lo.length - 1) + 1);
    // Raw rows (arrays) and entry objects made only on demand: loading tens of thousands of rows is
    // dominated by allocation otherwise.
    // Only entries that were not racily clean when recorded (SQLite compares the timestamps, so a
    // no-op parses none), never the retired `text` key (see CacheMode), as raw rows [path, mode, fingerprint key, sha256] in one map per hash mode:
    // loading tens of thousands of rows is dominated by allocation otherwise.
    const loaded: Record<CacheMode, Map<string, unknown[]>> = {
      'text:same': new Map(),
      'text:crlf': new Map(),
      raw: new Map(),
    };
    for (const r of this.stmts.fsUnder.raw(true).iterate(lo, hi, String(RACY_WINDOW_NS)) as Iterable<unknown[]>)
      loaded[r[1] as CacheMode]?.set(r[0] as string, r);
    return {
      reuse: (absPath, mode, fp) => {
        if (!absPath.startsWith(lo)) return this.reuse(absPath, mode, fp);
        const r = loaded[mode].get(absPath);
        if (!r || r[2] !== fingerprintKey(fp)) return undefined;
        if (!isSha256Id(r[3])) this.refuse(`the file state of ${absPath}`, `digest \`${String(r[3])}\``);
        return r[3] as string;
      },
      put: (absPath, mode, entry) => {
        this.put(absPath, mode, entry);
        if (!absPath.startsWith(lo)) return;
        if (reusable(entry, entry)) loaded[mode].set(absPath, [absPath, mode, fingerprintKey(entry), entry.sha256]);
        else loaded[mode].delete(absPath);
      },
    };
  }

  /**
   * Groups many writes (file states, cache rows) into one transaction. BEGIN IMMEDIATE: a deferred
   * transaction that reads first and then writes gets SQLITE_BUSY at once in WAL mode when another
   * writer committed meanwhile (the busy timeout cannot help a stale snapshot); taking the write
   * lock up front makes it wait its turn instead ("database is locked" under concurrent faces).
   */
  batch<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  // Receipts and the action cache ------------------------------------------------------------

  /** Writes a receipt blob. Callers must have put every artifact it names first (invariant 1). */
  putReceipt(receipt: object): string {
    return this.cas.putBytes(canonicalJson(receipt)).sha256;
  }

  /**
   * Reads a receipt, re-hashing its bytes (receipts are small, and the gate trusts nothing it has
   * not checked). Returns the state when it is not intact.
   */
  readReceipt(
    id: string,
  ): { state: 'intact'; receipt: Record<string, unknown> } | { state: Exclude<BlobState, 'intact'> } {
    const read = this.cas.readVerified(id);
    if (read.state !== 'intact') return read;
    try {
      return { state: 'intact', receipt: JSON.parse(read.bytes.toString('utf8')) };
    } catch {
      return { state: 'altered' };
    }
  }

  cacheGet(key: string): string | undefined {
    return this.stmts.cacheGet.get(key)?.receipt;
  }

  cachePut(key: string, receipt: string, label: string): void {
    this.stmts.cachePut.run(key, receipt, label, String(this.now()));
  }

  cacheDelete(key: string): void {
    this.stmts.cacheDel.run(key);
  }

  /** The last receipt recorded for a label, whatever its key: what `--explain` and STALE compare against. */
  latest(label: string): { receipt: string; key: string } | undefined {
    return this.stmts.latestGet.get(label);
  }

  /** Every label's last receipt, in one query. */
  latestAll(): Map<string, { receipt: string; key: string }> {
    const rows = this.db
      .prepare<[], { label: string; receipt: string; key: string }>('SELECT label, receipt, key FROM latest')
      .all();
    return new Map(rows.map((r) => [r.label, { receipt: r.receipt, key: r.key }]));
  }

  setLatest(label: string, receipt: string, key: string): void {
    this.stmts.latestPut.run(label, receipt, key);
  }

  // Runs and attempts ------------------------------------------------------------------------

  /** A new run, `queued` on `queue` (the submitter's) until a worker claims it. */
  createRun(
    job: string,
    label: string,
    kind: string,
    key: string,
    queue: string | null = null,
    root: string | null = null,
  ): string {
    const now = this.now();
    const id = newId('run', now);
    this.stmts.runInsert.run({ id, job, queue, label, kind, key, state: 'queued', created_ns: String(now), root });
    return id;
  }

  /** Freezes a job so any worker (or a later retry) can run it. Idempotent: the job is content-addressed. */
  putJob(key: string, job: object, root: string): void {
    this.db
      .prepare('INSERT OR IGNORE INTO jobs (key, job, root, created_ns) VALUES (?, ?, ?, ?)')
      .run(key, JSON.stringify(job), root, String(this.now()));
  }

  getJob(key: string): { job: string; root: string } | undefined {
    return this.db
      .prepare<[string], { job: string; root: string }>('SELECT job, root FROM jobs WHERE key = ?')
      .get(key);
  }

  /**
   * Claims the oldest queued run of `queue` for `owner`: the run becomes `running` with a new attempt,
   * atomically, so two workers never claim the same run.
   */
  claimRun(queue: string, owner: Owner = currentOwner()): { run: RunRow; attempt: string } | undefined {
    return this.db
      .transaction(() => {
        const run = this.intact(
          this.db
            .prepare<[string], RunRow>(
              "SELECT * FROM runs WHERE queue = ? AND state = 'queued' ORDER BY created_ns, id LIMIT 1",
            )
            .get(queue),
        );
        if (!run) return undefined;
        const attempt = this.startAttempt(run.id, owner);
        return { run: { ...run, state: 'running' as const }, attempt };
      })
      .immediate();
  }

  /**
   * Asks a run to stop. A queued run ends `interrupted` (reason `cancelled`) at once; a running one
   * gets its flag set for its worker to act on. Returns what the run was doing.
   */
  requestCancel(run: string): 'queued' | 'running' | 'ended' {
    // IMMEDIATE: a deferred read-then-write would fail with BUSY_SNAPSHOT when a heartbeat commits between.
    return this.db
      .transaction(() => {
        const row = this.getRun(run);
        if (!row || row.state === 'done' || row.state === 'interrupted') return 'ended';
        if (row.state === 'queued') {
          const ended = this.db
            .prepare(
              "UPDATE runs SET state = 'interrupted', outcome = 'BLOCKED', reason = 'cancelled', ended_ns = ? WHERE id = ? AND state = 'queued'",
            )
            .run(String(this.now()), run).changes;
          return ended ? 'queued' : 'ended';
        }
        this.db.prepare("UPDATE attempts SET cancel_requested = 1 WHERE run = ? AND state = 'running'").run(run);
        return 'running';
      })
      .immediate();
  }

  cancelRequested(attempt: string): boolean {
    return (
      (this.db.prepare<[string], { c: number }>('SELECT cancel_requested AS c FROM attempts WHERE id = ?').get(attempt)
        ?.c ?? 0) === 1
    );
  }

  setChildPgid(attempt: string, pgid: number | null): void {
    this.db.prepare('UPDATE attempts SET child_pgid = ? WHERE id = ?').run(pgid, attempt);
  }

  runningAttempt(run: string): AttemptRow | undefined {
    return this.intact(
      this.db.prepare<[string], AttemptRow>("SELECT * FROM attempts WHERE run = ? AND state = 'running'").get(run),
    );
  }

  /** How many runs of a queue wait for a worker. */
  queuedCount(queue: string): number {
    return this.db
      .prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE queue = ? AND state = 'queued'")
      .get(queue)!.n;
  }

  getRun(id: string): RunRow | undefined {
    return this.intact(this.stmts.runGet.get(id));
  }

  startAttempt(run: string, owner: Owner = currentOwner()): string {
    const now = String(this.now());
    const id = newId('att', this.now());
    this.batch(() => {
      // Only a queued run can be claimed: a cancelled or finished one is never revived.
      if (this.stmts.runClaim.run(run).changes === 0) throw new Error(`run ${run} is not queued`);
      this.stmts.attemptInsert.run({
        id,
        run,
        state: 'running',
        host: owner.host,
        pid: owner.pid,
        pid_start: owner.pidStart,
        heartbeat_ns: now,
        started_ns: now,
      });
    });
    return id;
  }

  heartbeat(attempt: string): void {
    this.stmts.attemptBeat.run(String(this.now()), attempt);
  }

  /**
   * Ends an attempt and its run together. Returns false when the attempt was no longer running
   * (recovered or cancelled meanwhile): then nothing is written, so a late finisher cannot turn an
   * interrupted run into a pass. Also false when a `done` end's receipt or one of its artifacts is no
   * longer intact: the attempt and run then end interrupted (BLOCKED) without the receipt.
   */
  finishAttempt(
    run: string,
    attempt: string,
    end: { state: 'done' | 'interrupted'; outcome: string; reason?: string; receipt?: string },
  ): boolean {
    return this.batch(() => {
      const ended_ns = String(this.now());
      // Under the write lock `store gc` deletes blobs under: a result whose receipt or artifacts are
      // gone (a concurrent gc) ends interrupted instead, never a done run naming missing evidence.
      const lost = end.state === 'done' && end.receipt ? this.missingEvidence(end.receipt) : undefined;
      if (lost) {
        const reason = `${lost} before the attempt ended (a concurrent \`vkit store gc\`?); rerun the check`;
        if (
          this.stmts.attemptEnd.run({ id: attempt, state: 'interrupted', outcome: 'BLOCKED', reason, ended_ns }).changes
        ) {
          this.stmts.runEnd.run({ id: run, state: 'interrupted', outcome: 'BLOCKED', reason, receipt: null, ended_ns });
        }
        return false;
      }
      const changed = this.stmts.attemptEnd.run({
        id: attempt,
        state: end.state,
        outcome: end.outcome,
        reason: end.reason ?? null,
        ended_ns,
      }).changes;
      if (changed === 0) return false;
      this.stmts.runEnd.run({
        id: run,
        state: end.state,
        outcome: end.outcome,
        reason: end.reason ?? null,
        receipt: end.receipt ?? null,
        ended_ns,
      });
      return true;
    });
  }

  /** What of a receipt's evidence is not intact in the CAS (the receipt, or an artifact it names), or undefined. */
  private missingEvidence(receiptId: string): string | undefined {
    const read = this.readReceipt(receiptId);
    if (read.state !== 'intact') return `receipt ${receiptId} is ${read.state}`;
    const artifacts = (read.receipt as { artifacts?: unknown }).artifacts;
    if (!Array.isArray(artifacts)) return `receipt ${receiptId} names no artifacts`;
    for (const a of artifacts as Array<{ name?: unknown; sha256?: unknown }>) {
      const state =
        typeof a?.sha256 === 'string' && /^sha256:[0-9a-f]{64}$/.test(a.sha256)
          ? this.cas.state(a.sha256, false)
          : 'altered';
      if (state !== 'intact') return `artifact ${String(a?.name)} (${String(a?.sha256)}) is ${state}`;
    }
    return undefined;
  }

  /**
   * Why a receipt is not the one its run recorded, or undefined when it is: the run exists, ended
   * `done` with this receipt under this key, and its attempt `attempt` ended `done`. Only a worker
   * finishing its own attempt writes that chain, so a receipt put into the store by anything else (a
   * check with write access to it, a copy from another store) names a run that records another one.
   */
  receiptChainBroken(receiptId: string, receipt: { run: string; attempt?: unknown; key: string }): string | undefined {
    const run = this.stmts.runGet.get(receipt.run);
    if (!run) return `its run ${receipt.run} is not in the store`;
    if (run.receipt !== receiptId || run.key !== receipt.key || run.state !== 'done')
      return `run ${receipt.run} recorded another result`;
    const attempt = this.stmts.attemptsOf.all(receipt.run).find((a) => a.id === receipt.attempt);
    if (attempt?.state !== 'done') return `attempt ${String(receipt.attempt)} of run ${receipt.run} did not record it`;
    return undefined;
  }

  attemptsOf(run: string): AttemptRow[] {
    return this.stmts.attemptsOf.all(run).map((a) => this.intact(a));
  }

  listRuns(filter: { label?: string; limit?: number } = {}): RunRow[] {
    const limit = filter.limit ?? 50;
    const rows = filter.label
      ? this.db
          .prepare<[string, number], RunRow>(
            'SELECT * FROM runs WHERE label = ? ORDER BY created_ns DESC, id DESC LIMIT ?',
          )
          .all(filter.label, limit)
      : this.db.prepare<[number], RunRow>('SELECT * FROM runs ORDER BY created_ns DESC, id DESC LIMIT ?').all(limit);
    return rows.map((r) => this.intact(r));
  }

  /** The row, when vkit could have written it; a damaged one is a damaged store. */
  private intact<T extends RunRow | AttemptRow>(row: T): T;
  private intact<T extends RunRow | AttemptRow>(row: T | undefined): T | undefined;
  private intact<T extends RunRow | AttemptRow>(row: T | undefined): T | undefined {
    if (row) this.refuse(row.id, damageIn(row));
    return row;
  }

  /** Throws the damaged-store error when `damage` names a value in `what` that vkit never writes. */
  private refuse(what: string, damage: string | undefined): void {
    if (damage) throw damagedIndex(this.index, `${what} holds ${damage}, which vkit never writes`);
  }

  /**
   * Recovery pass (invariant 6): an attempt is interrupted only when its heartbeat is stale AND its
   * worker (pid + start time, same host) is gone. A live worker in another process is never touched.
   */
  recover(): string[] {
    const now = this.now();
    const found: string[] = [];
    for (const a of this.stmts.running.all().map((r) => this.intact(r))) {
      if (now - BigInt(a.heartbeat_ns) <= STALE_HEARTBEAT_NS) continue;
      if (this.alive({ host: a.host, pid: a.pid, pidStart: a.pid_start })) continue;
      if (this.finishAttempt(a.run, a.id, { state: 'interrupted', outcome: 'BLOCKED', reason: 'worker lost' }))
        found.push(a.id);
    }
    return found;
  }
}
