/**
 * A warm standby worker for a resident build process (D52). A detached worker is a new node
 * process: ~150 ms of start-up and module loading before it claims the run an edit queued, on
 * every edit (workers exit 1.5 s after their queue empties, and each workspace has its own
 * queue). A resident process keeps one worker started ahead (`worker-main --standby --kinds URL`:
 * node started, its modules and the kinds loaded, nothing else) waiting on its stdin; the job
 * service hands it its store, queue, sandbox mode and environment there instead of starting a
 * process, and another standby starts a moment later. The standby is given only the variables a
 * worker always gets until then (`workerEnv` with nothing declared), and its environment is
 * replaced by the queue's own before it does anything: it holds what a worker started for that
 * queue would hold. It exits when its stdin closes (the resident process gone). A fresh `build`
 * that finds the tree changed since its no-op record starts one too, never refilled (D55).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { kindsModule } from '../config/kind.js';
import { workerEnv } from './job.js';
import { WORKER_MAIN } from './worker-entry.js';

/** What a standby is told when it is taken: one JSON line on its stdin. */
export interface Assignment {
  store: string;
  queue: string;
  confine: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * After one is taken, the next standby starts when the request that took it ends
 * (`refillStandbyWorker`), or this much later: not while the run it was taken for starts.
 */
const REFILL_MS = 1000;

let pool: StandbyPool | undefined;

class StandbyPool {
  private ready: { child: ChildProcess; kinds: string } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** A resident process starts the next one after each is taken; a one-off command keeps one only. */
    private readonly refills: boolean,
  ) {}

  take(): { child: ChildProcess; kinds: string } | undefined {
    const ready = this.ready;
    this.ready = undefined;
    if (this.refills) this.refill(REFILL_MS);
    return ready && ready.child.exitCode === null && ready.child.signalCode === null ? ready : undefined;
  }

  /**
   * Starts a standby `ms` from now, or at once for 0: a one-off build's job service is made and its
   * first run queued within one synchronous stretch (the capture), in which no timer fires.
   */
  refill(ms: number): void {
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (ms === 0) {
      this.start();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, ms);
    this.timer.unref();
  }

  private start(): void {
    if (this.ready || pool !== this) return;
    const kinds = kindsModule();
    // Its stderr is no pipe or terminal of this process: a reader of a one-off command's output
    // would otherwise wait for the worker's exit, 1.5 s after its queue empties. Once assigned,
    // the worker writes to its queue's log, as any worker does (worker-process.ts).
    const child = spawn(process.execPath, [WORKER_MAIN, '--standby', '--kinds', kinds], {
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
      env: workerEnv(this.env, []),
    });
    child.on('error', () => undefined); // cannot start: the service starts a worker itself
    child.on('exit', () => {
      if (this.ready?.child === child) this.ready = undefined;
    });
    child.unref();
    this.ready = { child, kinds };
  }

  readyPid(): number | undefined {
    const child = this.ready?.child;
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.ready?.child.kill('SIGTERM');
    this.ready = undefined;
  }
}

/** A resident process keeps a standby worker from now on, started with (a worker's share of) `env`. */
export function keepStandbyWorker(env: NodeJS.ProcessEnv): void {
  pool?.close();
  pool = new StandbyPool({ ...env }, true);
  pool.refill(0);
}

/** The environment of the standby a one-off build asked for, until its job service is made. */
let asked: NodeJS.ProcessEnv | undefined;

/**
 * A one-off `build` whose no-op record missed because the work tree or the store's index changed
 * since, or that has no record at all (bin/vkit.js: it most likely runs something), keeps one standby worker, so that when a run
 * is queued its worker is already up (D55). It starts when the build's job service is made
 * (`startSpeculativeStandby`), once the config, listing and graph are done, ~150 ms before the
 * capture queues an edit's run at 1,000 checks: started as the CLI loaded, it competed with those
 * for this machine's two cores (D57). Not taken by the end of the command, it is stopped
 * (`dropStandbyWorker`); its stdin closing with the command would end it anyway.
 */
export function speculativeStandbyWorker(env: NodeJS.ProcessEnv): void {
  asked = { ...env };
}

/** Starts the standby `speculativeStandbyWorker` asked for, if any (a job service, when it is made). */
export function startSpeculativeStandby(): void {
  if (!asked) return;
  pool?.close();
  pool = new StandbyPool(asked, false);
  asked = undefined;
  pool.refill(0);
}

/** Starts the next standby now, if none is ready (a resident process, after each request). */
export function refillStandbyWorker(): void {
  pool?.refill(0);
}

/** The waiting standby's pid, if one is ready. */
export function standbyPid(): number | undefined {
  return pool?.readyPid();
}

export function dropStandbyWorker(): void {
  asked = undefined;
  pool?.close();
  pool = undefined;
}

/**
 * The standby worker, assigned to `a` and now the caller's to watch like one it started; undefined
 * when there is none (not a resident process, or it has not started yet) or it loaded other kinds.
 */
export function takeStandby(a: Assignment): ChildProcess | undefined {
  const ready = pool?.take();
  if (!ready) return undefined;
  if (ready.kinds !== kindsModule()) {
    ready.child.kill('SIGTERM');
    return undefined;
  }
  ready.child.stdin!.end(`${JSON.stringify(a)}\n`);
  return ready.child;
}
