/**
 * Running one claim's `[claim.self_verify]` recipe: `sh -c <command>` in the subject root, with a
 * time limit, judged against `expect`. The judgement is pure (`judgeRun`); `runSelfVerify` is the
 * one I/O function (it spawns through vkit's process runner: own process group, killed on
 * timeout). A run passes only when the command exits 0 *and* `expect` appears in the chosen
 * stream (CRLF -> LF on both sides); everything else fails closed:
 *
 * - EXECUTED-PASS: exit 0 and the text is there.
 * - EXECUTED-FAIL: a non-zero exit, a signal, a time-out, or a command that could not start.
 * - EXPECT-MISMATCH: exit 0 without the text.
 * - SELF-FULFILLING-SUSPECT: the expected text is spelled out in the command itself (an `echo` of
 *   the pass line proves nothing). Such a command is never run: running it could only "pass".
 * - NOT-RUN: no self_verify, no command, or an empty `expect` (which every output contains).
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../../../src/checkers/process.js';
import { invalid } from '../../../src/errors.js';
import type { SelfVerify } from './model.js';
import { isTable, table, tables, type Doc } from './toml.js';

export type RunStatus = 'EXECUTED-PASS' | 'EXECUTED-FAIL' | 'EXPECT-MISMATCH' | 'SELF-FULFILLING-SUSPECT' | 'NOT-RUN';

export interface SelfVerifyRun {
  status: RunStatus;
  /** null when the process did not exit by itself (signal, time-out) or never ran. */
  exit_code: number | null;
  /** One short line: the matching line on a pass, the first failing line otherwise, or why it did not run. */
  output_summary: string;
  stdout: string;
  stderr: string;
  duration_ms: number;
  timed_out: boolean;
  signal: string | null;
}

