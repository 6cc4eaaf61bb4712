/**
 * Runs one check process: only the given environment, stdout/stderr straight to files, its own
 * process group so a timeout or cancellation kills everything it started. Never throws for a
 * failing process: the result says what happened and the rule decides the outcome.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { ProcessRequest, ProcessResult } from '../config/rule.js';

export async function runProcess(req: ProcessRequest, stdoutPath: string, stderrPath: string): Promise<ProcessResult> {
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
        child = spawn(req.argv[0]!, req.argv.slice(1), { cwd: req.cwd, env: req.env, stdio: ['ignore', out, err], detached: true });
      } catch (error) {
        resolve({ ...base, exitCode: null, signal: null, spawnError: (error as Error).message, ms: performance.now() - started });
        return;
      }
      if (child.pid !== undefined) req.onSpawn?.(child.pid);
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
        resolve({ ...base, exitCode: code, signal, timedOut, cancelled, ms: performance.now() - started });
      });
    });
  } finally {
    closeSync(out);
    closeSync(err);
  }
}
