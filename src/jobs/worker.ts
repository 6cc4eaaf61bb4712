/**
 * One attempt of a job, as a worker (detached process or inline) runs it. It re-plans the job from the rule registry,
 * refuses a job whose key it would not compute itself, heartbeats while the action runs, checks the
 * inputs' stat fingerprints afterwards (invariant 3), and writes the receipt only after every
 * artifact is in the CAS (invariant 1). Only PASS and FAIL are cached (invariant 4). The input
 * checks are in input-checks.ts, the I/O lent to the action in action-io.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Fingerprint } from '../capture/files.js';
import { recordedCapture } from '../capture/tree.js';
import { checkerIdentity, resolveExecutable } from '../checkers/identity.js';
import type { ActionResult, CheckerIdentity, ExecuteIO, Rule } from '../config/rule.js';
import { EXIT, VkitError } from '../errors.js';
import { jsonId } from '../hash/index.js';
import { logCapOf } from '../store/logs.js';
import type { Receipt } from '../store/receipt.js';
import { damagedIndex } from '../store/sqlite.js';
import type { RunRow, Store } from '../store/store.js';
import { actionIo } from './action-io.js';
import { dependencyOutputsMoved, inputsAdded, inputsChanged, snapshotInputs } from './input-checks.js';
import { actionKey, envDigests, type Job } from './job.js';

export interface WorkerContext {
  root: string;
  store: Store;
  rules: ReadonlyMap<string, Rule>;
  /** The environment the check's declared variables are read from. */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Fault-injection hooks for tests: called at named points of the attempt. */
  hooks?: WorkerHooks;
  /** Every process sandboxed: a `{ none }` request runs `isolated` (the protected gate). */
  confine?: boolean;
}

export interface WorkerHooks {
  /** After the action finished, before its inputs are re-checked. */
  afterExecute?(job: Job): void | Promise<void>;
}

export interface AttemptResult {
  run: string;
  attempt: string;
  receipt: string;
  outcome: Receipt['outcome'];
  reason: string | null;
  artifacts: Receipt['artifacts'];
  cached: boolean;
  ms: number;
  /** A bounded wait ended first: the run goes on in its worker. */
  pending?: boolean;
  assurance?: Receipt['assurance'];
  endedAt?: string | null;
  subject?: Receipt['subject'];
}

const HEARTBEAT_MS = 1000;

/**
 * Runs a claimed attempt to its end. The heartbeat also polls the attempt's cancel flag, so a
 * cancellation from any process reaches the action within a second (a nudge signal makes it sooner).
 */
export async function executeAttempt(
  job: Job,
  run: string,
  attempt: string,
  ctx: WorkerContext,
): Promise<AttemptResult> {
  const { store } = ctx;
  const heartbeat = startHeartbeat(store, attempt, ctx.signal);
  ctx = { ...ctx, signal: heartbeat.signal };
  const started = new Date();
  const t0 = performance.now();
  // What confined each process the action ran (the receipt names it).
  const backends: Array<Promise<string>> = [];
  try {
    const action = await runAction(job, attempt, ctx, backends);
    await ctx.hooks?.afterExecute?.(job);
    let result = await recheckInputs(ctx, job, action.before, action.result);
    // A cancelled attempt ends interrupted (reason `cancelled`), whatever its action managed to report.
    heartbeat.poll(); // a cancel requested while the action ran (its process killed by the canceller) is a cancel, not a failure
    const storeFailure = heartbeat.storeFailure();
    if (storeFailure) throw storeFailure;
    const cancelled = ctx.signal?.aborted === true;
    if (cancelled) result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: 'cancelled' };
    const receipt = await receiptOf(job, run, attempt, action, result, backends, started, t0);
    return recordAttempt(store, job, run, attempt, receipt, result, cancelled);
  } catch (error) {
    try {
      store.lifecycle.finishAttempt({
        run,
        attempt,
        state: 'interrupted',
        outcome: 'BLOCKED',
        reason: `internal error: ${(error as Error).message}`,
      });
    } catch {
      // The store cannot record it (the error may be the store's own): recovery ends the attempt
      // once its heartbeat is stale and this process is gone. The first error is the one to report.
    }
    throw error;
  } finally {
    heartbeat.stop();
  }
}

/**
 * The attempt's heartbeat and cancel polls. They run from a timer and a signal handler: a store
 * that fails under them (damaged, locked) stops the action, and `storeFailure` gives that error to
 * be thrown once the action has stopped.
 */
