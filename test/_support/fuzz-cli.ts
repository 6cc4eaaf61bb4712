/**
 * The CLI side of the config, manifest and glob fuzzers: running `vkit` with a hard time limit and
 * checking what every answer must be, whatever the input: an exit code in {0, 1, 2, 3}, never node's
 * stack on stderr, never a hang; exit 2 names the config file; a `--json` stdout is one JSON
 * document; the bundled temp module never stays in the work tree.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Known } from './fuzz-manifests.js';
import { tempRepo, VKIT_BIN, type TempRepo } from './repo.js';

export interface Ran {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Killed at the time limit. */
  hang: boolean;
}

/** Runs the built CLI asynchronously (so two lanes can share the machine), killed at `timeoutMs`. */
export function runVkit(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Ran> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VKIT_BIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, NO_COLOR: '1', VKIT_DAEMON: '0', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    let hang = false;
    const timer = setTimeout(() => {
      hang = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        args,
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: performance.now() - t0,
        hang,
      });
    });
  });
}

/** Frames of a JavaScript stack (`    at f (file:line:col)`), or node's own modules. */
const STACK =
  /^\s+at (?:.+ \()?(?:file:\/\/|node:|\/|\[eval\]|<anonymous>)[^\n]*(?::\d+:\d+\)?|\))\s*$|node:internal|internal error/m;

interface CliExpectation {
  /** Names the case (seed, case number, generator), for messages. */
  what: string;
  /** The config's file name, which an exit 2 must name. */
  configName: string;
  /** Files the config names, whose own errors may name them instead (a comparison's request). */
  alsoNamed?: readonly string[];
  /** `--json` was given: stdout must be one JSON document. */
  json?: boolean;
}

/** What every CLI answer must be; returns the violations (empty when none). */
function cliViolations(r: Ran, o: CliExpectation): string[] {
  const v: string[] = [];
  const shown = () => `\n  stdout: ${r.stdout.slice(0, 1500)}\n  stderr: ${r.stderr.slice(0, 3000)}`;
  const cmd = `vkit ${r.args.filter((a) => !a.startsWith('/')).join(' ')}`;
  if (r.hang) v.push(`${cmd}: killed after ${Math.round(r.ms)} ms (a hang)`);
  else if (r.code === null || ![0, 1, 2, 3].includes(r.code)) v.push(`${cmd}: exit ${r.code ?? r.signal}${shown()}`);
  if (STACK.test(r.stderr)) v.push(`${cmd}: a stack or internal error on stderr${shown()}`);
  if (r.code === 2 && ![o.configName, ...(o.alsoNamed ?? [])].some((f) => r.stderr.includes(f)))
    v.push(`${cmd}: exit 2 without naming ${o.configName}${shown()}`);
  if (o.json && r.code !== null && !r.hang && (r.code !== 2 || r.stdout.trim() !== '')) {
    try {
      JSON.parse(r.stdout);
    } catch (error) {
      v.push(`${cmd}: --json stdout is not one JSON document (${(error as Error).message})${shown()}`);
    }
  }
  return v;
}

/** Bundled temp modules (`vkit.config.ts.timestamp-*.mjs`) left in `dir`. */
export function leftoverTempModules(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.includes('.timestamp-'));
}

/** Exit codes counted, for the figures a run prints. */
export class Tally {
  readonly exits = new Map<string, number>();
  invocations = 0;
  cases = 0;
  hangs = 0;
  slowestMs = 0;
  add(r: Ran): void {
    this.invocations++;
    const key = r.hang ? 'hang' : String(r.code ?? r.signal);
    this.exits.set(key, (this.exits.get(key) ?? 0) + 1);
    if (r.hang) this.hangs++;
    this.slowestMs = Math.max(this.slowestMs, r.ms);
  }
  line(): string {
    const codes = ['0', '1', '2', '3', '4'].map((c) => `${c}:${this.exits.get(c) ?? 0}`);
    const other = [...this.exits].filter(([k]) => !['0', '1', '2', '3', '4'].includes(k)).map(([k, n]) => `${k}:${n}`);
    return `${this.cases} cases, ${this.invocations} invocations, exits ${[...codes, ...other].join(' ')}, hangs ${this.hangs}, slowest ${Math.round(this.slowestMs)} ms`;
  }
}

export interface CliCase {
  what: string;
  root: string;
  configName: string;
  /** What the test knows of the config without vkit (undefined: nothing). */
  known?: Known;
  /** Set when only exit 2 is right (the bytes are not a config). */
  invalid?: string;
  /** Set when READY is the only right answer (a valid config whose checks all pass). */
  mustPass?: boolean;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  tally: Tally;
}

const STATUS_EXIT: Record<string, number> = { READY: 0, REJECTED: 1, BLOCKED: 3 };

/**
 * One case through the CLI: `gate --json` (nothing has run: READY only without requirements), `build
 * --json`, `build`, `gate`. Beyond what every answer must be (cliViolations): exit 0 only when every
 * check the test can read passes and left its mark (it ran); a --json gate that agrees with the exit
 * code and lists every check; the second build and the gate agree with the first build; no temp module.
 */
