/**
 * The local executor: the detached worker processes of this machine (`worker-main.ts`), one per
 * concurrent job, or with fault-injection hooks (tests) the same claim-and-execute path inline in
 * this process. This is what the job service did by itself before the executor seam; its behaviour
 * is unchanged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { kindsModule } from '../config/kind.js';
import type { Rule } from '../config/rule.js';
import { currentOwner, ownerAlive } from '../store/liveness.js';
import type { Store } from '../store/store.js';
import { reapAttemptContainers } from './containers.js';
import type { Executor, ExecutorHost } from './executor.js';
import { workerEnv } from './job.js';
import { takeStandby } from './standby.js';
import { openWorkerLog, WORKER_MAIN } from './worker-entry.js';
import { checkCancellations, CLAIMED, executeAttempt, failureOf, frozenJobOf, type WorkerHooks } from './worker.js';

export interface LocalExecutorOptions {
  root: string;
  rules: ReadonlyMap<string, Rule>;
  env?: NodeJS.ProcessEnv;
  hooks?: WorkerHooks;
  /** `detached` (default) or `inline`; hooks force inline, as they cannot cross a process boundary. */
  workers?: 'detached' | 'inline';
  confine?: boolean;
}

export class LocalExecutor implements Executor {
  readonly kind = 'local' as const;
  /**
   * Each live worker, its queue and whether it holds a run now. A worker that has not claimed yet
   * (still starting) or has ended its run (idling before it exits) will take the next queued run:
   * counting it keeps `dispatch`, called on every poll of `wait`, from starting a second node
   * process for a run the first one is about to claim.
   */
  private readonly workers = new Map<ChildProcess, { queue: string; busy: boolean }>();
  /** Detached workers started, ever (what a test of `dispatch` counts). */
  workersStarted = 0;
  readonly mode: 'detached' | 'inline';
  private draining = 0;

  constructor(
    private readonly host: ExecutorHost,
    private readonly opts: LocalExecutorOptions,
  ) {
    this.mode = opts.hooks ? 'inline' : (opts.workers ?? 'detached');
  }

  /** Makes sure someone will claim the service's runs: inline here, or enough worker processes. */
  dispatch(): void {
    const { host } = this;
    if (host.closed || host.failed) return;
    if (this.mode === 'inline') {
      void this.drainInline();
      return;
    }
    for (const queue of host.queues.keys()) {
      const queued = host.store.lifecycle.queuedCount(queue);
      if (queued === 0) continue;
      // As many new workers as queued runs no live worker of the queue is free to take, within the limit.
      let free = 0;
      for (const w of this.workers.values()) if (w.queue === queue && !w.busy) free++;
      const room = host.maxWorkers - this.workers.size;
      for (let i = 0; i < Math.min(room, queued - free); i++) this.startWorker(queue);
    }
  }

  adopt(queue: string, declared: readonly string[]): boolean {
    if (this.mode !== 'detached' || this.host.closed) return false;
    this.startWorker(queue, declared);
    return true;
  }

  nudgeCancel(_run: string, attempt: { host: string; pid: number; pid_start: string }): void {
    if (attempt.pid === process.pid)
      checkCancellations(); // an inline attempt of this process
    else if (ownerAlive({ host: attempt.host, pid: attempt.pid, pidStart: attempt.pid_start })) {
      try {
        process.kill(attempt.pid, 'SIGUSR2');
      } catch {
        // gone meanwhile: the grace period settles it
      }
    }
  }

  async forceStop(attempt: { id: string; child_pgid: number | null }): Promise<void> {
    // Only this run's own check: its worker may since have moved on to another run, so the worker
    // itself is never killed.
    if (attempt.child_pgid) killQuietly(-attempt.child_pgid);
    await reapAttemptContainers([attempt.id]).catch(() => undefined);
  }

  close(): void {
    for (const child of this.workers.keys()) child.stdout?.destroy();
  }

  private async drainInline(): Promise<void> {
    const { host } = this;
    if (this.draining >= host.maxWorkers) return;
    this.draining++;
    try {
      for (;;) {
        const claimed = [...host.queues.keys()].reduce<ReturnType<Store['lifecycle']['claimRun']>>(
          (got, q) => got ?? host.store.lifecycle.claimRun(q, currentOwner()),
          undefined,
        );
        if (!claimed) return;
        try {
          const { job, root } = frozenJobOf(host.store, claimed.run);
          await executeAttempt(job, claimed.run.id, claimed.attempt, {
            root,
            store: host.store,
            rules: this.opts.rules,
            env: this.opts.env ?? process.env,
            hooks: this.opts.hooks,
            confine: this.opts.confine,
          });
        } catch (error) {
          // An attempt recovered (interrupted) by another opener ends its waiter, which may then close
          // the store under the still-running inline attempt: nothing of it can be recorded any more,
          // and its run has already ended interrupted.
          if (host.closed || !host.store.db.open) return;
          host.fail(error);
          return;
        }
        host.wake(claimed.run.id);
      }
    } finally {
      this.draining--;
    }
  }

  /** `dispatch` from an event handler: nobody else would see the store fail there. */
  private redispatch(): void {
    try {
      if (!this.host.closed) this.dispatch();
    } catch (error) {
      this.host.fail(error);
    }
  }

  /** A detached worker for `queue`, given only the environment its jobs declare (`workerEnv`). */
  private startWorker(queue: string, declared = this.host.queues.get(queue) ?? []): void {
    const env = workerEnv(this.opts.env ?? process.env, declared);
    // A resident process's warm standby takes the queue when there is one (standby.ts).
    const confine = this.opts.confine ?? false;
    const child = takeStandby({ store: this.host.store.dir, queue, confine, env }) ?? this.spawnWorker(queue, env);
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
        if (failure) this.host.fail(failure);
        else if (line.startsWith(CLAIMED)) {
          worker.busy = true;
          // It may have claimed a run submitted after it started, which counted it as free then: a
          // run still queued gets a worker of its own now, not when this one's run ends.
          this.redispatch();
        } else {
          worker.busy = false;
          this.host.wake(line);
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
    const log = openWorkerLog(this.host.store.dir, queue);
    try {
      return spawn(
        process.execPath,
        [
          WORKER_MAIN,
          '--store',
          this.host.store.dir,
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
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