function startHeartbeat(store: Store, attempt: string, outer: AbortSignal | undefined) {
  const cancel = new AbortController();
  const signal = outer ? AbortSignal.any([outer, cancel.signal]) : cancel.signal;
  let storeFailure: unknown;
  const guarded = (fn: () => void) => () => {
    try {
      fn();
    } catch (error) {
      storeFailure ??= error;
      cancel.abort();
    }
  };
  const poll = guarded(() => {
    if (store.lifecycle.cancelRequested(attempt)) cancel.abort();
  });
  const beat = setInterval(
    guarded(() => {
      store.lifecycle.heartbeat(attempt);
      poll();
    }),
    HEARTBEAT_MS,
  );
  beat.unref();
  nudges.set(attempt, poll);
  return {
    signal,
    poll,
    storeFailure: (): unknown => storeFailure,
    stop(): void {
      clearInterval(beat);
      nudges.delete(attempt);
    },
  };
}

/** What the attempt's action did, with what the receipt records of how it was planned. */
interface ActionRun {
  result: ActionResult;
  definition: Record<string, unknown>;
  envNames: string[];
  /** The inputs' fingerprints just before the action started, or why they were no longer the job's. */
  before: Map<string, Fingerprint> | string;
  /** The raw digest of each text-mode input whose CRLF normalisation changed it. */
  rawDigests: Map<string, string>;
}

/** Runs the job's action, unless its rule, inputs, dependencies' outputs or log cap refuse it first. */
async function runAction(
  job: Job,
  attempt: string,
  ctx: WorkerContext,
  backends: Array<Promise<string>>,
): Promise<ActionRun> {
  const rule = ctx.rules.get(job.rule.kind);
  // The "before" fingerprints of invariant 3, taken here, just before the action starts; the
  // bytes must still be the frozen job's (a retry, or an edit since planning, may have moved them).
  const rawDigests = new Map<string, string>();
  const before = snapshotInputs(ctx.root, job, ctx.store, rawDigests);
  // A dependency's outputs on disk must be the ones its result (in this job's key) names: a cache
  // hit does not rewrite them, so they may be another run's.
  const depOutputs = typeof before === 'string' ? undefined : dependencyOutputsMoved(ctx.root, job, ctx.store);
  const logCap = logCapOf(ctx.env);
  const refused = (reason: string): ActionRun => ({
    result: blocked(reason),
    definition: {},
    envNames: [],
    before,
    rawDigests,
  });
  if (!rule || rule.version !== job.rule.version)
    return refused(`rule ${job.rule.kind}@${job.rule.version} is not registered in this vkit`);
  if (typeof before === 'string') return refused(`inputs no longer match the job: ${before}`);
  if (depOutputs) return refused(depOutputs);
  if (typeof logCap === 'string') return refused(logCap);
  return { ...(await planAndExecute(rule, job, attempt, ctx, logCap, backends)), before, rawDigests };
}

/**
 * Plans the job again under this worker and runs its action only when the key it computes is the
 * job's own and the attempt was not cancelled.
 */
async function planAndExecute(
  rule: Rule,
  job: Job,
  attempt: string,
  ctx: WorkerContext,
  logCap: number,
  backends: Array<Promise<string>>,
): Promise<Pick<ActionRun, 'result' | 'definition' | 'envNames'>> {
  // The tool is resolved again here, under this worker's PATH: a retry, an adopted run or a tool
  // replaced since planning must not run another tool under the frozen checker identity.
  const checker = currentChecker(rule, job, ctx);
  const planned = rule.plan(
    {
      label: job.label,
      id: job.id,
      attrs: job.attrs,
      capture: job.capture,
      checker: typeof checker === 'string' ? job.checker : checker,
    },
    job.deps,
  );
  const definition = planned.definition;
  const envNames = planned.env;
  const recomputed =
    typeof checker === 'string'
      ? undefined
      : actionKey({
          rule: job.rule,
          capture: job.capture.digest,
          definition,
          env: envDigests(planned.env, ctx.env),
          checker: checker ?? null,
          deps: job.deps,
        });
  let result: ActionResult;
  if (typeof checker === 'string') result = blocked(checker);
  else if (recomputed !== job.key)
    result = blocked(
      'job identity changed between planning and execution (environment, tool or rule changed); rerun the build',
    );
  else if (ctx.signal?.aborted) result = blocked('cancelled');
  else {
    const temps: string[] = [];
    result = await execute(
      planned.execute,
      actionIo(ctx, planned.env, temps, attempt, logCap, toolFile(rule, job, ctx), job, backends),
    )
      .catch((error: Error) => blocked(`action failed to run: ${error.message}`))
      .finally(() => temps.forEach((t) => rmSync(t, { force: true })));
  }
  return { result, definition, envNames };
}