export async function cliCase(c: CliCase): Promise<string[]> {
  const v: string[] = [];
  const run = async (args: string[]) => {
    const r = await runVkit([...args, '--root', c.root], { cwd: c.root, env: c.env, timeoutMs: c.timeoutMs });
    c.tally.add(r);
    v.push(
      ...cliViolations(r, {
        what: c.what,
        configName: c.configName,
        alsoNamed: c.known?.named,
        json: args.includes('--json'),
      }),
    );
    if (c.invalid && !r.hang && r.code !== 2)
      v.push(
        `vkit ${args.join(' ')}: exit ${r.code} for ${c.invalid} (only 2 is right)\n  stdout: ${r.stdout.slice(0, 1500)}\n  stderr: ${r.stderr.slice(0, 1500)}`,
      );
    return r;
  };
  c.tally.cases++;
  const gate1 = await run(['gate', '--json']);
  if (gate1.code === 0 && c.known && c.known.requirements > 0)
    v.push(
      `gate: READY before anything ran, with ${c.known.requirements} requirement(s) declared (a false green)\n  stdout: ${gate1.stdout.slice(0, 1500)}`,
    );
  const build = await run(['build', '--json']);
  if (build.code !== null && [0, 1, 3].includes(build.code) && !build.hang) {
    let report: { gate?: { status?: string; items?: Array<{ id: string; status: string }> } } | undefined;
    try {
      report = JSON.parse(build.stdout);
    } catch {
      // reported by cliViolations
    }
    const status = report?.gate?.status;
    if (report && STATUS_EXIT[status ?? ''] !== build.code)
      v.push(`build --json: exit ${build.code} but the gate says ${status}`);
    const items = new Map((report?.gate?.items ?? []).map((i) => [i.id, i.status]));
    for (const k of c.known?.checks ?? [])
      if (report && !items.has(`check:${k.id}`))
        v.push(`build --json: no gate item for check:${k.id} (a requirement dropped)`);
    if (build.code === 0) {
      if (c.known?.cannotPass.length)
        v.push(
          `build: READY although ${c.known.cannotPass.join('; ')} (a false green)\n  stdout: ${build.stdout.slice(0, 3000)}`,
        );
      for (const k of c.known?.checks ?? [])
        if (!existsSync(k.mark)) v.push(`build: READY but check:${k.id} never ran (no mark ${k.mark}) (a false green)`);
      for (const [id, s] of items) if (s !== 'PASS') v.push(`build: READY with ${id} ${s}`);
    }
  }
  if (c.mustPass && !build.hang && build.code !== 0)
    v.push(
      `build: exit ${build.code} for a valid config whose checks all pass\n  stdout: ${build.stdout.slice(0, 3000)}\n  stderr: ${build.stderr.slice(0, 1500)}`,
    );
  const again = await run(['build']);
  if (build.code !== null && [0, 1].includes(build.code) && !again.hang && again.code !== build.code)
    v.push(`the second build exits ${again.code}, the first ${build.code}\n  stdout: ${again.stdout.slice(0, 2000)}`);
  const gate2 = await run(['gate']);
  if (gate2.code === 0 && again.code !== 0) v.push(`gate: READY after a build that said ${again.code} (a false green)`);
  if (again.code !== null && [0, 1].includes(again.code) && !gate2.hang && gate2.code !== again.code)
    v.push(
      `gate exits ${gate2.code} after a build that exited ${again.code}\n  stdout: ${gate2.stdout.slice(0, 2000)}`,
    );
  const left = leftoverTempModules(c.root);
  if (left.length) v.push(`temp modules left in the work tree: ${left.join(', ')}`);
  return v.map((m) => `${c.what}: ${m}`);
}

/**
 * Runs CLI fuzz cases two at a time (the machine has two cores), each in a fresh temp repository
 * with a marks directory beside it (checks leave their marks there), stopping at the first failing
 * case; prints the tally and the `FUZZ-FIGURES` line `npm run fuzz:config` reads. The failures.
 */
export async function runCliCases(
  fuzzer: string,
  seed: number,
  cases: readonly number[],
  body: (index: number, repo: TempRepo, marks: string, tally: Tally) => Promise<string[]>,
): Promise<string[]> {
  const t0 = performance.now();
  const tally = new Tally();
  const failures: string[] = [];
  const lanes = 2;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (const index of cases.filter((_, k) => k % lanes === lane)) {
        if (failures.length) return;
        const repo = tempRepo();
        const marks = `${repo.dir}-marks`;
        mkdirSync(marks);
        try {
          failures.push(...(await body(index, repo, marks, tally)));
        } finally {
          repo.cleanup();
          rmSync(marks, { recursive: true, force: true });
        }
      }
    }),
  );
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(`${fuzzer} fuzz (CLI): ${tally.line()}, ${s} s`);
  console.log(
    `FUZZ-FIGURES ${JSON.stringify({ fuzzer: `${fuzzer} (CLI)`, seed, cases: tally.cases, invocations: tally.invocations, exits: Object.fromEntries(tally.exits), hangs: tally.hangs, seconds: Number(s) })}`,
  );
  return failures;
}
