/**
 * A fresh process's no-op record (D51), the recalling half: bin/vkit.js loads this module alone
 * (no CLI, no store, no git) and, when the record kept for this very command line (arguments,
 * directory, environment, terminal, UTC date, vkit's own code) proves that nothing its answer
 * depended on has changed, prints that answer again and exits with its code. The proof is a stat
 * of every path the answer stands on, compared with its state when the record was written: every
 * directory of the tree git does not ignore whole (a file created, removed or renamed in one
 * changes its mtime), every listed file, git's index and `.git/info`, every file of the tree git
 * may read ignore rules from (each `.gitignore`, even a self-ignored one, which is no listed file;
 * `.git/info/exclude`, present or not), the store's index and its
 * write-ahead log (a commit by anyone changes one of them), every receipt and blob relied on, the
 * config's files, git's configuration, the git binary and PATH's directories; then every tool is
 * identified again. Every state was recorded settled (its mtime and ctime at least the racy window
 * older than the start of the command that wrote it), so a later change cannot keep an equal
 * state. The recording half is noop-record.ts; what may be recorded at all is fast/noop-proof.ts's.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Fingerprint } from '../capture/files.js';
import type { ToolCall } from '../engine/build.js';
import { rootOf, SHORTCUT_VERBS } from '../daemon/paths.js';
import { guardOutput, settleOutputAtExit } from '../cli/output-failure.js';
import { formatMs } from '../cli/render.js';

export const RECORD_SCHEMA = 'vkit.noop-record/2';

/** A fresh command line's identity and where its record would be, or undefined when it is not one a record may answer. */
export interface CommandCall {
  verb: 'build' | 'gate';
  /** The work tree's top directory. */
  root: string;
  identity: string;
  storeDir: string;
  file: string;
  today: string;
}

export interface NoopRecord {
  schema: typeof RECORD_SCHEMA;
  identity: string;
  exit: number;
  /** What the command wrote, in order: [1 for stdout | 2 for stderr, text]. */
  output: Array<[1 | 2, string]>;
  /** Where the build's own time goes in the last chunk (it is this command's, not the recorded one's). */
  ms?: { at: number; json: boolean };
  /** Paths and their lstat states (`lstatState`). */
  paths: Array<[string, string]>;
  /** Paths and their lstat and stat states (`statePair`): what may be a link. */
  pairs: Array<[string, string]>;
  tools: Array<{ call: ToolCall; identity: string }>;
  toolFiles: Array<[string, { fp: Fingerprint; sha256: string }]>;
}

const UNRECORDED_FLAGS = new Set(['--deep', '--protected', '--format', '--force', '--']);

/**
 * The command line as a record knows it. Only `build` and `gate` at the top of a git work tree
 * (the store `--store` names, else `.git/vkit`); anything unclear is not a call.
 */
export function commandCall(
  argv: readonly string[],
  code: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): CommandCall | undefined {
  if (!SHORTCUT_VERBS.has(argv[0] ?? '') || env.VKIT_NOOP_RECORDS === '0') return undefined;
  // Never for what re-hashes by definition or reads a target commit, nor for formats that stamp the time.
  if (argv.some((a) => UNRECORDED_FLAGS.has(a.split('=')[0]!))) return undefined;
  const given = rootOf(argv, cwd);
  // (A TS config's answer is recorded only when sealed: fast/noop-record.ts, fast/seal.ts.)
  if (given === undefined) return undefined;
  // The root is the directory a link names (service/root.ts): a link pointed elsewhere later is
  // another root, so another record, never this one's answer.
  const root = realPathOf(given);
  if (root === undefined) return undefined;
  const stores = argv.flatMap((a, i) =>
    a === '--store' ? [argv[i + 1]] : a.startsWith('--store=') ? [a.slice('--store='.length)] : [],
  );
  if (stores.length > 1 || (stores.length === 1 && !stores[0])) return undefined;
  let storeDir: string;
  if (stores[0]) storeDir = resolve(cwd, stores[0]);
  else if (lstatSync(join(root, '.git'), { throwIfNoEntry: false })?.isDirectory())
    storeDir = join(root, '.git', 'vkit');
  else return undefined;
  const today = new Date().toISOString().slice(0, 10);
  const identity = JSON.stringify({
    argv,
    cwd,
    root,
    env: Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1)),
    tty: [Boolean(process.stdout.isTTY), Boolean(process.stderr.isTTY)],
    today,
    code,
  });
  const name = createHash('sha256').update(identity).digest('hex').slice(0, 32);
  const verb = argv[0] as CommandCall['verb'];
  return { verb, root, identity, storeDir, file: join(storeDir, 'noop-records', `${name}.json`), today };
}

