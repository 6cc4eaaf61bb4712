/**
 * The executor seam: who runs the runs a job service queues. `local` (local-executor.ts) is the
 * detached workers of this machine, or the same claim-and-execute path inline; `nats`
 * (nats-executor.ts) hands each run to the workers of a fleet through NATS JetStream. Whatever the
 * executor, the store stays the record: a run is queued there, its attempt ends there `done` (with an
 * intact receipt of that attempt) or `interrupted`, and the service's `wait` reads only the store.
 */
import type { Store } from '../store/store.js';

/** What an executor may ask of the job service it serves. */
export interface ExecutorHost {
  readonly store: Store;
  /** Each queue of the service and the environment variable names its jobs declare. */
  readonly queues: ReadonlyMap<string, readonly string[]>;
  /** Most workers (slots) at once; the engine sets it from `--jobs`. */
  readonly maxWorkers: number;
  /** Whether the service was closed (its face goes away): start nothing more. */
  readonly closed: boolean;
  /** Whether a failure already stopped the service's workers. */
  readonly failed: boolean;
  /** Wakes whoever waits on `run` (it ended, or may have). */
  wake(run: string): void;
  /** Ends every wait with `error` (what stopped the workers). */
  fail(error: unknown): void;
}

export interface Executor {
  readonly kind: 'local' | 'nats';
  /** Makes sure someone will claim the service's queued runs. Called on every submit and poll. */
  dispatch(): void;
  /** A run queued on another face's queue, waited on here for long: take it over, if this executor can. */
  adopt(queue: string, declared: readonly string[]): boolean;
  /** Tells the worker running `attempt` of `run` to look at its cancel flag now. */
  nudgeCancel(run: string, attempt: { id: string; host: string; pid: number; pid_start: string }): void;
  /** A cancelled attempt that did not end within the grace period: stop what this executor can of it. */
  forceStop(attempt: { id: string; child_pgid: number | null }): Promise<void>;
  /** The face goes away: start nothing more; what already runs goes on as the executor allows. */
  close(): void;
}
