/**
 * Waits for tests, in one place: a plain sleep, a poll until a condition holds, whether a process
 * is gone, and a started child's end with everything it wrote. The processes are real; nothing here
 * fakes time. (bench/ keeps its own small copies: it may not import test support.)
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `pred` holds, or fails after `timeoutMs`. */
export async function waitFor(pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** True when no live process has this pid (a zombie counts as gone: it runs nothing). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** What a child that ran to its end left: its exit code and all of its stdout and stderr. */
export interface Closed {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects a started child's stdout and stderr (both piped) until it closes; rejects when it cannot
 * be spawned. Call it right after starting the child, so no output is missed.
 */
export function whenClosed(child: ChildProcess): Promise<Closed> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** tsc's worker entry, or the bundle's (the job service of a bundled CLI starts that one). */
const isWorkerEntry = (arg: string) => arg.endsWith('/jobs/worker-main.js') || arg.endsWith('/bundle/worker.js');

/**
 * Pids of the live worker processes serving this store (`worker-main.js --store DIR`, or the
 * bundle's `worker.js`), found in /proc: including a worker started for a run another worker
 * claimed first, which recorded no attempt yet holds the index open until it idles out. `under`:
 * any store inside that directory.
 */
export function storeWorkers(store: string, under = false): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const at = argv.indexOf('--store');
    const served = argv[at + 1];
    const ours = served !== undefined && (served === store || (under && served.startsWith(`${store}/`)));
    if (argv.some(isWorkerEntry) && at >= 0 && ours) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Blocks until no worker serves a store inside `dir` (at most `timeoutMs`): a temp repository is
 * removed only after the workers its builds started have idled out, since a worker still writing its
 * log or checkpoint into the directory makes the removal fail (ENOTEMPTY).
 */
export function awaitWorkersGoneSync(dir: string, timeoutMs = 20_000): void {
  const until = Date.now() + timeoutMs;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  while (storeWorkers(dir, true).length > 0 && Date.now() < until) Atomics.wait(tick, 0, 0, 50);
}