/** Invariant 3 after the action: an input that changed, or appeared, while it ran makes the result BLOCKED. */
async function recheckInputs(
  ctx: WorkerContext,
  job: Job,
  before: ActionRun['before'],
  ran: ActionResult,
): Promise<ActionResult> {
  let result = ran;
  const changed =
    typeof before === 'string' ? undefined : inputsChanged(ctx.root, before, ctx.store, job.capture.hash ?? 'text');
  if (changed && result.outcome !== 'BLOCKED')
    result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: `inputs changed during the run: ${changed}` };
  const added =
    !changed && result.outcome !== 'BLOCKED' && job.capture.selector
      ? await inputsAdded(ctx.root, job.capture.selector, job.capture.files)
      : undefined;
  if (added)
    result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: `inputs changed during the run: ${added}` };
  // Installed dependencies are part of the checker: a run that changed them (an `npm install` in an
  // isolated check) ran on bytes the key does not name.
  const depsChanged =
    job.checker?.npm && result.outcome !== 'BLOCKED'
      ? npmDepsChanged(ctx.rules.get(job.rule.kind), job, ctx)
      : undefined;
  if (depsChanged) result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: depsChanged };
  return result;
}

/** The attempt's receipt: the frozen job, what its action was planned as, and the result as finally judged. */
async function receiptOf(
  job: Job,
  run: string,
  attempt: string,
  action: ActionRun,
  result: ActionResult,
  backends: Array<Promise<string>>,
  started: Date,
  t0: number,
): Promise<Receipt> {
  const { definition, envNames, before, rawDigests } = action;
  const ended = new Date();
  return {
    schema: 'vkit.receipt/1',
    label: job.label,
    kind: job.rule.kind,
    job: job.key,
    key: job.key,
    run,
    attempt,
    rule: job.rule,
    policy_sha256: job.policy,
    definition_sha256: jsonId(definition),
    definition,
    capture: recordedCapture(job.capture, typeof before === 'string' ? undefined : rawDigests),
    checker: job.checker ?? null,
    deps: job.deps,
    env: envNames,
    outcome: result.outcome,
    reason: result.reason ?? null,
    claim: result.claim,
    assurance: result.assurance ?? 'empirical',
    ...(result.subject ? { subject: result.subject } : {}),
    obligations: [{ id: job.label, outcome: result.outcome, claim: result.claim }],
    artifacts: result.artifacts,
    exit_code: result.exitCode ?? null,
    ...(backends.length > 0 ? { confined_by: [...new Set(await Promise.all(backends))].sort() } : {}),
    timings: {
      started_at: started.toISOString(),
      ended_at: ended.toISOString(),
      ms: Math.round(performance.now() - t0),
    },
  };
}

/**
 * Records the receipt and finishes the attempt. Only a finished attempt's result is cached or made
 * the label's latest, and one the store shows interrupted meanwhile is answered BLOCKED.
 */
function recordAttempt(
  store: Store,
  job: Job,
  run: string,
  attempt: string,
  receipt: Receipt,
  result: ActionResult,
  cancelled: boolean,
): AttemptResult {
  // Invariant 1: every artifact the receipt names was put into the CAS by the action before we got here.
  const receiptId = store.actions.putReceipt(receipt);
  const finished = store.lifecycle.finishAttempt({
    run,
    attempt,
    receipt: receiptId,
    ...(cancelled
      ? { state: 'interrupted', outcome: 'BLOCKED', reason: 'cancelled' }
      : { state: 'done', outcome: result.outcome, reason: result.reason }),
  });
  if (finished) {
    store.batch(() => {
      // Invariant 4: BLOCKED (timeouts, signals, missing tools, changed inputs) is never cached.
      if (result.outcome !== 'BLOCKED') store.actions.cachePut({ key: job.key, receipt: receiptId, label: job.label });
      store.actions.setLatest({ label: job.label, receipt: receiptId, key: job.key });
    });
  }
  const outcome = finished ? result.outcome : 'BLOCKED';
  const reason = finished ? (result.reason ?? null) : 'attempt was interrupted before it finished';
  return {
    run,
    attempt,
    receipt: receiptId,
    outcome,
    reason,
    artifacts: result.artifacts,
    cached: false,
    ms: receipt.timings.ms,
  };
}

/**
 * A detached worker prints `+<run>` on its stdout when it claims a run, the run's id when it ends
 * it, and, when it stops on a
 * `VkitError` (a damaged or locked store), one line `failed <json>` with that error, so the face
 * waiting on its queue ends with it instead of starting worker after worker.
 */
