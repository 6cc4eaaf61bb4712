/**
 * Z3 as a real process: SMT-LIB 2 text on stdin (`z3 -in -smt2`), one process per query. Its
 * identity is recorded like any checker's (resolved path, sha256 of the binary, `z3 --version`).
 * Anything but a clean `sat` or `unsat` (an `unknown`, a timeout, a crash, unreadable output) is
 * `unknown` with the reason: never read as a proof.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { sha256Id } from '../../../src/hash/index.js';

export interface SolverIdentity {
  name: 'z3';
  path: string;
  sha256: string;
  version: string;
}

export type SolverFinding =
  | { status: 'sat'; model: Map<string, bigint | boolean> }
  | { status: 'unsat' }
  | { status: 'unknown'; reason: string };

const Z3_MISSING = 'z3 is not on PATH: install it (`apt-get install z3` on Debian or Ubuntu)';

/** The z3 on `PATH`, identified; a string saying why not when there is none or it does not answer. */
export function z3Identity(env: NodeJS.ProcessEnv = process.env): SolverIdentity | string {
  const found = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, 'z3'))
    .find((p) => {
      try {
        accessSync(p, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  if (!found) return Z3_MISSING;
  const path = realpathSync(found);
  const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const version = run.stdout?.trim().split('\n')[0] ?? '';
  if (run.status !== 0 || !/^Z3 version \d/.test(version))
    return `${path} does not answer \`z3 --version\` (${run.error?.message ?? run.stderr?.trim() ?? `exit ${run.status}`})`;
  return { name: 'z3', path, sha256: sha256Id(readFileSync(path)), version };
}

/**
 * Runs one query. `timeoutMs` is z3's own soft limit (`-t:`), after which it answers `unknown`
 * (reason `timeout`); a process still running a second later is killed and the answer is `unknown`.
 */
export function solve(
  solver: SolverIdentity,
  script: string,
  vars: readonly string[],
  timeoutMs: number,
): Promise<SolverFinding> {
  const text = `${script}\n(check-sat)\n(get-info :reason-unknown)\n${vars.length ? `(get-value (${vars.join(' ')}))\n` : ''}(exit)\n`;
  return new Promise((resolve) => {
    const child = spawn(solver.path, ['-in', '-smt2', `-t:${Math.max(1, Math.floor(timeoutMs))}`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs + 1000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ status: 'unknown', reason: `z3 could not run: ${e.message}` });
    });
    child.on('close', () => {
      clearTimeout(timer);
      if (killed)
        return resolve({ status: 'unknown', reason: `timeout: z3 still running after ${timeoutMs} ms; killed` });
      resolve(readAnswer(out, err));
    });
    child.stdin.on('error', () => {}); // a z3 that exits early closes the pipe; its output says why
    child.stdin.end(text);
  });
}

function readAnswer(out: string, err: string): SolverFinding {
  const [first = '', ...rest] = out.split('\n');
  const body = rest.join('\n');
  const reason = /\(:reason-unknown "([^"]*)"\)/.exec(body)?.[1];
  if (first === 'unsat') return { status: 'unsat' };
  if (first === 'unknown')
    return {
      status: 'unknown',
      reason: `z3 answered unknown${reason ? ` (${reason === 'canceled' ? 'timeout' : reason})` : ''}`,
    };
  if (first === 'sat') {
    const model = readModel(body);
    return model
      ? { status: 'sat', model }
      : { status: 'unknown', reason: `z3 said sat but gave no readable model: ${body.slice(0, 200)}` };
  }
  return { status: 'unknown', reason: `z3 gave no answer: ${(first || err || 'no output').slice(0, 300)}` };
}

/** The `(get-value ...)` answer: `((|x| 4) (|result| (- 3)) (|b| true))`. */
function readModel(text: string): Map<string, bigint | boolean> | undefined {
  const model = new Map<string, bigint | boolean>();
  const start = text.indexOf('((');
  if (start < 0) return undefined;
  const pair = /\(\|?([A-Za-z_][A-Za-z0-9_]*)\|?\s+(\(-\s*(\d+)\)|(\d+)|true|false)\)/g;
  for (const m of text.slice(start).matchAll(pair)) {
    const [, name, whole, neg, pos] = m;
    model.set(name!, neg !== undefined ? -BigInt(neg) : pos !== undefined ? BigInt(pos) : whole === 'true');
  }
  return model;
}
