/**
 * The commands of a worker image build, run as a shell would (node:child_process): their stderr goes
 * where ours goes, their stdout is read or shown, each under the privilege prefix (`sudo` or none),
 * and an abort signal stops the running one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A step that exited non-zero (or was stopped). */
export class StepFailed extends Error {}

/** Whether an executable `name` is on `path`. */
export function onPath(name: string, path = process.env.PATH ?? ''): boolean {
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

export interface Runner {
  readonly prefix: readonly string[];
  /** Runs; its exit code (never throws for a non-zero one). */
  code(argv: string[]): Promise<number>;
  /** Runs; its stdout, or StepFailed. */
  out(argv: string[]): Promise<string>;
  /** Runs with its stdout shown; StepFailed when it fails. */
  shown(argv: string[]): Promise<void>;
  /** `a | b`, both under the prefix; StepFailed when either fails. */
  pipe(a: string[], b: string[]): Promise<void>;
}

export function runner(prefix: readonly string[], signal?: AbortSignal): Runner {
  const start = (argv: string[], stdout: 'pipe' | 'inherit' | 'ignore', stdin: 'inherit' | 'pipe' = 'inherit') => {
    const [cmd, ...args] = [...prefix, ...argv];
    return spawn(cmd!, args, { stdio: [stdin, stdout, 'inherit'], ...(signal ? { signal } : {}) });
  };
  const finish = (child: ChildProcess, argv: string[]) =>
    new Promise<number>((resolve) => {
      child.on('error', () => resolve(127));
      child.on('close', (code, sig) => resolve(code ?? (sig ? 128 : 1)));
    }).then((code) => {
      if (signal?.aborted) throw new StepFailed(`stopped during \`${argv.join(' ')}\``);
      return code;
    });
  const failed = (argv: string[], code: number) => new StepFailed(`\`${argv.join(' ')}\` exited ${code}`);
  return {
    prefix,
    code: (argv) => finish(start(argv, 'ignore'), argv),
    async out(argv) {
      const child = start(argv, 'pipe');
      let text = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      const code = await finish(child, argv);
      if (code !== 0) throw failed(argv, code);
      return text;
    },
    async shown(argv) {
      const code = await finish(start(argv, 'inherit'), argv);
      if (code !== 0) throw failed(argv, code);
    },
    async pipe(a, b) {
      const from = start(a, 'pipe');
      const to = start(b, 'ignore', 'pipe');
      from.stdout?.pipe(to.stdin!);
      const [ca, cb] = await Promise.all([finish(from, a), finish(to, b)]);
      if (ca !== 0) throw failed(a, ca);
      if (cb !== 0) throw failed(b, cb);
    },
  };
}
