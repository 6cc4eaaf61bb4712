/**
 * Jobs, runs and attempts: a frozen job is queued as a run, a worker claims it with a new attempt,
 * beats its heartbeat, and ends attempt and run together; a cancel flags it. The recovery pass ends
 * attempts whose worker is gone under the liveness rule. A run or attempt row holding a value vkit
 * never writes is a damaged store wherever it is read.
 */
import { sha256Id } from '../hash/index.js';
import type { Actions } from './actions.js';
import { DIGITS, immediate, refuse, type IndexHandle } from './handle.js';
import { currentOwner, type Owner } from './liveness.js';

type RunState = 'queued' | 'running' | 'done' | 'interrupted';

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

/** What `createRun` queues. */
export interface NewRun {
  /**
   * The frozen job's key (`putJob`). A job is content-addressed by its action key, so this one value
   * is recorded as both the run's `job` (which frozen job it runs) and its `key` (which action key its
   * receipt is cached under).
   */
  key: string;
  label: string;
  kind: string;
  /** The submitter's queue, which its workers claim from; null for none. */
  queue?: string | null;
  /** The directory the run executes in (its submitter's root). */
  root?: string | null;
}

/** How `finishAttempt` ends an attempt and its run. */
export interface AttemptEnd {
  run: string;
  attempt: string;
  state: 'done' | 'interrupted';
  outcome: string;
  reason?: string;
  receipt?: string;
}

const STATES: ReadonlySet<string> = new Set<RunState>(['queued', 'running', 'done', 'interrupted']);

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

/** A heartbeat older than this, with its worker gone, marks an attempt interrupted. */
export const STALE_HEARTBEAT_NS = 10_000_000_000n;

let idSeq = 0;
/** Time-ordered, collision-resistant ids: `run_0193...`. */
export function newId(prefix: string, now: bigint): string {
  const rand = sha256Id(`${process.pid}:${now}:${idSeq++}:${Math.random()}`).slice(7, 19);
  return `${prefix}_${(now / 1_000_000n).toString(36).padStart(9, '0')}${rand}`;
}

export class Lifecycle {
  private readonly stmts;

  constructor(
    private readonly handle: IndexHandle,
    private readonly actions: Actions,
    /** Whether an attempt's owner still runs (the recovery pass asks). */
    private readonly alive: (owner: Owner) => boolean,
  ) {
    const { db } = handle;
    this.stmts = {
      runInsert: db.prepare(
        'INSERT INTO runs (id, job, queue, label, kind, key, state, created_ns, root) VALUES (@id, @job, @queue, @label, @kind, @key, @state, @created_ns, @root)',
      ),
      runGet: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?'),
      runImport: db.prepare(
        "INSERT INTO runs (id, job, queue, label, kind, key, state, outcome, reason, receipt, created_ns, ended_ns, root) VALUES (?, ?, NULL, ?, ?, ?, 'done', ?, ?, ?, ?, ?, NULL)",
      ),
      attemptImport: db.prepare(
        "INSERT INTO attempts (id, run, state, host, pid, pid_start, heartbeat_ns, started_ns, ended_ns, outcome, reason) VALUES (?, ?, 'done', ?, ?, 'imported', ?, ?, ?, ?, ?)",
      ),
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
      // One statement per cache hit (a no-op asks it once per action): the run and the named attempt's state.
      chainGet: db.prepare<
        [string | null, string],
        { receipt: string | null; key: string; state: string; attempt_state: string | null }
      >(
        'SELECT r.receipt, r.key, r.state, (SELECT a.state FROM attempts a WHERE a.id = ? AND a.run = r.id) AS attempt_state FROM runs r WHERE r.id = ?',
      ),
      // The same for every label's latest receipt at once: the run that recorded it and its attempts.
      latestChains: db.prepare<[], [string, string, string, string, string | null, string | null]>(
        'SELECT r.receipt, r.id, r.key, r.state, a.id, a.state FROM latest l JOIN runs r ON r.receipt = l.receipt LEFT JOIN attempts a ON a.run = r.id',
      ),
      running: db.prepare<[], AttemptRow>("SELECT * FROM attempts WHERE state = 'running'"),
    };
  }

