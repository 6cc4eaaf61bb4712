/**
 * Drives the built `vkit watch` binary against a temp repo: collects its stdout lines as they come
 * and waits for a line (or a `vkit.event/1` object with --json) to appear. Real process, real
 * chokidar, real store.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { storeDir } from '../_support/evidence.js';
import { vkitAsync, type TempRepo } from '../_support/repo.js';

export interface Watching {
  child: ReturnType<typeof vkitAsync>;
  lines: string[];
  stderr: () => string;
  /** Waits for a line matching `re` at index >= `from`; returns its index. */
  line(re: RegExp, from?: number, timeoutMs?: number): Promise<number>;
  /** With --json: waits for an event satisfying `pred` at index >= `from`; returns its index. */
  event(pred: (e: any) => boolean, from?: number, timeoutMs?: number): Promise<number>;
  events(): any[];
  exit(): Promise<number | null>;
  stop(): Promise<void>;
}

export function startWatch(repo: TempRepo, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Watching {
  const child = vkitAsync(
    ['watch', '--no-tui', '--jobs', '2', '--root', repo.dir, '--store', storeDir(repo), ...extra],
    { cwd: repo.dir, env },
  );
  const lines: string[] = [];
  let err = '';
  let buf = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    const parts = buf.split('\n');
    buf = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters) w();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((r) =>
    (child as unknown as ChildProcessWithoutNullStreams).on('exit', (code) => {
      r(code);
      for (const w of waiters) w();
    }),
  );
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  const waitIndex = (test: (l: string) => boolean, from: number, timeoutMs: number, what: string) =>
    new Promise<number>((resolve, reject) => {
      const check = () => {
        const i = lines.findIndex((l, idx) => idx >= from && test(l));
        if (i >= 0) return done(() => resolve(i));
        if (exitCode !== undefined)
          return done(() =>
            reject(
              new Error(
                `vkit watch exited (${exitCode}) before ${what}\nstdout:\n${lines.join('\n')}\nstderr:\n${err}`,
              ),
            ),
          );
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(
              new Error(
                `timed out after ${timeoutMs} ms waiting for ${what}\nstdout:\n${lines.join('\n')}\nstderr:\n${err}`,
              ),
            ),
          ),
        timeoutMs,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        f();
      };
      waiters.add(check);
      check();
    });
  const parse = (l: string) => {
    try {
      return JSON.parse(l);
    } catch {
      return undefined;
    }
  };
  return {
    child,
    lines,
    stderr: () => err,
    line: (re, from = 0, timeoutMs = 15_000) => waitIndex((l) => re.test(l), from, timeoutMs, String(re)),
    event: (pred, from = 0, timeoutMs = 15_000) =>
      waitIndex(
        (l) => {
          const e = parse(l);
          return e !== undefined && pred(e);
        },
        from,
        timeoutMs,
        `an event matching ${pred.toString()}`,
      ),
    events: () => lines.map(parse),
    exit: () => exited,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** A check reading its (literal) inputs, so it really depends on them. */
export function readCheck(id: string, inputs: string[], extra: Record<string, unknown> = {}) {
  return {
    id,
    run: ['node', '-e', `for (const f of ${JSON.stringify(inputs)}) require('fs').readFileSync(f)`],
    inputs,
    ...extra,
  };
}
