/**
 * Runs one check process: only the given environment, stdout/stderr straight to files, its own
 * process group so a timeout or cancellation kills everything it started. Never throws for a
 * failing process: the result says what happened and the rule decides the outcome.
 *
 * With `wrap`, the process runs inside a sandbox (`sandbox-backend.ts`): bubblewrap, or the built-in
 * sandbox's init, reports the check's own exit code on a status pipe (fd 3), so a sandbox that could
 * not start the check (a bind that failed, an exec error) is a spawn error, never an exit code a rule
 * could read as its answer.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { constants } from 'node:os';
import type { ProcessRequest, ProcessResult } from '../config/rule.js';
import { hideFromSandbox } from './sandbox-env.js';

/** The sandbox's command line before the command's own argv; its status goes to fd 3. */
export interface SandboxWrap {
  argv: string[];
}

export const STATUS_FD = 3;

export async function runProcess(
  req: ProcessRequest,
  stdoutPath: string,
  stderrPath: string,
  wrap?: SandboxWrap,
): Promise<ProcessResult> {
  const started = performance.now();
  const out = openSync(stdoutPath, 'w');
  const err = openSync(stderrPath, 'w');
  const base = { stdoutPath, stderrPath, timedOut: false, cancelled: false };
  try {
    return await new Promise<ProcessResult>((resolve) => {
      let timedOut = false;
      let cancelled = false;
      let child;
      try {
        const kept = wrap ? hideFromSandbox(req.env) : { env: req.env, restore: [] };
        const argv = wrap ? [...wrap.argv, ...kept.restore, ...req.argv] : req.argv;
        child = spawn(argv[0]!, argv.slice(1), {
          cwd: req.cwd,
          env: kept.env,
          stdio: wrap ? ['ignore', out, err, 'pipe'] : ['ignore', out, err],
          detached: true,
        });
      } catch (error) {
        resolve({
          ...base,
          exitCode: null,
          signal: null,
          spawnError: (error as Error).message,
          ms: performance.now() - started,
        });
        return;
      }
      if (child.pid !== undefined) req.onSpawn?.(child.pid);
      let status = '';
      const statusPipe = wrap ? (child.stdio[STATUS_FD] as NodeJS.ReadableStream | null) : null;
      statusPipe?.setEncoding('utf8');
      statusPipe?.on('data', (chunk: string) => (status += chunk));
      const statusEnded = statusPipe
        ? new Promise<void>((r) => statusPipe.on('close', () => r()).on('error', () => r()))
        : Promise.resolve();
      const killGroup = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, req.timeoutMs);
      const onAbort = () => {
        cancelled = true;
        killGroup();
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => {
        clearTimeout(timer);
        req.signal.removeEventListener('abort', onAbort);
        resolve({ ...base, exitCode: null, signal: null, spawnError: error.message, ms: performance.now() - started });
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        req.signal.removeEventListener('abort', onAbort);
        // The group may still hold children that outlived the leader; they must not outlive the check.
        killGroup();
        const ms = performance.now() - started;
        if (!wrap) {
          resolve({ ...base, exitCode: code, signal, timedOut, cancelled, ms });
          return;
        }
        void statusEnded.then(() => {
          const exit = sandboxExit(status);
          if (exit === undefined && !timedOut && !cancelled && !signal) {
            resolve({
              ...base,
              exitCode: null,
              signal: null,
              spawnError: `the sandbox could not start it (${sandboxError(stderrPath)})`,
              ms,
            });
            return;
          }
          // The sandbox's init reports a death by signal N as status 128+N, as a shell does: read it
          // back as the signal, so a killed check stays BLOCKED (an `exit 143` reads so too: stricter).
          const bySignal = exit !== undefined && exit > 128 && exit < 128 + 65 ? signalName(exit - 128) : undefined;
          resolve({
            ...base,
            exitCode: bySignal ? null : (exit ?? code),
            signal: bySignal ?? (exit === undefined ? signal : null),
            timedOut,
            cancelled,
            ms,
          });
        });
      });
    });
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

/** The check's exit code from bwrap's JSON status lines, or undefined when it never ran to an exit. */
function sandboxExit(status: string): number | undefined {
  for (const line of status.split('\n')) {
    try {
      const parsed = JSON.parse(line) as { 'exit-code'?: unknown };
      if (typeof parsed['exit-code'] === 'number') return parsed['exit-code'];
    } catch {
      // a partial or foreign line
    }
  }
  return undefined;
}

function signalName(n: number): string | undefined {
  return Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
}

/** The sandbox's own complaint (bwrap's lines start `bwrap:`, the built-in one's `vkit-sandbox:` or its programs' names) from the check's stderr file. */
function sandboxError(stderrPath: string): string {
  const fd = openSync(stderrPath, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, null);
    const lines = buf
      .subarray(0, n)
      .toString('utf8')
      .split('\n')
      .filter((l) => /^(bwrap|vkit-sandbox|unshare|mount|setpriv|pivot_root|umount):/.test(l));
    return lines.at(-1)?.trim() ?? 'the sandbox exited without running the command';
  } finally {
    closeSync(fd);
  }
}
