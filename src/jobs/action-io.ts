/**
 * The I/O a worker lends an action: its processes confined by a sandbox (or not run at all when one
 * cannot be made), their logs put into the CAS capped, and its files and outputs read from the root.
 */
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listOutputs } from '../capture/outputs.js';
import { runProcess, STATUS_FD } from '../checkers/process.js';
import { gitDirsOf, outputDirs, toolPaths } from '../checkers/sandbox.js';
import { type Confinement, confine, runConfined } from '../checkers/sandbox-backend.js';
import type { ExecuteIO, ProcessRequest } from '../config/rule.js';
import { liveLogPaths } from '../store/live-log.js';
import { putLog } from '../store/logs.js';
import type { Store } from '../store/store.js';
import type { Job } from './job.js';

/** What the lent I/O needs of the worker's context. */
export interface IoContext {
  root: string;
  store: Store;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Every process sandboxed: a `{ none }` request runs `isolated` (the protected gate). */
  confine?: boolean;
}

/**
 * The I/O lent to an action. Its process logs (the temp files `runProcess` writes, listed in
 * `temps`) are put capped at `logCap` bytes per stream; `putFile` then also answers `dropped_bytes`,
 * which the rule's artifact entry carries into the receipt.
 */
export function actionIo(
  ctx: IoContext,
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
      // Named after the action key: a watcher tails them while the process runs (store/live-log.ts).
      const { stdout: out, stderr: err } = liveLogPaths(ctx.store.cas.tempPath(), job.key);
      temps.push(out, err);
      const spawned = { ...req, onSpawn: (pgid: number) => ctx.store.lifecycle.setChildPgid(attempt, pgid) };
      if (sandboxMode(req, ctx) === undefined) return runProcess(spawned, out, err);
      const result = await runConfined(
        () => sandboxWrap(req, ctx, job, tool),
        (wrap) => runProcess(spawned, out, err, wrap),
        (wrap) => backends.push(wrap.backend),
      );
      if (typeof result !== 'string') return result;
      // Nothing ran: empty logs, so the rule's artifacts (and the receipt) stay well-formed.
      writeFileSync(out, '');
      writeFileSync(err, '');
      return {
        exitCode: null,
        signal: null,
        spawnError: result,
        stdoutPath: out,
        stderrPath: err,
        timedOut: false,
        cancelled: false,
        ms: 0,
      };
    },
    putFile: (path) => (temps.includes(path) ? putLog(ctx.store.cas, path, logCap) : ctx.store.cas.putFile(path)),
    putBytes: async (bytes) => ctx.store.cas.putBytes(bytes),
    listOutputs: async (globs) => listOutputs(ctx.root, globs),
  };
}

/** How one process is confined: `isolated` unless the request says otherwise, undefined for `{ none }`. */
function sandboxMode(req: ProcessRequest, ctx: IoContext): 'isolated' | 'hermetic' | undefined {
  const asked = req.sandbox ?? 'isolated';
  const mode = typeof asked === 'object' && ctx.confine ? 'isolated' : asked;
  return typeof mode === 'object' ? undefined : mode;
}

/** The sandbox confining one process, or why it cannot be confined: then the process does not run at all. */
function sandboxWrap(req: ProcessRequest, ctx: IoContext, job: Job, tool: string | undefined): Confinement | string {
  const mode = sandboxMode(req, ctx) ?? 'isolated';
  const path = (ctx.env.PATH ?? '').split(':').filter((p) => p.startsWith('/'));
  const wanted = [...path, ...(mode === 'isolated' && ctx.env.HOME ? [ctx.env.HOME] : []), ...toolPaths(tool)];
  const keep = wanted.filter(reachable);
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

/**
 * Whether a path this user may look at (or that is simply absent, which a bind that may fail
 * allows): a PATH entry under a directory it may not enter (root's `~/.cargo/bin` on an ordinary
 * user's PATH) is no use to the check outside a sandbox either, and binding it would stop the sandbox.
 */
function reachable(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
