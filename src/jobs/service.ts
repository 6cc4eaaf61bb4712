/**
 * The job service every face submits through: submit, wait, cancel, retry. The store is the queue:
 * `submit` freezes the job and queues a run on this service's own queue; its executor (executor.ts)
 * sees that someone claims it. By default that is the local executor: detached worker processes
 * (`worker-main.ts`) that outlive the face, or with fault-injection hooks (tests) the same
 * claim-and-execute path inline in this process. Identical jobs submitted concurrently through one
 * service share one run.
 */
import { reapAttemptContainers } from './containers.js';
import { availableParallelism } from 'node:os';
import type { Rule } from '../config/rule.js';
import { EXIT, VkitError } from '../errors.js';
import { parseReceipt } from '../store/receipt.js';
import { newId, type RunRow, type Store } from '../store/store.js';
import { sha256Id } from '../hash/index.js';
import type { Executor, ExecutorHost } from './executor.js';
import type { Job } from './job.js';
import { LocalExecutor } from './local-executor.js';
import { startSpeculativeStandby } from './standby.js';
import { frozenJobOf, type AttemptResult, type WorkerHooks } from './worker.js';

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
  /** Who runs the queued runs, given this service as its host; the local executor when absent. */
  executor?: (host: ExecutorHost) => Executor;
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
  private readonly finished = new Map<string, () => void>();
  /** Who runs this service's queued runs. */
  readonly executor: Executor;
  private closed = false;
  /** What stopped this service's workers (a damaged or locked store): every waiter ends with it. */
  private failure: unknown;
  /** Most workers at once; the engine sets it from `--jobs`. */
  maxWorkers = availableParallelism();

  constructor(private readonly opts: JobServiceOptions) {
    this.queue = newId('q', opts.store.now());
    this.queues.set(this.queue, []);
    this.executor = (opts.executor ?? ((host) => new LocalExecutor(host, opts)))(this.host());
    // Attempts the store recovered when it opened may have left containers behind.
    void reapAttemptContainers(opts.store.recovered).catch(() => undefined);
    // A build that most likely runs something asked for a worker ahead (D55, D57): it starts now.
    startSpeculativeStandby();
  }

  /** Detached workers the local executor has started, ever (what a test of `dispatch` counts). */
  get workersStarted(): number {
    return this.executor instanceof LocalExecutor ? this.executor.workersStarted : 0;
  }

  /** This service as its executor sees it. */
  private host(): ExecutorHost {
    const service = this;
    return {
      store: this.opts.store,
      queues: this.queues,
      get maxWorkers() {
        return service.maxWorkers;
      },
      get closed() {
        return service.closed;
      },
      get failed() {
        return service.failure !== undefined;
      },
      wake: (run) => this.finished.get(run)?.(),
      fail: (error) => this.fail(error),
    };
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
      if (!adopted && row.state === 'queued' && row.queue && !this.queues.has(row.queue) && !this.closed) {
        const queuedMs = Number((this.opts.store.now() - BigInt(row.created_ns)) / 1_000_000n);
        if (queuedMs > (this.opts.adoptAfterMs ?? ADOPT_AFTER_MS))
          adopted = this.executor.adopt(row.queue, frozenJobOf(this.opts.store, row).job.env ?? []);
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
      if (attempt) this.executor.nudgeCancel(runId, attempt);
      const waited = await this.wait(runId, CANCEL_GRACE_MS);
      if (waited.timedOut) {
        // Only this run's own attempt is stopped. The compare-and-set then settles the race with completion.
        const a = store.lifecycle.runningAttempt(runId);
        if (a) {
          await this.executor.forceStop(a);
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

  /** Makes sure someone will claim this service's runs (the executor's part). */
  private dispatch(): void {
    if (this.closed || this.failure) return;
    this.executor.dispatch();
  }

  /** Ends every wait with `error` (what stopped the workers) and starts no more workers. */
  private fail(error: unknown): void {
    this.failure ??= error;
    for (const wake of this.finished.values()) wake();
  }

  /** Lets this face go; detached workers finish their claimed runs and exit when the queue is empty. */
  close(): void {
    this.closed = true;
    this.executor.close();
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
