/**
 * A fresh process's no-op record (D51), the recording half: a one-off `build` or `gate` whose
 * answer ran nothing (fast/noop-proof.ts says which may be kept) leaves, in its store's
 * `noop-records/`, what it printed, its exit code, and the state of every path that answer stands
 * on, so that the same command line can be answered by noop-recall.ts without loading the CLI,
 * the store or git. A state is recorded only when settled: its mtime and ctime older than the
 * start of this command by the racy window, so anything this command read was already so, and any
 * later change gives a different state. The store's index and write-ahead log are stated before
 * the command and after its store is closed, and must be equal (nobody committed meanwhile).
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { RACY_WINDOW_NS } from '../capture/files.js';
import type { Evaluated } from '../config/load.js';
import { sealConfig } from './seal.js';
import type { RelianceListener } from '../engine/build.js';
import { gateExitCode } from '../gate/evaluate.js';
import { installSpeed, type Answer, type NoopMemo, type ServiceCall } from '../service/speed.js';
import {
  evidenceStates,
  ignoreRuleFiles,
  ineligible,
  lstatState,
  outsideFiles,
  stateOf,
  treePaths,
  collectReliance,
  type Reliance,
} from './noop-proof.js';
import type { Workspace } from '../service/workspace.js';
import { formatMs } from '../cli/render.js';
import {
  commandCall,
  RECORD_SCHEMA,
  recordText,
  storeIndex,
  type CommandCall,
  type NoopRecord,
} from './noop-recall.js';

/** At most this many records per store (one per command line; a shell alternates a few). */
const KEPT = 16;

interface Offered {
  answer: Answer;
  paths: Array<[string, string]>;
  pairs: Array<[string, string]>;
  relied: Reliance;
  /** A TS config's ordinary evaluation, to be sealed before the record is written (D53). */
  evaluated?: Evaluated;
}

/**
 * States paths into `into` (a link also by what it points to, in `pairs`); `add` answers false,
 * after calling `refuse`, for a path not settled before `startNs` by the racy window.
 */
function stater(startNs: bigint, into: Pick<Offered, 'paths' | 'pairs'>, refuse: (why: string) => void) {
  const settled = (path: string, st: BigIntStats | undefined): string | undefined => {
    if (st && (st.mtimeNs >= startNs - RACY_WINDOW_NS || st.ctimeNs >= startNs - RACY_WINDOW_NS))
      return void refuse(`${path} changed less than the racy window before the command`);
    return stateOf(st);
  };
  return (path: string, follow = false): boolean => {
    const lst = statOrError(() => lstatSync(path, { bigint: true, throwIfNoEntry: false }));
    // A path vkit may not look at (EACCES on a directory above it) is recorded as that error, as the
    // proof states it: a change of permission is then a change of state, never a crash or a guess.
    const l = typeof lst === 'string' ? lst : settled(path, lst);
    if (l === undefined) return false;
    if (!follow && (typeof lst === 'string' || !lst?.isSymbolicLink())) return (into.paths.push([path, l]), true);
    const st = statOrError(() => statSync(path, { bigint: true, throwIfNoEntry: false }));
    const s = typeof st === 'string' ? st : settled(path, st);
    return s !== undefined && (into.pairs.push([path, `${l}|${s}`]), true);
  };
}

/** A stat, or `error <code>` when it throws (as `lstatState` says it). */
function statOrError(stat: () => BigIntStats | undefined): BigIntStats | undefined | string {
  try {
    return stat();
  } catch (error) {
    return `error ${(error as NodeJS.ErrnoException).code}`;
  }
}

class NoopRecorder implements NoopMemo {
  private collecting: Reliance | undefined;
  offered: Offered | undefined;
  /** Why nothing will be recorded, once known (`keepNoopRecord` returns it; VKIT_NOOP_DEBUG=1 prints it). */
  refused: string | undefined;

  constructor(
    readonly call: CommandCall,
    /** The command's start (ns since the epoch): every state recorded must be settled before it. */
    readonly startNs: bigint,
    /** The store's index and log as they were before the command. */
    readonly storeBefore: Array<[string, string]>,
  ) {}

  recall(): Answer | undefined {
    return undefined; // a fresh process is answered before the CLI loads (noop-recall.ts)
  }

  reliance(call: ServiceCall): RelianceListener | undefined {
    if (call.today !== this.call.today) return undefined;
    this.collecting = { tools: new Map(), toolFiles: new Map(), evidence: new Set() };
    return collectReliance(this.collecting);
  }

  offer(_call: ServiceCall, ws: Workspace, answer: Answer): void {
    const relied = this.collecting;
    this.collecting = undefined;
    if (!relied) return;
    try {
      this.offered = this.prove(ws, answer, relied);
    } catch (error) {
      this.refused = (error as Error).message;
    }
  }