/** The store's index and its write-ahead log: a commit to the store changes one of them. */
export function storeIndex(storeDir: string): string[] {
  return ['index.sqlite', 'index.sqlite-wal'].map((f) => join(storeDir, f));
}

/**
 * The record's file text: a head line, its body's digest and the states of the store's index
 * (`store`, as in the body's `paths`), then the body. The head alone is read first: a commit since
 * the record was written (any build that ran something) is a miss without reading and parsing the
 * rest (megabytes at 1,000 checks). It can only ever cause a miss: an answer stands on the whole
 * body, digest checked.
 */
export function recordText(record: NoopRecord, store: ReadonlyArray<readonly [string, string]>): string {
  const body = JSON.stringify(record);
  return `${createHash('sha256').update(body).digest('hex')} ${JSON.stringify(store)}\n${body}`;
}

/** Longest head line read on its own (two store paths and their states). */
const HEAD_BYTES = 16384;

/** What a record's head says changed in the store since, or undefined when nothing did (or no head could be read). */
function storeChanged(file: string, lstatState: (path: string) => string): string | undefined {
  const head = Buffer.alloc(HEAD_BYTES);
  let n: number;
  try {
    const fd = openSync(file, 'r');
    try {
      n = readSync(fd, head, 0, HEAD_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const text = head.subarray(0, n).toString('utf8');
  const nl = text.indexOf('\n');
  if (nl < 66 || text[64] !== ' ') return undefined;
  try {
    const store = JSON.parse(text.slice(65, nl)) as unknown;
    if (!Array.isArray(store)) return undefined;
    for (const entry of store)
      if (Array.isArray(entry) && typeof entry[0] === 'string' && lstatState(entry[0]) !== entry[1])
        return `${entry[0]} changed`;
  } catch {
    return undefined;
  }
  return undefined;
}

/** The record kept for `call`, when intact and made for it; else undefined. */
function readRecord(call: CommandCall): NoopRecord | undefined {
  let text: string;
  try {
    text = readFileSync(call.file, 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  const body = text.slice(nl + 1);
  if (nl < 64 || createHash('sha256').update(body).digest('hex') !== text.slice(0, 64)) return undefined;
  try {
    const record = JSON.parse(body) as NoopRecord;
    return record.schema === RECORD_SCHEMA && record.identity === call.identity && wellFormed(record)
      ? record
      : undefined;
  } catch {
    return undefined;
  }
}

/** Every field as a record writes it, so that nothing is printed from one that could fail halfway. */
function wellFormed(r: NoopRecord): boolean {
  const pairsOfStrings = (list: unknown) =>
    Array.isArray(list) && list.every((p) => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string');
  const last = r.output?.at(-1);
  return (
    Number.isInteger(r.exit) &&
    r.exit >= 0 &&
    r.exit <= 5 &&
    Array.isArray(r.output) &&
    r.output.every((o) => Array.isArray(o) && (o[0] === 1 || o[0] === 2) && typeof o[1] === 'string') &&
    (r.ms === undefined ||
      (last !== undefined &&
        typeof r.ms.json === 'boolean' &&
        Number.isInteger(r.ms.at) &&
        r.ms.at >= 0 &&
        r.ms.at <= last[1].length)) &&
    pairsOfStrings(r.paths) &&
    pairsOfStrings(r.pairs) &&
    Array.isArray(r.tools) &&
    Array.isArray(r.toolFiles)
  );
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Why a record did not answer a command line. */
export interface RecallMiss {
  why: string;
  /**
   * The first change found is a file or directory of the work tree (outside `.git` and the store:
   * an edit since the last no-op) or the store's index (a build that ran something since, as in a
   * loop of edits and builds), or there is no record for the command line at all (a no-op build
   * leaves one whenever it may, so none means the last build with this line ran something, or this
   * is its first): the command most likely has something to run (D55, D57, D58).
   */
  likelyToRun: boolean;
}

const miss = (why: string, likelyToRun = false): RecallMiss => ({ why, likelyToRun });

/** What changed since the record was written (the first thing found), or undefined when nothing did. */
function changedSince(
  record: NoopRecord,
  call: CommandCall,
  { lstatState, sameTool, statePair }: typeof import('./noop-proof.js'),
): RecallMiss | undefined {
  const inTree = (path: string) =>
    (path === call.root || path.startsWith(`${call.root}/`)) &&
    !path.startsWith(`${call.root}/.git/`) &&
    path !== `${call.root}/.git` &&
    path !== call.storeDir &&
    !path.startsWith(`${call.storeDir}/`);
  const index = new Set(storeIndex(call.storeDir));
  for (const [path, state] of record.paths)
    if (lstatState(path) !== state) return miss(`${path} changed`, inTree(path) || index.has(path));
  for (const [path, state] of record.pairs) if (statePair(path) !== state) return miss(`${path} changed`);
  const toolFiles = new Map(record.toolFiles);
  const tool = record.tools.find((t) => !sameTool(t, toolFiles));
  return tool ? miss(`tool ${tool.call.tool} is not the one identified`) : undefined;
}

/**
 * Answers the command line from its record: prints what it printed then (this command's own time
 * in place of the recorded one) and returns its exit code; else (nothing printed) why not: no
 * record may answer it, none intact is kept for it, or what changed since.
 */
export async function recallNoop(argv: readonly string[], code: string): Promise<number | RecallMiss> {
  try {
    return await recall(argv, code);
  } catch (error) {
    // Whatever goes wrong here (an unreadable directory, say), the full command runs and reports it.
    return miss(`the record could not be checked: ${(error as Error)?.message ?? String(error)}`);
  }
}

async function recall(argv: readonly string[], code: string): Promise<number | RecallMiss> {
  const t0 = performance.now();
  const call = commandCall(argv, code);
  if (!call) return miss('not a command a record may answer');
  if (!existsSync(call.file)) return miss('no record for this command line', true);
  // Loaded only when there is a record to check: a command without one pays nothing for it.
  const proof = await import('./noop-proof.js');
  const committed = storeChanged(call.file, proof.lstatState);
  if (committed) return miss(committed, true);
  const record = readRecord(call);
  if (!record) return miss('no intact record for this command line');
  const changed = changedSince(record, call, proof);
  if (changed !== undefined) return changed;
  const ms = Math.round(performance.now() - t0);
  const output = record.output.map(([fd, text], i) => {
    if (!record.ms || i !== record.output.length - 1) return [fd, text] as const;
    const shown = record.ms.json ? String(ms) : formatMs(ms);
    return [fd, text.slice(0, record.ms.at) + shown + text.slice(record.ms.at)] as const;
  });
  // A reader gone early ends what is printed, never the answer; output lost otherwise is exit 3 (as guardProcess).
  guardOutput();
  settleOutputAtExit();
  for (const [fd, text] of output) (fd === 1 ? process.stdout : process.stderr).write(text);
  return record.exit;
}
