/**
 * One attempt of a job, as a worker (detached process or inline) runs it. It re-plans the job from the rule registry,
 * refuses a job whose key it would not compute itself, heartbeats while the action runs, checks the
 * inputs' stat fingerprints afterwards (invariant 3), and writes the receipt only after every
 * artifact is in the CAS (invariant 1). Only PASS and FAIL are cached (invariant 4).
 */
import { lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintOf, hashPath, sameFingerprint, type Fingerprint } from '../capture/files.js';
import { listGitFilesIfWorkTree } from '../capture/git.js';
import { compileGlob } from '../text/glob.js';
import { listOutputs } from '../capture/outputs.js';
import { selectPaths } from '../capture/selector.js';
import { recordedCapture } from '../capture/tree.js';
import { walkTree } from '../capture/walk.js';
import { checkerIdentity, resolveExecutable } from '../checkers/identity.js';
import { runProcess, STATUS_FD } from '../checkers/process.js';
import { gitDirsOf, outputDirs, toolPaths } from '../checkers/sandbox.js';
import { type Confinement, confine, sandboxFailureHint } from '../checkers/sandbox-backend.js';
import type { ActionResult, CheckerIdentity, ExecuteIO, ProcessRequest, Rule } from '../config/rule.js';
import { EXIT, VkitError } from '../errors.js';
import { jsonId } from '../hash/index.js';
import { logCapOf, putLog } from '../store/logs.js';
import type { Receipt } from '../store/receipt.js';
import { damagedIndex } from '../store/sqlite.js';
import type { RunRow, Store } from '../store/store.js';
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
  const cancel = new AbortController();
  const signals = ctx.signal ? AbortSignal.any([ctx.signal, cancel.signal]) : cancel.signal;
  // The heartbeat and the cancel polls run from a timer and a signal handler: a store that fails
  // under them (damaged, locked) stops the action and is thrown once it has stopped.
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
  ctx = { ...ctx, signal: signals };
  const started = new Date();
  const t0 = performance.now();
  // What confined each process the action ran (the receipt names it).
  const backends: Array<Promise<string>> = [];
  try {
    const rule = ctx.rules.get(job.rule.kind);
    let result: ActionResult;
    let definition: Record<string, unknown> = {};
    let envNames: string[] = [];
    // The "before" fingerprints of invariant 3, taken here, just before the action starts; the
    // bytes must still be the frozen job's (a retry, or an edit since planning, may have moved them).
    const rawDigests = new Map<string, string>();
    const before = snapshotInputs(ctx.root, job, store, rawDigests);
    // A dependency's outputs on disk must be the ones its result (in this job's key) names: a cache
    // hit does not rewrite them, so they may be another run's.
    const depOutputs = typeof before === 'string' ? undefined : dependencyOutputsMoved(ctx.root, job, store);
    const logCap = logCapOf(ctx.env);
    if (!rule || rule.version !== job.rule.version) {
      result = blocked(`rule ${job.rule.kind}@${job.rule.version} is not registered in this vkit`);
    } else if (typeof before === 'string') {
      result = blocked(`inputs no longer match the job: ${before}`);
    } else if (depOutputs) {
      result = blocked(depOutputs);
    } else if (typeof logCap === 'string') {
      result = blocked(logCap);
    } else {
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
      definition = planned.definition;
      envNames = planned.env;
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
          io(ctx, planned.env, temps, attempt, logCap, toolFile(rule, job, ctx), job, backends),
        )
          .catch((error: Error) => blocked(`action failed to run: ${error.message}`))
          .finally(() => temps.forEach((t) => rmSync(t, { force: true })));
      }
    }
    await ctx.hooks?.afterExecute?.(job);
    const changed =
      typeof before === 'string' ? undefined : inputsChanged(ctx.root, before, store, job.capture.hash ?? 'text');
    if (changed && result.outcome !== 'BLOCKED')
      result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: `inputs changed during the run: ${changed}` };
    // Installed dependencies are part of the checker: a run that changed them (an `npm install` in an
    // isolated check) ran on bytes the key does not name.
    const depsChanged = job.checker?.npm && result.outcome !== 'BLOCKED' ? npmDepsChanged(rule, job, ctx) : undefined;
    if (depsChanged) result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: depsChanged };
    const added =
      !changed && result.outcome !== 'BLOCKED' && job.capture.selector
        ? await inputsAdded(ctx.root, job.capture.selector, job.capture.files)
        : undefined;
    if (added)
      result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: `inputs changed during the run: ${added}` };
    // A cancelled attempt ends interrupted (reason `cancelled`), whatever its action managed to report.
    poll(); // a cancel requested while the action ran (its process killed by the canceller) is a cancel, not a failure
    if (storeFailure) throw storeFailure;
    const cancelled = ctx.signal?.aborted === true;
    if (cancelled) result = { ...result, outcome: 'BLOCKED', claim: 'unknown', reason: 'cancelled' };
    const ended = new Date();
    const receipt: Receipt = {
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
    // Invariant 1: every artifact named above was put into the CAS by the action before we got here.
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
        if (result.outcome !== 'BLOCKED')
          store.actions.cachePut({ key: job.key, receipt: receiptId, label: job.label });
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
    clearInterval(beat);
    nudges.delete(attempt);
  }
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

