/**
 * The job service every face submits through. Today it has one in-process worker; the job-service
 * issue adds detached workers behind this same interface. Identical jobs submitted concurrently run
 * once: later submitters share the first attempt's result.
 */
import type { Rule } from '../config/rule.js';
import type { Store } from '../store/store.js';
import type { Job } from './job.js';
import { runAttempt, type AttemptResult, type WorkerHooks } from './worker.js';

export interface JobServiceOptions {
  root: string;
  store: Store;
  rules: ReadonlyMap<string, Rule>;
  env?: NodeJS.ProcessEnv;
  hooks?: WorkerHooks;
}

export class JobService {
  private readonly inflight = new Map<string, Promise<AttemptResult>>();
  constructor(private readonly opts: JobServiceOptions) {}

  /** Runs a job to completion. The job crosses a serialisation boundary, as it will to a detached worker. */
  run(job: Job, signal?: AbortSignal): Promise<AttemptResult> {
    const running = this.inflight.get(job.key);
    if (running) return running;
    const frozen = JSON.parse(JSON.stringify(job)) as Job;
    const promise = runAttempt(frozen, {
      root: this.opts.root,
      store: this.opts.store,
      rules: this.opts.rules,
      env: this.opts.env ?? process.env,
      signal,
      hooks: this.opts.hooks,
    }).finally(() => this.inflight.delete(job.key));
    this.inflight.set(job.key, promise);
    return promise;
  }
}