  private prove(ws: Workspace, answer: Answer, relied: Reliance): Offered | undefined {
    const refuse = (why: string) => void (this.refused = why);
    const why = ineligible(ws, answer, true);
    if (why) return refuse(why);
    if (ws.store.dir !== this.call.storeDir) return refuse(`the store is ${ws.store.dir}, not ${this.call.storeDir}`);
    const paths: Array<[string, string]> = [];
    const pairs: Array<[string, string]> = [];
    const add = stater(this.startNs, { paths, pairs }, refuse);
    // The tree: every directory a file could appear in, every listed file.
    const { dirs, listed } = treePaths(ws.root, ws.files, ws.ignored, ws.store.dir);
    // What git's listing reads inside `.git` (the index and `info/`: exclude, sparse-checkout), and
    // every file of the tree it may read ignore rules from, present or not: an ignored one is no listed file.
    const git = join(ws.root, '.git');
    const inGit = [join(git, 'index'), ...filesIn(join(git, 'info'))];
    const tree = new Set([...dirs.keys(), ...listed.keys(), ...inGit, ...ignoreRuleFiles(ws.root, dirs.keys())]);
    for (const path of tree) if (!add(path)) return undefined;
    const evidence = evidenceStates(ws, relied.evidence);
    if (typeof evidence === 'string') return refuse(evidence);
    for (const path of evidence.keys()) if (!add(path)) return undefined;
    const outside = [...new Set([...ws.config.sources, ...outsideFiles(ws.root, ws.env)])];
    for (const path of outside) if (!add(path, true)) return undefined;
    return { answer, paths, pairs, relied, evaluated: ws.config.evaluated };
  }
}

let recorder: NoopRecorder | undefined;

/**
 * Before a one-off command runs: installs the recorder when the command line is one a record may
 * answer, and tees what the command prints. `code` is the running code's identity (bin/vkit.js);
 * without one nothing is recorded.
 */
export function recordNoops(argv: readonly string[], code: string | undefined): void {
  let call: CommandCall | undefined;
  let before: Array<[string, string]>;
  try {
    call = code === undefined ? undefined : commandCall(argv, code);
    if (!call) return;
    before = storeFiles(call.storeDir);
  } catch {
    return; // an unreadable root or store: the command reports it, and nothing is recorded
  }
  const startNs = BigInt(Date.now()) * 1_000_000n;
  recorder = new NoopRecorder(call, startNs, before);
  installSpeed({ memo: recorder });
  teeOutput();
}

let output: Array<[1 | 2, string]> | undefined = [];

function teeOutput(): void {
  for (const [fd, stream] of [
    [1, process.stdout],
    [2, process.stderr],
  ] as const) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && rest.length === 0) output?.push([fd, chunk]);
      else output = undefined; // bytes or callbacks: not replayed as they were, so not recorded
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}

/**
 * After the command (its store closed): writes the record when its answer was offered and proved,
 * the command's exit code is its gate's, and the store's files are as they were before it ran.
 * Never fails the command: a record that cannot be written is simply not there.
 */
export async function keepNoopRecord(exit: number): Promise<string | undefined> {
  const r = recorder;
  recorder = undefined;
  installSpeed({ memo: undefined });
  if (!r) return undefined;
  try {
    const why = recordWhy(r, exit) ?? (r.offered!.evaluated && (await sealedBasis(r, r.offered!)));
    if (why) return why;
    const { answer, paths, pairs, relied } = r.offered!;
    const out = output!;
    const ms = msSlot(r.call.verb, answer, out);
    const last = out.at(-1);
    if (ms && last) out[out.length - 1] = [last[0], last[1].slice(0, ms.at) + last[1].slice(ms.end)];
    const record: NoopRecord = {
      schema: RECORD_SCHEMA,
      identity: r.call.identity,
      exit,
      output: out,
      ...(ms ? { ms: { at: ms.at, json: ms.json } } : {}),
      // The store's index first: the cheapest proof that nothing was committed since.
      paths: [...r.storeBefore, ...paths],
      pairs,
      tools: [...relied.tools.values()],
      toolFiles: [...relied.toolFiles],
    };
    const dir = dirname(r.call.file);
    mkdirSync(dir, { recursive: true });
    const tmp = `${r.call.file}.${process.pid}.tmp`;
    writeFileSync(tmp, recordText(record, r.storeBefore));
    renameSync(tmp, r.call.file);
    prune(dir);
  } catch (error) {
    return `not written: ${(error as Error).message}`;
  }
  return undefined;
}