/**
 * The I/O lent to an action. Its process logs (the temp files `runProcess` writes, listed in
 * `temps`) are put capped at `logCap` bytes per stream; `putFile` then also answers `dropped_bytes`,
 * which the rule's artifact entry carries into the receipt.
 */
function io(
  ctx: WorkerContext,
  envNames: readonly string[],
  temps: string[],
  attempt: string,
  logCap: number,
  tool: string | undefined,
  job: Job,
  backends: Array<Promise<string>>,
): ExecuteIO {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', ...envNames]) if (ctx.env[name] !== undefined) env[name] = ctx.env[name]!;
  const signal = ctx.signal ?? new AbortController().signal;
  return {
    root: ctx.root,
    attempt,
    env,
    signal,
    runProcess: async (req) => {
      const out = ctx.store.cas.tempPath();
      const err = ctx.store.cas.tempPath();
      temps.push(out, err);
      const wrap = sandboxWrap(req, ctx, job, tool);
      if (typeof wrap === 'string') {
        // Nothing ran: empty logs, so the rule's artifacts (and the receipt) stay well-formed.
        writeFileSync(out, '');
        writeFileSync(err, '');
        return {
          exitCode: null,
          signal: null,
          spawnError: wrap,
          stdoutPath: out,
          stderrPath: err,
          timedOut: false,
          cancelled: false,
          ms: 0,
        };
      }
      if (wrap) backends.push(wrap.backend);
      try {
        const result = await runProcess(
          { ...req, onSpawn: (pgid) => ctx.store.lifecycle.setChildPgid(attempt, pgid) },
          out,
          err,
          wrap,
        );
        if (result.spawnError && wrap) result.spawnError += sandboxFailureHint(result.spawnError);
        return result;
      } finally {
        wrap?.cleanup();
      }
    },
    putFile: (path) => (temps.includes(path) ? putLog(ctx.store.cas, path, logCap) : ctx.store.cas.putFile(path)),
    putBytes: async (bytes) => ctx.store.cas.putBytes(bytes),
    listOutputs: async (globs) => listOutputs(ctx.root, globs),
  };
}

/**
 * The sandbox confining one process (`isolated` unless the request says otherwise), undefined for
 * `{ none }`, or why it cannot be confined: then the process does not run at all.
 */