export interface RunOptions {
  /** Default 10 minutes. */
  timeoutMs?: number;
  /** Environment of the command (default: this process's). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export const DEFAULT_TIMEOUT_MS = 600_000;
/** Captured output per stream; a longer stream is cut (a cut stream can still fail, never newly pass). */
const MAX_OUTPUT = 16 * 1024 * 1024;

const lf = (s: string) => s.replace(/\r\n/g, '\n');
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The expected text is in the command: literally, or once quotes and backslashes are dropped and
 * whitespace collapsed (`echo 'ALL' "PASS"` spells `ALL PASS`). A heuristic that can only refuse.
 */
export function selfFulfilling(sv: Pick<SelfVerify, 'command' | 'expect'>): boolean {
  const expect = collapse(lf(sv.expect));
  if (expect === '') return false;
  const command = lf(sv.command);
  if (command.includes(lf(sv.expect))) return true;
  const unquoted = collapse(command.replace(/\\(.)/g, '$1').replace(/["']/g, ''));
  return unquoted.includes(expect);
}

/** Why a recipe must not run at all, or undefined when it may. */
export function notRunnable(
  sv: SelfVerify | undefined,
): { status: 'NOT-RUN' | 'SELF-FULFILLING-SUSPECT'; reason: string } | undefined {
  if (!sv) return { status: 'NOT-RUN', reason: 'no [claim.self_verify] command' };
  if (sv.command.trim() === '') return { status: 'NOT-RUN', reason: 'empty self_verify command' };
  if (collapse(sv.expect) === '')
    return { status: 'NOT-RUN', reason: 'empty `expect`: every output contains it, so it proves nothing' };
  if (selfFulfilling(sv))
    return { status: 'SELF-FULFILLING-SUSPECT', reason: 'the expected text appears in the command itself; not run' };
  return undefined;
}

const FAILING = /(fail|error|assert|not ok|panic|exception|expected|mismatch|✖|✗)/i;
const MAX_SUMMARY = 200;
const clip = (s: string) => (s.length > MAX_SUMMARY ? `${s.slice(0, MAX_SUMMARY - 1)}…` : s);

/** The stream `expect` is looked for in (CRLF -> LF). */
function chosenStream(sv: SelfVerify, stdout: string, stderr: string): string {
  // In combined mode the runner merges stderr into stdout at the source (true interleaving).
  return lf(sv.expect_stream === 'stderr' ? stderr : sv.expect_stream === 'combined' ? stdout + stderr : stdout);
}

/** Pure judgement of a finished process. */
export function judgeRun(
  sv: SelfVerify,
  r: {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    spawnError?: string;
    stdout: string;
    stderr: string;
  },
): { status: RunStatus; output_summary: string } {
  const lines = (s: string) =>
    lf(s)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  const all = [...lines(r.stdout), ...lines(r.stderr)];
  const failing = () => clip(all.find((l) => FAILING.test(l)) ?? all.at(-1) ?? 'no output');
  if (r.spawnError) return { status: 'EXECUTED-FAIL', output_summary: clip(`could not start: ${r.spawnError}`) };
  if (r.timedOut) return { status: 'EXECUTED-FAIL', output_summary: `timed out (killed); last line: ${failing()}` };
  if (r.exitCode === null)
    return {
      status: 'EXECUTED-FAIL',
      output_summary: clip(`killed by ${r.signal ?? 'a signal'}; last line: ${failing()}`),
    };
  const stream = chosenStream(sv, r.stdout, r.stderr);
  const expect = lf(sv.expect);
  if (r.exitCode !== 0) return { status: 'EXECUTED-FAIL', output_summary: clip(`${failing()} (exit ${r.exitCode})`) };
  if (!stream.includes(expect))
    return {
      status: 'EXPECT-MISMATCH',
      output_summary: clip(`${failing()} (exit 0, expected text absent from ${sv.expect_stream})`),
    };
  const hit = stream.split('\n').find((l) => l.includes(expect.split('\n')[0]!)) ?? expect;
  return { status: 'EXECUTED-PASS', output_summary: clip(hit.trim()) };
}

/** A captured stream, cut at 16 MiB (a cut stream can still fail, never newly pass). */
export async function readCapped(path: string): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min((await fh.stat()).size, MAX_OUTPUT));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** The `sh -c` script: `exec 2>&1` merges the streams in the shell itself, so "combined" is the real interleaving. */
export function shellScript(sv: SelfVerify): string {
  return sv.expect_stream === 'combined' ? `exec 2>&1\n${sv.command}` : sv.command;
}

/** Runs the recipe in `cwd` (the subject root) unless it must not run; never throws for a failing command. */
export async function runSelfVerify(
  sv: SelfVerify | undefined,
  cwd: string,
  opts: RunOptions = {},
): Promise<SelfVerifyRun> {
  const refused = notRunnable(sv);
  if (refused || !sv)
    return {
      status: refused!.status,
      exit_code: null,
      output_summary: refused!.reason,
      stdout: '',
      stderr: '',
      duration_ms: 0,
      timed_out: false,
      signal: null,
    };
  const dir = await mkdtemp(join(tmpdir(), 'vkit-selfverify-'));
  try {
    const script = shellScript(sv);
    // NODE_TEST_CONTEXT leaks from a `node --test` parent and makes a claim's own `node --test` run
    // nothing and exit 0: it never belongs to the command's environment.
    const env = Object.fromEntries(
      Object.entries(opts.env ?? process.env).filter(
        (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'NODE_TEST_CONTEXT',
      ),
    );
    const result = await runProcess(
      {
        argv: ['sh', '-c', script],
        cwd,
        env,
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        signal: opts.signal ?? new AbortController().signal,
      },
      join(dir, 'stdout'),
      join(dir, 'stderr'),
    );
    const stdout = await readCapped(result.stdoutPath);
    const stderr = await readCapped(result.stderrPath);
    const judged = judgeRun(sv, {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut || result.cancelled,
      spawnError: result.spawnError,
      stdout,
      stderr,
    });
    return {
      ...judged,
      exit_code: result.exitCode,
      stdout,
      stderr,
      duration_ms: Math.round(result.ms),
      timed_out: result.timedOut,
      signal: result.signal,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const STREAMS = ['stdout', 'stderr', 'combined'] as const;

/**
 * A claim's self_verify as the runner needs it. Malformed input (a non-string command, a command
 * without `expect`, an unknown stream) is an exit-2 error naming the field and line; a claim
 * without a self_verify table or without a command yields undefined (NOT-RUN).
 */
export function readSelfVerify(doc: Doc, claimIndex: number): SelfVerify | undefined {
  const claim = tables(doc.data, 'claim')[claimIndex];
  const base = ['claim', claimIndex, 'self_verify'] as const;
  if (!claim || claim.self_verify === undefined) return undefined;
  const bad = (field: string, message: string) =>
    invalid('ERR_ACCEPTANCE_SELF_VERIFY', message, {
      file: doc.file,
      path: `claim[${claimIndex}].self_verify${field ? `.${field}` : ''}`,
      line: doc.line(field ? [...base, field] : [...base]),
    });
  if (!isTable(claim.self_verify)) throw bad('', 'self_verify must be a table');
  const sv = table(claim, 'self_verify')!;
  if (sv.command === undefined) return undefined;
  if (typeof sv.command !== 'string') throw bad('command', 'command must be a string');
  if (typeof sv.expect !== 'string')
    throw bad('expect', 'expect is required with command and must be a string (the output that means pass)');
  const stream = sv.expect_stream ?? 'stdout';
  if (!STREAMS.includes(stream as (typeof STREAMS)[number]))
    throw bad('expect_stream', `expect_stream must be one of ${STREAMS.join(', ')}, got ${JSON.stringify(stream)}`);
  if (sv.positive_control !== undefined && typeof sv.positive_control !== 'string')
    throw bad('positive_control', 'positive_control must be a string');
  return {
    command: sv.command,
    expect: sv.expect,
    expect_stream: stream as SelfVerify['expect_stream'],
    ...(typeof sv.positive_control === 'string' ? { positive_control: sv.positive_control } : {}),
  };
}
