/**
 * What a config leaves behind when its answer is taken, in its own thread (config-thread.ts). Its
 * answer must not depend on timing, and its processes must not outlive its evaluation:
 *
 * - Timers. vkit waits for every one-shot timer the config started (`setTimeout`, `setImmediate`,
 *   their `node:timers` and `node:timers/promises` forms) that is due within the config's time limit,
 *   then for one more turn of the event loop, before the answer is sent: an error or unhandled
 *   rejection raised in one is the config's error (exit 2) whether it fires at 0 ms or at 50 ms.
 *   Intervals, and timers due after the time limit, can never be waited for: they are cleared, and
 *   never run after the answer either.
 * - Processes. A child the config started and that still runs at the answer (a `detached` one
 *   included, and its process group) is killed, and so is any process still carrying the config's
 *   marker in its environment (a shell's background job, started by `execSync`). A config that runs
 *   a command to its end (`execSync('git rev-parse HEAD')`) is not affected. Killing rather than
 *   refusing keeps the answer independent of how fast the child ended on its own.
 *
 * What stays out of reach, as native code does: a config that goes around node's own modules, or
 * starts a process with an environment of its own that then leaves its process group.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

/** The variable every process the config starts inherits (the thread's own environment holds it). */
const MARKER = 'VKIT_CONFIG_PROCESS';

/** Taken before the config runs: a config may replace its globals (`globalThis.Promise = undefined`). */
const OwnPromise = globalThis.Promise;

type Timer = { unref?: () => unknown };
type AnyFn = (...args: unknown[]) => unknown;

/** Timers, their promise forms and children the config started, as settle() and reap() need them. */
export interface Leftovers {
  /** Resolves once every one-shot timer due within the limit has fired or been cleared, the rest cleared. */
  settle(): Promise<void>;
  /** Kills what the config started that still runs; true when it started any process at all. */
  reap(): boolean;
}

export function watchLeftovers(limitMs: number): Leftovers {
  const timers = watchTimers(limitMs);
  const children = watchChildren();
  return { settle: timers, reap: children };
}

function watchTimers(limitMs: number): () => Promise<void> {
  const timers = process.getBuiltinModule('node:timers') as unknown as Record<string, AnyFn>;
  const promises = process.getBuiltinModule('node:timers/promises') as unknown as Record<string, AnyFn>;
  const original = { ...timers };
  const awaited = new Set<unknown>();
  const cleared = new Set<Timer>();
  let wake: (() => void) | undefined;
  const done = (handle: unknown) => {
    awaited.delete(handle);
    if (awaited.size === 0) wake?.();
  };
  const once = (name: 'setTimeout' | 'setImmediate', clear: 'clearTimeout' | 'clearImmediate') => {
    timers[name] = (fn: unknown, ...rest: unknown[]) => {
      if (typeof fn !== 'function') return original[name]!(fn, ...rest);
      const ms = name === 'setTimeout' ? Number(rest[0]) || 0 : 0;
      const handle = original[name]!(
        (...args: unknown[]) => {
          done(handle);
          return (fn as AnyFn)(...args);
        },
        ...rest,
      ) as Timer;
      (ms <= limitMs ? awaited : cleared).add(handle);
      return handle;
    };
    timers[clear] = (handle: unknown) => {
      done(handle);
      cleared.delete(handle as Timer);
      return original[clear]!(handle);
    };
  };
  once('setTimeout', 'clearTimeout');
  once('setImmediate', 'clearImmediate');
  timers.setInterval = (...args: unknown[]) => {
    const handle = original.setInterval!(...args) as Timer;
    cleared.add(handle);
    return handle;
  };
  for (const name of ['setTimeout', 'setImmediate'] as const) {
    const make = promises[name]!;
    promises[name] = (...args: unknown[]) => {
      const ms = name === 'setTimeout' ? Number(args[0]) || 0 : 0;
      const promise = make(...args) as Promise<unknown>;
      if (ms > limitMs) return promise;
      awaited.add(promise);
      const settled = () => done(promise);
      promise.then(settled, settled);
      return promise;
    };
  }
  for (const name of ['setTimeout', 'setImmediate', 'setInterval', 'clearTimeout', 'clearImmediate'] as const)
    (globalThis as Record<string, unknown>)[name] = timers[name];
  syncBuiltinESMExports();
  const turn = () => new OwnPromise<void>((resolve) => original.setImmediate!(resolve));
  return async () => {
    await turn();
    while (awaited.size > 0) {
      await new OwnPromise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
      // The turn after the last timer: an unhandled rejection it left is reported before the answer.
      await turn();
    }
    for (const handle of cleared) original.clearTimeout!(handle);
    cleared.clear();
  };
}

function watchChildren(): () => boolean {
  // Not in the thread's process.env, which the config reads: only in what its children are given.
  const marker = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const cp = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
  const started: ChildProcess[] = [];
  let used = false;
  // Every asynchronous form (spawn, exec, execFile, fork) starts its child in this internal method.
  const proto = cp.ChildProcess.prototype as unknown as { spawn: (options: { envPairs?: string[] }) => unknown };
  const spawn = proto.spawn;
  proto.spawn = function (this: ChildProcess, options: { envPairs?: string[] }) {
    used = true;
    if (Array.isArray(options?.envPairs)) options.envPairs.push(`${MARKER}=${marker}`);
    const result = spawn.call(this, options);
    started.push(this);
    return result;
  };
  const mod = cp as unknown as Record<string, AnyFn>;
  for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
    const sync = mod[name]!;
    mod[name] = (...args: unknown[]) => {
      used = true;
      return sync(...withMarker(args, marker));
    };
  }
  syncBuiltinESMExports();
  return () => {
    for (const child of started) killChild(child);
    if (used) for (const pid of marked(marker)) kill(pid);
    return used;
  };
}

/** A synchronous call's arguments with the marker added to its options' environment (what a shell's background job inherits). */
function withMarker(args: unknown[], marker: string): unknown[] {
  const at = args.findIndex((a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a));
  const options = (at < 0 ? {} : args[at]) as { env?: NodeJS.ProcessEnv };
  const marked = { ...options, env: { ...(options.env ?? process.env), [MARKER]: marker } };
  if (at >= 0) return args.map((a, i) => (i === at ? marked : a));
  // execFileSync(file, args) and spawnSync(command, args): the options come after the arguments.
  const head = args.length > 1 && Array.isArray(args[1]) ? args.slice(0, 2) : args.slice(0, 1);
  return [...head, marked];
}

function killChild(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // A detached child leads its own process group: what it started goes with it.
  kill(-child.pid);
  kill(child.pid);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The processes whose environment holds the config's marker (Linux's /proc; elsewhere none are found). */
function marked(marker: string): number[] {
  const needle = `${MARKER}=${marker}\0`;
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}