function sandboxWrap(
  req: ProcessRequest,
  ctx: WorkerContext,
  job: Job,
  tool: string | undefined,
): Confinement | string | undefined {
  const asked = req.sandbox ?? 'isolated';
  const mode = typeof asked === 'object' && ctx.confine ? 'isolated' : asked;
  if (typeof mode === 'object') return undefined;
  const path = (ctx.env.PATH ?? '').split(':').filter((p) => p.startsWith('/'));
  const keep = [...path, ...(mode === 'isolated' && ctx.env.HOME ? [ctx.env.HOME] : []), ...toolPaths(tool)];
  const protect = [ctx.store.dir, ...gitDirsOf(ctx.root)];
  const layout = {
    mode,
    root: ctx.root,
    cwd: req.cwd,
    protect,
    keep,
    inputs: [...job.capture.files.map((f) => f.path), ...(req.visible ?? [])],
    outputs: req.outputs ?? [],
  };
  // A hermetic check's output directories are bound from the work tree: they must exist there.
  if (mode === 'hermetic')
    for (const dir of outputDirs(layout.outputs)) mkdirSync(join(ctx.root, dir), { recursive: true });
  return confine(layout, STATUS_FD, ctx.env);
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

/**
 * Stats (and, through the file-state cache, hashes) every captured input before the action starts.
 * Returns the fingerprints, or a description of the inputs whose content is no longer the job's;
 * `raw` receives the raw digest of each text-mode input whose CRLF normalisation changed it.
 */
function snapshotInputs(
  root: string,
  job: Job,
  store: Store,
  raw: Map<string, string>,
): Map<string, Fingerprint> | string {
  const fingerprints = new Map<string, Fingerprint>();
  const moved: string[] = [];
  for (const f of job.capture.files) {
    let now;
    try {
      now = hashPath(join(root, f.path), job.capture.hash ?? 'text', { cache: store.fileStates, now: store.now });
    } catch {
      now = undefined;
    }
    if (!now) moved.push(`${f.path} (deleted)`);
    else if (now.sha256 !== f.sha256 || now.mode !== f.mode) moved.push(f.path);
    else {
      fingerprints.set(f.path, now.fingerprint);
      if (now.raw) raw.set(f.path, now.raw); // the bytes the check will read, for the receipt
    }
  }
  return moved.length ? summarise(moved) : fingerprints;
}

/**
 * The dependencies' outputs (artifacts `outputs/<root-relative path>`) whose bytes on disk are not
 * the ones the dependency's result names, described with the way out; undefined when all match.
 */
function dependencyOutputsMoved(root: string, job: Job, store: Store): string | undefined {
  for (const dep of job.deps) {
    const moved: string[] = [];
    for (const a of dep.artifacts) {
      if (!a.name.startsWith('outputs/')) continue;
      const path = a.name.slice('outputs/'.length);
      let now;
      try {
        now = hashPath(join(root, path), 'raw', { cache: store.fileStates, now: store.now });
      } catch {
        now = undefined;
      }
      if (!now) moved.push(`${path} (missing)`);
      else if (now.sha256 !== a.sha256) moved.push(path);
    }
    if (moved.length)
      return `outputs of ${dep.label} on disk are not the ones its result names: ${summarise(moved)}; rerun ${dep.label} (vkit verify --check ${dep.label.replace(/^check:/, '')})`;
  }
  return undefined;
}

/**
 * Invariant 3: compares each input's stat fingerprint with the one taken just before the action
 * started. Any difference (even an edit undone before the end) means the result may not describe
 * the captured bytes. Changed files are re-hashed so the file-state cache stays true.
 */
function inputsChanged(
  root: string,
  before: Map<string, Fingerprint>,
  store: Store,
  hashMode: 'raw' | 'text',
): string | undefined {
  const changed: string[] = [];
  for (const [path, fingerprint] of before) {
    const abs = join(root, path);
    let now;
    try {
      now = fingerprintOf(lstatSync(abs, { bigint: true }));
    } catch {
      changed.push(`${path} (deleted)`);
      continue;
    }
    if (!sameFingerprint(now, fingerprint)) {
      changed.push(path);
      try {
        hashPath(abs, hashMode, { cache: store.fileStates, now: store.now });
      } catch {
        // a file that became special is reported as changed already
      }
    }
  }
  return changed.length ? summarise(changed) : undefined;
}

/**
 * Invariant 3 for files that were not there to fingerprint: the selector is applied again to the
 * working tree as it is now (listed as the engine lists it: git's tracked and untracked non-ignored
 * files, limited to the globs' directories, or a walk without git); a path selected now that the
 * capture did not hold means the result may describe other inputs.
 */
async function inputsAdded(
  root: string,
  globs: readonly string[],
  captured: readonly { path: string }[],
): Promise<string | undefined> {
  const prefixes = globs
    .map(compileGlob)
    .filter((g) => !g.negated)
    .map((g) => g.prefix); // a directory prefix, or a literal's own path
  let files: string[];
  try {
    files = (await listGitFilesIfWorkTree(root, prefixes)) ?? walkTree(root);
  } catch (error) {
    return `the working tree could not be listed again (${(error as Error).message})`;
  }
  const had = new Set(captured.map((f) => f.path));
  // git lists a tracked file deleted from the working tree; the capture skipped it as absent, and so does this.
  const extra = selectPaths(globs, files.sort()).filter(
    (p) => !had.has(p) && lstatSync(join(root, p), { throwIfNoEntry: false }) !== undefined,
  );
  return extra.length ? summarise(extra.map((p) => `${p} (added)`)) : undefined;
}

function summarise(paths: string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
}