const FAILED = 'failed ';
/** Prefix of a worker's line saying it claimed a run (run ids never start with it). */
export const CLAIMED = '+';

export function failureLine(error: VkitError): string {
  return `${FAILED}${JSON.stringify({ code: error.code, exit: error.exitCode, message: error.message, where: error.where, hint: error.hint })}\n`;
}

/** The error a `failureLine` carries, or undefined for any other line (a run id). */
export function failureOf(line: string): VkitError | undefined {
  if (!line.startsWith(FAILED)) return undefined;
  let e: { code: string; exit: VkitError['exitCode']; message: string; where?: string; hint?: string };
  try {
    e = JSON.parse(line.slice(FAILED.length));
  } catch {
    return new VkitError('ERR_WORKER', EXIT.internal, `a worker stopped with an unreadable report: ${line}`);
  }
  return new VkitError(e.code, e.exit, e.message, { where: e.where, hint: e.hint });
}

/**
 * The frozen job a run names, and the directory the run executes in. A job missing from the store
 * or not parsing is a damaged store (exit 3), as for any other value vkit never writes.
 */
export function frozenJobOf(store: Store, run: RunRow): { job: Job; root: string } {
  const frozen = store.lifecycle.getJob(run.job);
  let job: Job | undefined;
  try {
    job = frozen ? (JSON.parse(frozen.job) as Job) : undefined;
  } catch {
    job = undefined;
  }
  if (!frozen || typeof job !== 'object' || job === null)
    throw damagedIndex(
      store.index,
      `run ${run.id} names the frozen job ${run.job}, which is ${frozen ? 'not JSON' : 'missing'}`,
    );
  return { job, root: run.root ?? frozen.root };
}

/** Cancel-flag checks of the attempts running in this process, for a nudge (SIGUSR2) to run at once. */
const nudges = new Map<string, () => void>();

export function checkCancellations(): void {
  for (const poll of nudges.values()) poll();
}

/**
 * The checker identity of the job's tool as this worker would run it (the engine's computation:
 * argv0 resolved from the check's cwd on this environment's PATH), or why it cannot be resolved.
 */
function currentChecker(rule: Rule, job: Job, ctx: WorkerContext): CheckerIdentity | undefined | string {
  const tool = rule.tool?.(job.attrs as never);
  if (!tool) return job.checker === undefined ? undefined : 'the job names a checker but its rule runs no tool';
  try {
    return checkerIdentity(tool.argv0, tool.shell, {
      cwd: join(ctx.root, String((job.attrs as { cwd?: unknown }).cwd ?? '.')),
      path: ctx.env.PATH,
      cache: ctx.store.fileStates,
      now: ctx.store.now,
      npm: tool.npm?.length ? { root: ctx.root, dirs: tool.npm } : undefined,
    });
  } catch (error) {
    return `checker identity could not be computed: ${(error as Error).message}`;
  }
}

/** Why the job's installed npm dependencies are no longer the ones its checker identity names, or undefined. */
function npmDepsChanged(rule: Rule | undefined, job: Job, ctx: WorkerContext): string | undefined {
  const now = rule ? currentChecker(rule, job, ctx) : undefined;
  if (typeof now === 'string') return `installed npm dependencies changed during the run: ${now}`;
  if (JSON.stringify(now?.npm) !== JSON.stringify(job.checker?.npm))
    return 'installed npm dependencies changed during the run';
  return undefined;
}

function blocked(reason: string): ActionResult {
  return { outcome: 'BLOCKED', reason, claim: 'unknown', artifacts: [] };
}

async function execute(fn: (io: ExecuteIO) => Promise<ActionResult>, io: ExecuteIO): Promise<ActionResult> {
  const result = await fn(io);
  // A rule may only claim what its outcome supports; anything else is a rule bug, and fails closed.
  if (result.outcome === 'PASS' && result.claim !== 'established')
    return {
      ...result,
      outcome: 'BLOCKED',
      claim: 'unknown',
      reason: 'rule reported PASS without an established claim',
    };
  return result;
}

/** The executable file the job's rule runs (for a hermetic sandbox to show it), when it can be found. */
function toolFile(rule: Rule, job: Job, ctx: WorkerContext): string | undefined {
  const tool = rule.tool?.(job.attrs as never);
  if (!tool) return undefined;
  try {
    return resolveExecutable(
      tool.argv0,
      join(ctx.root, String((job.attrs as { cwd?: unknown }).cwd ?? '.')),
      ctx.env.PATH,
    );
  } catch {
    return undefined;
  }
}