  /** A new run, `queued` on `queue` (the submitter's) until a worker claims it. */
  createRun({ key, label, kind, queue = null, root = null }: NewRun): string {
    const now = this.handle.now();
    const id = newId('run', now);
    this.stmts.runInsert.run({
      id,
      job: key,
      queue,
      label,
      kind,
      key,
      state: 'queued',
      created_ns: String(now),
      root,
    });
    return id;
  }

  /**
   * Freezes a job so any worker (or a later retry) can run it, under its own key, with the root its
   * submitter executes in. Idempotent: the job is content-addressed.
   */
  putJob(job: { key: string }, root: string): void {
    this.handle.db
      .prepare('INSERT OR IGNORE INTO jobs (key, job, root, created_ns) VALUES (?, ?, ?, ?)')
      .run(job.key, JSON.stringify(job), root, String(this.handle.now()));
  }

  getJob(key: string): { job: string; root: string } | undefined {
    return this.handle.db
      .prepare<[string], { job: string; root: string }>('SELECT job, root FROM jobs WHERE key = ?')
      .get(key);
  }

  /**
   * Claims the oldest queued run of `queue` for `owner`: the run becomes `running` with a new attempt,
   * atomically, so two workers never claim the same run.
   */
  claimRun(queue: string, owner: Owner = currentOwner()): { run: RunRow; attempt: string } | undefined {
    return this.handle.db
      .transaction(() => {
        const run = this.intact(
          this.handle.db
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
    return this.handle.db
      .transaction(() => {
        const row = this.getRun(run);
        if (!row || row.state === 'done' || row.state === 'interrupted') return 'ended';
        if (row.state === 'queued') {
          const ended = this.handle.db
            .prepare(
              "UPDATE runs SET state = 'interrupted', outcome = 'BLOCKED', reason = 'cancelled', ended_ns = ? WHERE id = ? AND state = 'queued'",
            )
            .run(String(this.handle.now()), run).changes;
          return ended ? 'queued' : 'ended';
        }
        this.handle.db.prepare("UPDATE attempts SET cancel_requested = 1 WHERE run = ? AND state = 'running'").run(run);
        return 'running';
      })
      .immediate();
  }

  cancelRequested(attempt: string): boolean {
    return (
      (this.handle.db
        .prepare<[string], { c: number }>('SELECT cancel_requested AS c FROM attempts WHERE id = ?')
        .get(attempt)?.c ?? 0) === 1
    );
  }

  setChildPgid(attempt: string, pgid: number | null): void {
    this.handle.db.prepare('UPDATE attempts SET child_pgid = ? WHERE id = ?').run(pgid, attempt);
  }

  runningAttempt(run: string): AttemptRow | undefined {
    return this.intact(
      this.handle.db
        .prepare<[string], AttemptRow>("SELECT * FROM attempts WHERE run = ? AND state = 'running'")
        .get(run),
    );
  }

  /** The runs of a queue waiting for a worker, oldest first. */
  queuedRuns(queue: string): RunRow[] {
    return this.handle.db
      .prepare<[string], RunRow>("SELECT * FROM runs WHERE queue = ? AND state = 'queued' ORDER BY created_ns, id")
      .all(queue)
      .map((r) => this.intact(r));
  }

  /**
   * Ends a run that no worker claimed and none can (its executor cannot reach its workers):
   * `interrupted`, BLOCKED, with `reason`. False when the run was no longer queued.
   */
  abandonQueued(run: string, reason: string): boolean {
    return (
      this.handle.db
        .prepare(
          "UPDATE runs SET state = 'interrupted', outcome = 'BLOCKED', reason = ?, ended_ns = ? WHERE id = ? AND state = 'queued'",
        )
        .run(reason, String(this.handle.now()), run).changes > 0
    );
  }

  /**
   * A run and attempt started elsewhere (a fleet's face, which named both ids) executed by this
   * process: inserted `running` together under the given ids, owned by `owner`. Refused (throws)
   * when either id is already in this store: a duplicate delivery never runs twice here.
   */
  startRemoteAttempt(
    ids: { run: string; attempt: string },
    run: Omit<NewRun, 'queue'>,
    owner: Owner = currentOwner(),
  ): void {
    const now = String(this.handle.now());
    immediate(this.handle, () => {
      this.stmts.runInsert.run({
        id: ids.run,
        job: run.key,
        queue: null,
        label: run.label,
        kind: run.kind,
        key: run.key,
        state: 'running',
        created_ns: now,
        root: run.root ?? null,
      });
      this.stmts.attemptInsert.run({
        id: ids.attempt,
        run: ids.run,
        state: 'running',
        host: owner.host,
        pid: owner.pid,
        pid_start: owner.pidStart,
        heartbeat_ns: now,
        started_ns: now,
      });
    });
  }

  /** How many runs of a queue wait for a worker. */
  queuedCount(queue: string): number {
    return this.handle.db
      .prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE queue = ? AND state = 'queued'")
      .get(queue)!.n;
  }

  getRun(id: string): RunRow | undefined {
    return this.intact(this.stmts.runGet.get(id));
  }

  startAttempt(run: string, owner: Owner = currentOwner()): string {
    const now = String(this.handle.now());
    const id = newId('att', this.handle.now());
    immediate(this.handle, () => {
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
    this.stmts.attemptBeat.run(String(this.handle.now()), attempt);
  }

  /**
   * Ends an attempt and its run together. Returns false when the attempt was no longer running
   * (recovered or cancelled meanwhile): then nothing is written, so a late finisher cannot turn an
   * interrupted run into a pass. Also false when a `done` end's receipt or one of its artifacts is no
   * longer intact: the attempt and run then end interrupted (BLOCKED) without the receipt.
   */
  finishAttempt(end: AttemptEnd): boolean {
    const { run, attempt } = end;
    return immediate(this.handle, () => {
      const ended_ns = String(this.handle.now());
      // Under the write lock `store gc` deletes blobs under: a result whose receipt or artifacts are
      // gone (a concurrent gc) ends interrupted instead, never a done run naming missing evidence.
      const lost = end.state === 'done' && end.receipt ? this.actions.missingEvidence(end.receipt) : undefined;
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

  /**
   * Why a receipt is not the one its run recorded, or undefined when it is: the run exists, ended
   * `done` with this receipt under this key, and its attempt `attempt` ended `done`. Only a worker
   * finishing its own attempt writes that chain, so a receipt put into the store by anything else (a
   * check with write access to it, a copy from another store) names a run that records another one.
   */
  receiptChainBroken(receiptId: string, receipt: { run: string; attempt?: unknown; key: string }): string | undefined {
    const attempt = typeof receipt.attempt === 'string' ? receipt.attempt : null;
    const run = this.stmts.chainGet.get(attempt, receipt.run);
    if (!run) return `its run ${receipt.run} is not in the store`;
    if (run.receipt !== receiptId || run.key !== receipt.key || run.state !== 'done')
      return `run ${receipt.run} recorded another result`;
    if (run.attempt_state !== 'done')
      return `attempt ${String(receipt.attempt)} of run ${receipt.run} did not record it`;
    return undefined;
  }

  /**
   * `receiptChainBroken` for a build's many hits: the runs recording each label's latest receipt,
   * with their attempts, are read in one query when called (a no-op asked one statement per action,
   * ~24 ms of 1,000). A receipt whose whole chain is among them and done is its run's own; for any
   * other the single statement answers, so what a broken chain says is unchanged.
   */
  latestChains(): (receiptId: string, receipt: { run: string; attempt?: unknown; key: string }) => string | undefined {
    // By receipt and run: a receipt is its run's own only through that run's row and attempts.
    const runs = new Map<string, { key: string; done: boolean; attemptsDone: Set<string> }>();
    for (const [receipt, run, key, state, attempt, attemptState] of this.stmts.latestChains.raw(true).all()) {
      const at = `${receipt}\0${run}`;
      let entry = runs.get(at);
      if (!entry) runs.set(at, (entry = { key, done: state === 'done', attemptsDone: new Set() }));
      if (attempt !== null && attemptState === 'done') entry.attemptsDone.add(attempt);
    }
    return (receiptId, receipt) => {
      const found = runs.get(`${receiptId}\0${receipt.run}`);
      if (
        found?.done &&
        found.key === receipt.key &&
        typeof receipt.attempt === 'string' &&
        found.attemptsDone.has(receipt.attempt)
      )
        return undefined;
      return this.receiptChainBroken(receiptId, receipt);
    };
  }

  /**
   * Records a result made elsewhere (a signed remote hit, verified by the caller) as its run's own:
   * the run and attempt the receipt names, done with its outcome, the attempt's host naming where it
   * came from and the reason who signed it. Idempotent for the same receipt; a run id that already
   * records anything else is refused (false), so a remote can never rewrite a local run.
   */
  importRun(
    receiptId: string,
    receipt: {
      run: string;
      attempt: string;
      key: string;
      label: string;
      kind: string;
      outcome: string;
      reason?: string | null;
    },
    from: { host: string; reason: string },
  ): boolean {
    return immediate(this.handle, () => {
      const existing = this.stmts.runGet.get(receipt.run);
      if (existing) return existing.receipt === receiptId && existing.key === receipt.key && existing.state === 'done';
      // Written done in one insert each (not inserted running and then ended: four index updates
      // per import fewer); the rows are those a run that started and ended at `now` leaves.
      const now = String(this.handle.now());
      this.stmts.runImport.run(
        receipt.run,
        receipt.key,
        receipt.label,
        receipt.kind,
        receipt.key,
        receipt.outcome,
        receipt.reason ?? null,
        receiptId,
        now,
        now,
      );
      this.stmts.attemptImport.run(
        receipt.attempt,
        receipt.run,
        from.host,
        process.pid,
        now,
        now,
        now,
        receipt.outcome,
        from.reason,
      );
      return true;
    });
  }

  attemptsOf(run: string): AttemptRow[] {
    return this.stmts.attemptsOf.all(run).map((a) => this.intact(a));
  }

  listRuns(filter: { label?: string; limit?: number } = {}): RunRow[] {
    const limit = filter.limit ?? 50;
    const rows = filter.label
      ? this.handle.db
          .prepare<[string, number], RunRow>(
            'SELECT * FROM runs WHERE label = ? ORDER BY created_ns DESC, id DESC LIMIT ?',
          )
          .all(filter.label, limit)
      : this.handle.db
          .prepare<[number], RunRow>('SELECT * FROM runs ORDER BY created_ns DESC, id DESC LIMIT ?')
          .all(limit);
    return rows.map((r) => this.intact(r));
  }

  /** The row, when vkit could have written it; a damaged one is a damaged store. */
  private intact<T extends RunRow | AttemptRow>(row: T): T;
  private intact<T extends RunRow | AttemptRow>(row: T | undefined): T | undefined;
  private intact<T extends RunRow | AttemptRow>(row: T | undefined): T | undefined {
    if (row) refuse(this.handle, row.id, damageIn(row));
    return row;
  }

  /**
   * Recovery pass (invariant 6): an attempt is interrupted only when its heartbeat is stale AND its
   * worker (pid + start time, same host) is gone. A live worker in another process is never touched.
   */
  recover(): string[] {
    const now = this.handle.now();
    const found: string[] = [];
    for (const a of this.stmts.running.all().map((r) => this.intact(r))) {
      if (now - BigInt(a.heartbeat_ns) <= STALE_HEARTBEAT_NS) continue;
      if (this.alive({ host: a.host, pid: a.pid, pidStart: a.pid_start })) continue;
      if (
        this.finishAttempt({
          run: a.run,
          attempt: a.id,
          state: 'interrupted',
          outcome: 'BLOCKED',
          reason: 'worker lost',
        })
      )
        found.push(a.id);
    }
    return found;
  }
}
