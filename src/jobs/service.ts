/**
 * The job service every face submits through: submit, wait, cancel, retry. The store is the queue:
 * `submit` freezes the job and queues a run on this service's own queue; workers claim runs from it.
 * By default workers are detached processes (`worker-main.ts`) that outlive the face; with
 * fault-injection hooks (tests) the same claim-and-execute path runs inline in this process.
 * Identical jobs submitted concurrently through one service share one run.
 */
import { reapAttemptContainers } from './containers.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { kindsModule } from '../config/kind.js';
import type { Rule } from '../config/rule.js';
import { EXIT, VkitError } from '../errors.js';
import { parseReceipt } from '../store/receipt.js';
import { currentOwner, ownerAlive } from '../store/liveness.js';
import { newId, type RunRow, type Store } from '../store/store.js';
import { sha256Id } from '../hash/index.js';
import { workerEnv, type Job } from './job.js';
import { startSpeculativeStandby, takeStandby } from './standby.js';
import { openWorkerLog, WORKER_MAIN } from './worker-entry.js';
import {
  checkCancellations,
  CLAIMED,
  executeAttempt,
  failureOf,
  frozenJobOf,
  type AttemptResult,
  type WorkerHooks,
} from './worker.js';

export interface JobServiceOptions {
  root: string;
  store: Store;
  rules: ReadonlyMap<string, Rule>;
  env?: NodeJS.ProcessEnv;
  hooks?: WorkerHooks;
  /** `detached` (default) or `inline`; hooks force inline, as they cannot cross a process boundary. */
  workers?: 'detached' | 'inline';
  /** Run every process sandboxed, whatever its rule asks (the protected gate). */
  confine?: boolean;
  /** How long a waited-on run may sit queued on another face's queue before this face starts a worker for it (default 10 s). */
  adoptAfterMs?: number;
}

export interface WaitResult {
  run: RunRow;
  /** True when the bounded wait ended before the run did: the worker continues. */
  timedOut: boolean;
}

const POLL_MS = 25;
const CANCEL_GRACE_MS = 5000;
const RECOVER_EVERY_MS = 1000;
/** Past the heartbeat staleness window: a queue's own face has had every chance to start its worker. */
const ADOPT_AFTER_MS = 10_000;

export class JobService {
  /**
   * This service's queue prefix. A job declaring environment variables goes on `<queue>.<digest of
   * their names>`, whose workers are given exactly those variables (`workerEnv`): workers claim only
   * runs they can identify, and never hold a variable no job of theirs declared.
   */
  readonly queue: string;
  /** Each queue of this service and the variable names its workers are given. */
  private readonly queues = new Map<string, readonly string[]>();
  private readonly inflight = new Map<string, Promise<AttemptResult>>();
  /**
   * Each live worker, its queue and whether it holds a run now. A worker that has not claimed yet
   * (still starting) or has ended its run (idling before it exits) will take the next queued run:
   * counting it keeps `dispatch`, called on every poll of `wait`, from starting a second node
   * process for a run the first one is about to claim.
   */
  private readonly workers = new Map<ChildProcess, { queue: string; busy: boolean }>();
  /** Detached workers this service has started, ever (what a test of `dispatch` counts). */
  workersStarted = 0;
  private readonly finished = new Map<string, () => void>();
  private readonly mode: 'detached' | 'inline';
  private closed = false;
  /** What stopped this service's workers (a damaged or locked store): every waiter ends with it. */
  private failure: unknown;
  /** Most workers at once; the engine sets it from `--jobs`. */
  maxWorkers = availableParallelism();

  constructor(private readonly opts: JobServiceOptions) {
    this.queue = newId('q', opts.store.now());
    this.queues.set(this.queue, []);
    this.mode = opts.hooks ? 'inline' : (opts.workers ?? 'detached');
    // Attempts the store recovered when it opened may have left containers behind.
    void reapAttemptContainers(opts.store.recovered).catch(() => undefined);
    // A build that most likely runs something asked for a worker ahead (D55, D57): it starts now.
    startSpeculativeStandby();
  }