function recordWhy(r: NoopRecorder, exit: number): string | undefined {
  if (!r.offered) return r.refused ?? 'no answer was offered';
  if (!output) return 'the output was not all text';
  if (exit !== gateExitCode(r.offered.answer.report.gate.status)) return "the exit code is not the gate's";
  const after = storeFiles(r.call.storeDir);
  const before = r.storeBefore;
  if (after.length !== before.length || after.some(([p, s], i) => before[i]![0] !== p || before[i]![1] !== s))
    return 'the store was written while the command ran';
  for (const [path, state] of before)
    if (state !== 'absent' && !settledState(state, r.startNs))
      return `${path} changed less than the racy window before the command`;
  return undefined;
}

/**
 * A TS config's answer stands on its code alone only when sealed (fast/seal.ts); then the record
 * also states every module of its sealed bundle (vkit's entry and what it takes in included), each
 * one's directory (a file added beside an importer could be resolved instead), and the package and
 * TS settings files esbuild reads in each directory and its ancestors, present or absent. A seal
 * refused once is remembered for the same bundle and vkit (`unsealed-*` beside the records), so
 * an impure config does not pay for the attempt on every no-op. Undefined when all is stated.
 */
async function sealedBasis(r: NoopRecorder, offered: Offered): Promise<string | undefined> {
  const evaluated = offered.evaluated!;
  const marker = join(
    dirname(r.call.file),
    `unsealed-${createHash('sha256').update(`${evaluated.bundleSha256}\0${r.call.identity}`).digest('hex').slice(0, 32)}`,
  );
  if (existsSync(marker)) return `not sealed: ${readFileSync(marker, 'utf8')}`;
  const sealed = await sealConfig(evaluated);
  if (typeof sealed === 'string') {
    mkdirSync(dirname(marker), { recursive: true });
    writeFileSync(marker, sealed);
    return `not sealed: ${sealed}`;
  }
  let refused: string | undefined;
  const add = stater(r.startNs, offered, (why) => void (refused = why));
  const basis = new Set<string>();
  for (const input of sealed.inputs) {
    basis.add(input);
    for (let d = dirname(input); ; d = dirname(d)) {
      if (d === dirname(input)) basis.add(d);
      for (const name of BUNDLE_SETTINGS) basis.add(join(d, name));
      if (dirname(d) === d) break;
    }
  }
  for (const path of basis) {
    // As for a kept bundle (D40): a settings file that extends another could change resolution from anywhere.
    if (!path.endsWith('package.json') && /"extends"/.test(readIfFile(path)))
      return `${path} extends another file: the config's bundle cannot be proved unchanged`;
    if (!add(path)) return refused;
  }
  return undefined;
}

function readIfFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** What esbuild reads beside each module and in every directory above it (fast/bundle-cache.ts). */
const BUNDLE_SETTINGS = ['package.json', 'tsconfig.json', 'jsconfig.json'];

/** The store's index and write-ahead log, each stated (`absent`, or an error, too). */
function storeFiles(storeDir: string): Array<[string, string]> {
  return storeIndex(storeDir).map((path) => [path, lstatState(path)]);
}

/** Whether a `stateOf` string's mtime and ctime are older than `startNs` by the racy window (an error never is). */
function settledState(state: string, startNs: bigint): boolean {
  const [, , , mtime, ctime] = state.split(':');
  if (!/^\d+$/.test(mtime ?? '') || !/^\d+$/.test(ctime ?? '')) return false;
  const limit = startNs - RACY_WINDOW_NS;
  return BigInt(mtime!) < limit && BigInt(ctime!) < limit;
}

/**
 * Where the build's time is printed in the last chunk (`build` only: text prints `in <time>` last,
 * JSON ends with `"ms": <n>` of its stats), as [at, end) to cut out; undefined for `gate`. A build
 * whose last chunk does not end so is not recorded (throws).
 */
function msSlot(
  verb: string,
  answer: Answer,
  out: Array<[1 | 2, string]>,
): { at: number; end: number; json: boolean } | undefined {
  if (verb !== 'build') return undefined;
  const ms = answer.report.stats.ms;
  const last = out.at(-1)?.[1] ?? '';
  const json = `"ms": ${ms}\n  }\n}\n`;
  if (last.endsWith(json)) {
    const at = last.length - json.length + '"ms": '.length;
    return { at, end: at + String(ms).length, json: true };
  }
  const text = ` in ${formatMs(ms)}`;
  const at = last.lastIndexOf(text);
  if (at < 0 || last.indexOf('\n', at) !== last.length - 1)
    throw new Error('the build time was not found in its output');
  return { at: at + 4, end: at + text.length, json: false };
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir).map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** Keeps the newest records only. */
function prune(dir: string): void {
  const records = readdirSync(dir)
    .map((f) => ({ f, m: statSync(join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.m - a.m);
  for (const { f } of records.slice(KEPT)) rmSync(join(dir, f), { force: true });
}
