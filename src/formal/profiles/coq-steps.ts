/**
 * The containers of a `coq-linux-x86_64-v1` run: each step one restricted container of the worker
 * image with a step timeout, its argv and result logged, and the package compiled freshly by coqc.
 */
import { join } from 'node:path';
import type { Bind, ContainerResult, ProfileContext } from '../types.js';
import { makeWritableDirs } from './coq-scratch.js';

/** Package files checked in step 1, in dependency order. */
export const PACKAGE_FILES = ['Ledger', 'Facts', 'Contracts', 'Client', 'Model', 'Transfer', 'Repr'];
export const COQC = '/usr/bin/coqc';
export const OCAMLOPT = '/usr/bin/ocamlopt';
export const STEP_TIMEOUT_MS = 10 * 60_000;

export type StepName = 'package' | 'candidate' | 'driver' | 'compile' | 'observe';

export interface Steps {
  run(step: StepName, argv: string[], binds: Bind[], workdir: string): Promise<ContainerResult>;
  logs: string[];
}

/**
 * The package's Coq files compiled by coqc in the worker image: the .vo files in `<dir>/vo`, the
 * step's result, and its log lines.
 */
export async function compilePackage(
  ctx: ProfileContext,
  image: string,
  dir: string,
): Promise<{ vo: string; run: ContainerResult; log: string[] }> {
  const vo = join(dir, 'vo');
  const tmp = join(dir, 'tmp');
  makeWritableDirs([dir, vo, tmp]);
  const versions = 'coqc --version | head -1; ocamlopt -version';
  const script = [
    'set -e',
    versions,
    ...PACKAGE_FILES.map((f) => `${COQC} -q -no-glob -Q /work/pkg VkitLedger /pkg/coq/${f}.v -o /work/pkg/${f}.vo`),
  ].join('\n');
  const steps = stepRunner(ctx, image);
  const run = await steps.run(
    'package',
    ['/bin/sh', '-c', script],
    [
      { host: ctx.pkg.dir, container: '/pkg', readOnly: true },
      { host: vo, container: '/work/pkg', readOnly: false },
      { host: tmp, container: '/work/tmp', readOnly: false },
    ],
    '/work/tmp',
  );
  return { vo, run, log: steps.logs };
}

export function stepRunner(ctx: ProfileContext, image: string): Steps {
  const logs: string[] = [];
  return {
    logs,
    async run(step, argv, binds, workdir) {
      const result = await ctx.sandbox.run({
        image,
        argv,
        binds,
        workdir,
        env: { TMPDIR: '/work/tmp', HOME: '/work/tmp', LANG: 'C.UTF-8' },
        timeoutMs: STEP_TIMEOUT_MS,
        signal: ctx.signal,
        name: `${ctx.containerPrefix}-${step}`,
      });
      logs.push(
        `== ${step}: ${argv.join(' ')}`,
        `exit ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}${result.cancelled ? ' (cancelled)' : ''}${result.startError ? ` (not started: ${result.startError})` : ''}`,
        '-- stdout',
        result.stdout,
        '-- stderr',
        result.stderr,
      );
      return result;
    },
  };
}

/** The step ran to its end and the checker said no (as opposed to a timeout, a cancel or a start failure). */
export function rejectedByChecker(r: ContainerResult): boolean {
  return !r.startError && !r.cancelled && !r.timedOut && r.exitCode !== 0;
}

/** Why a step did not succeed, or undefined when it exited 0. */
export function stepFailure(r: ContainerResult, step: StepName): string | undefined {
  if (r.startError) return `the ${step} container did not start: ${r.startError}`;
  if (r.cancelled) return `cancelled during the ${step} step`;
  if (r.timedOut) return `the ${step} step timed out`;
  if (r.exitCode !== 0)
    return `the ${step} step exited ${r.exitCode}: ${(r.stderr || r.stdout).trim().split('\n').slice(-6).join(' ').slice(0, 600)}`;
  return undefined;
}