  /** Freezes the job and queues a new run for it: the job's content-derived identity and the new run's id. */
  submit(job: Job): { job: string; run: string } {
    const { store } = this.opts;
    store.lifecycle.putJob(job, this.opts.root);
    // The job (content-derived) may be shared with another checkout of the same store; the run executes here.
    const run = store.lifecycle.createRun({
      key: job.key,
      label: job.label,
      kind: job.rule.kind,
      queue: this.queueFor(job.env ?? []),
      root: this.opts.root,
    });
    this.dispatch();
    return { job: job.key, run };
  }

  /** A new run for the same frozen job. */
  retry(runId: string): { job: string; run: string } {
    const { store } = this.opts;
    const row = store.lifecycle.getRun(runId);
    if (!row) throw new Error(`no run ${runId}`);
    return this.submit(frozenJobOf(store, row).job);
  }

  /** Waits until the run ends, or `timeoutMs` passes (the worker then continues). */
  async wait(runId: string, timeoutMs = Infinity): Promise<WaitResult> {
    const deadline = Date.now() + timeoutMs;
    let recovered = Date.now();
    let adopted = false;
    for (;;) {
      if (this.failure) throw this.failure;
      // A lost worker never finishes its run: the recovery pass (stale heartbeat AND worker gone)
      // ends it interrupted, so a waiter is never stuck behind a dead process.
      if (Date.now() - recovered > RECOVER_EVERY_MS) {
        void reapAttemptContainers(this.opts.store.lifecycle.recover()).catch(() => undefined);
        recovered = Date.now();
      }
      const row = this.opts.store.lifecycle.getRun(runId);
      if (!row) throw runGone(runId);
      if (row.state === 'done' || row.state === 'interrupted') return { run: row, timedOut: false };
      if (Date.now() >= deadline) return { run: row, timedOut: true };
      this.dispatch();
      // A run queued on another face's queue whose face (and worker) went away before claiming it
      // would stay queued for ever: after a while, the waiter starts one worker for that queue. The
      // worker re-plans the job under this face's environment, so any difference in what the key
      // covers (declared variables, tools) refuses the job rather than running something else.
      if (
        !adopted &&
        row.state === 'queued' &&
        row.queue &&
        !this.queues.has(row.queue) &&
        this.mode === 'detached' &&
        !this.closed
      ) {
        const queuedMs = Number((this.opts.store.now() - BigInt(row.created_ns)) / 1_000_000n);
        if (queuedMs > (this.opts.adoptAfterMs ?? ADOPT_AFTER_MS)) {
          this.startWorker(row.queue, frozenJobOf(this.opts.store, row).job.env ?? []);
          adopted = true;
        }
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
        this.finished.set(runId, () => {
          clearTimeout(t);
          resolve();
        });
      });
      this.finished.delete(runId);
    }
  }

  /**
   * Cancels one run: a queued run ends at once; a running one is asked through the store and its
   * worker nudged; if it has not ended after a grace period, its check's process group and worker
   * are killed and the attempt is ended `interrupted` (reason `cancelled`) here. Nothing else is touched.
   */
  async cancel(runId: string): Promise<RunRow> {
    const { store } = this.opts;
    const state = store.lifecycle.requestCancel(runId);
    if (state === 'running') {
      const attempt = store.lifecycle.runningAttempt(runId);
      if (attempt && attempt.pid === process.pid)
        checkCancellations(); // an inline attempt of this process
      else if (attempt && ownerAlive({ host: attempt.host, pid: attempt.pid, pidStart: attempt.pid_start })) {
        try {
          process.kill(attempt.pid, 'SIGUSR2');
        } catch {
          // gone meanwhile: the grace period below settles it
        }
      }
      const waited = await this.wait(runId, CANCEL_GRACE_MS);
      if (waited.timedOut) {
        // Only this run's own check: its worker may since have moved on to another run, so the
        // worker itself is never killed. The compare-and-set then settles the race with completion.
        const a = store.lifecycle.runningAttempt(runId);
        if (a) {
          if (a.child_pgid) killQuietly(-a.child_pgid);
          await reapAttemptContainers([a.id]).catch(() => undefined);
          store.lifecycle.finishAttempt({
            run: runId,
            attempt: a.id,
            state: 'interrupted',
            outcome: 'BLOCKED',
            reason: 'cancelled',
          });
        }
      }
    }
    return store.lifecycle.getRun(runId)!;
  }

  /**
   * Submit and wait, as the engine does. Cancelling `signal` cancels the run. With `waitMs` the wait
   * is bounded: when it ends first the result is `pending` (BLOCKED for now) and the worker continues.
   */
  run(job: Job, signal?: AbortSignal, waitMs = Infinity): Promise<AttemptResult> {
    const running = this.inflight.get(job.key);
    if (running) return running;
    const promise = (async () => {
      const frozen = JSON.parse(JSON.stringify(job)) as Job;
      const { run } = this.submit(frozen);
      let cancelling: Promise<unknown> | undefined;
      const onAbort = () => void (cancelling ??= this.cancel(run));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      try {
        let waited: WaitResult;
        try {
          waited = await this.wait(run, waitMs);
        } catch (error) {
          // Deleted under its waiter (a `vkit store gc` meanwhile): no evidence, so BLOCKED, never a crash.
          if (error instanceof VkitError && error.code === 'ERR_RUN_GONE')
            return {
              run,
              attempt: '',
              receipt: '',
              outcome: 'BLOCKED' as const,
              reason: error.message,
              artifacts: [],
              cached: false,
              ms: 0,
              endedAt: null,
            };
          throw error;
        }
        const { run: row, timedOut } = waited;
        if (timedOut && !cancelling)
          return {
            ...this.resultOf(row),
            reason: 'still running: the wait timed out and the worker continues',
            pending: true,
          };
        // The cancellation may still be settling (its own wait, a forced kill): finish it before reporting.
        await cancelling;
        return this.resultOf(this.opts.store.lifecycle.getRun(run) ?? row);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    })().finally(() => this.inflight.delete(job.key));
    this.inflight.set(job.key, promise);
    return promise;
  }

  /**
   * An ended run as the engine reports it. Never a PASS without a completed attempt and an intact
   * receipt of this very run: the outcome is the receipt's, since an index row can be damaged
   * (a byte of `outcome`, a `receipt` naming another run's receipt) and a receipt cannot.
   */
  resultOf(row: RunRow): AttemptResult {
    const attempts = this.opts.store.lifecycle.attemptsOf(row.id);
    const last = attempts.at(-1);
    const read = row.receipt ? this.opts.store.actions.readReceipt(row.receipt) : undefined;
    const parsed = read?.state === 'intact' ? parseReceipt(read.receipt) : undefined;
    const receipt = parsed?.run === row.id && parsed.key === row.key ? parsed : undefined;
    const complete = row.state === 'done' && last?.state === 'done' && receipt !== undefined;
    const outcome = complete ? receipt.outcome : 'BLOCKED';
    const reason = complete ? receipt.reason : (row.reason ?? 'interrupted');
    return {
      run: row.id,
      attempt: last?.id ?? '',
      receipt: row.receipt ?? '',
      outcome,
      reason,
      artifacts: receipt?.artifacts ?? [],
      cached: false,
      ms: receipt?.timings.ms ?? 0,
      assurance: receipt?.assurance,
      endedAt: receipt?.timings.ended_at ?? null,
      subject: receipt?.subject,
    };
  }

  /** The queue of jobs declaring `names` (sorted). */
  private queueFor(names: readonly string[]): string {
    if (names.length === 0) return this.queue;
    const queue = `${this.queue}.${sha256Id(names.join('\0')).slice(7, 19)}`;
    this.queues.set(queue, names);
    return queue;
  }

  /** Makes sure someone will claim this service's runs: inline here, or enough worker processes. */
  private dispatch(): void {
    if (this.closed || this.failure) return;
    if (this.mode === 'inline') {
      void this.drainInline();
      return;
    }
    for (const queue of this.queues.keys()) {
      const queued = this.opts.store.lifecycle.queuedCount(queue);
      if (queued === 0) continue;
      // As many new workers as queued runs no live worker of the queue is free to take, within the limit.
      let free = 0;
      for (const w of this.workers.values()) if (w.queue === queue && !w.busy) free++;
      const room = this.maxWorkers - this.workers.size;
      for (let i = 0; i < Math.min(room, queued - free); i++) this.startWorker(queue);
    }
  }

  private draining = 0;
  private async drainInline(): Promise<void> {
    const max = this.maxWorkers;
    if (this.draining >= max) return;
    this.draining++;
    try {
      for (;;) {
        const claimed = [...this.queues.keys()].reduce<ReturnType<Store['lifecycle']['claimRun']>>(
          (got, q) => got ?? this.opts.store.lifecycle.claimRun(q, currentOwner()),
          undefined,
        );
        if (!claimed) return;
        try {
          const { job, root } = frozenJobOf(this.opts.store, claimed.run);
          await executeAttempt(job, claimed.run.id, claimed.attempt, {
            root,
            store: this.opts.store,
            rules: this.opts.rules,
            env: this.opts.env ?? process.env,
            hooks: this.opts.hooks,
            confine: this.opts.confine,
          });
        } catch (error) {
          // An attempt recovered (interrupted) by another opener ends its waiter, which may then close
          // the store under the still-running inline attempt: nothing of it can be recorded any more,
          // and its run has already ended interrupted.
          if (this.closed || !this.opts.store.db.open) return;
          this.fail(error);
          return;
        }
        this.finished.get(claimed.run.id)?.();
      }
    } finally {
      this.draining--;
    }
  }

  /** `dispatch` from an event handler: nobody else would see the store fail there. */
  private redispatch(): void {
    try {
      if (!this.closed) this.dispatch();
    } catch (error) {
      this.fail(error);
    }
  }

  /** A detached worker for `queue`, given only the environment its jobs declare (`workerEnv`). */
  private startWorker(queue: string, declared = this.queues.get(queue) ?? []): void {
    const env = workerEnv(this.opts.env ?? process.env, declared);
    // A resident process's warm standby takes the queue when there is one (standby.ts).
    const confine = this.opts.confine ?? false;
    const child = takeStandby({ store: this.opts.store.dir, queue, confine, env }) ?? this.spawnWorker(queue, env);
    const worker = { queue, busy: false };
    this.workers.set(child, worker);
    this.workersStarted++;
    // The worker prints `+<run>` when it claims a run and the run's id when it ends it: the latter
    // is a prompt wake-up for whoever waits on it.
    let buffered = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const failure = failureOf(line);
        if (failure) this.fail(failure);
        else if (line.startsWith(CLAIMED)) {
          worker.busy = true;
          // It may have claimed a run submitted after it started, which counted it as free then: a
          // run still queued gets a worker of its own now, not when this one's run ends.
          this.redispatch();
        } else {
          worker.busy = false;
          this.finished.get(line)?.();
        }
      }
    });
    child.on('exit', () => {
      this.workers.delete(child);
      this.redispatch();
    });
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
  }

  private spawnWorker(queue: string, env: NodeJS.ProcessEnv): ChildProcess {
    const log = openWorkerLog(this.opts.store.dir, queue);
    try {
      return spawn(
        process.execPath,
        [
          WORKER_MAIN,
          '--store',
          this.opts.store.dir,
          '--queue',
          queue,
          // The worker re-plans jobs from the same kinds this process was handed.
          '--kinds',
          kindsModule(),
          ...(this.opts.confine ? ['--confine'] : []),
        ],
        { detached: true, stdio: ['ignore', 'pipe', log], env },
      );
    } finally {
      closeSync(log);
    }
  }

  /** Ends every wait with `error` (what stopped the workers) and starts no more workers. */
  private fail(error: unknown): void {
    this.failure ??= error;
    for (const wake of this.finished.values()) wake();
  }

  /** Lets this face go; detached workers finish their claimed runs and exit when the queue is empty. */
  close(): void {
    this.closed = true;
    for (const child of this.workers.keys()) child.stdout?.destroy();
  }
}

/** A run deleted from the store (by `vkit store gc`) while someone waited on it. */
function runGone(run: string): VkitError {
  return new VkitError(
    'ERR_RUN_GONE',
    EXIT.blocked,
    `run ${run} was deleted from the store while it was awaited (vkit store gc?)`,
    { hint: 'Build again: the run left no evidence.' },
  );
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
