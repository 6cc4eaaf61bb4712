/**
 * What the engine is handed: the opened workspace (`EngineContext`), what to do with it
 * (`BuildOptions`), and the listener told what a build relied on outside its inputs (`RelianceListener`).
 */
import type { CacheMode, Fingerprint } from '../capture/files.js';
import type { CheckerIdentity, Rule } from '../config/rule.js';
import type { LoadedConfig } from '../config/load.js';
import type { ActionGraph } from '../graph/compile.js';
import type { JobService } from '../jobs/service.js';
import type { Store } from '../store/store.js';
import type { RemoteContext } from '../remote/context.js';
import type { EventSink } from './events.js';

export interface EngineContext {
  root: string;
  config: LoadedConfig;
  graph: ActionGraph;
  store: Store;
  jobs: JobService;
  rules: ReadonlyMap<string, Rule>;
  /** Sorted root-relative paths of the working tree (tracked + untracked, not ignored). */
  files: readonly string[];
  env: NodeJS.ProcessEnv;
  /** A shared remote cache: read on a local miss, written after a local result is committed. */
  remote?: RemoteContext;
}

export interface BuildOptions {
  /** `build` runs what is missing; `gate` runs nothing. */
  mode: 'build' | 'gate';
  /** Labels or ids to run (and their `after` dependencies). Never narrows the gate. */
  only?: string[];
  force?: boolean;
  /** Labels that must run fresh even with intact evidence (verify without --reuse). */
  fresh?: string[];
  /** With `fresh`, reuse intact PASS evidence instead (verify --reuse). */
  reusePassing?: boolean;
  explain?: boolean;
  /** Re-hash every blob the gate relies on. */
  deep?: boolean;
  jobs?: number;
  onEvent?: EventSink;
  signal?: AbortSignal;
  /** Bound on waiting for the `fresh` labels' jobs (dependencies are always waited for); a job still running after it is reported `pending`. */
  waitMs?: number;
  /** Watch cycle number, carried by the `cycle.settled` event (absent for a one-off build). */
  cycle?: number;
  /** The UTC date rules re-judge retained results against (`YYYY-MM-DD`); default today. Never in a key. */
  today?: string;
  /** Told what the build relied on beyond the listed tree (the watched daemon's memo re-checks it: fast/watched-memo.ts). */
  reliance?: RelianceListener;
}

/** Told what a build relied on outside its inputs: each tool identity it took, and each hit's evidence. */
export interface RelianceListener {
  tool(call: ToolCall, identity: CheckerIdentity): void;
  /** A tool file's digest the build used, with the fingerprint it was used under. */
  toolFile(absPath: string, mode: CacheMode, fp: Fingerprint, sha256: string): void;
  /** A hit: its receipt and the blobs it names, all found intact. */
  evidence(receiptId: string, blobs: string[]): void;
}

/** The arguments of one `checkerIdentity` call. */
export interface ToolCall {
  tool: string;
  shell: boolean;
  cwd: string;
  path: string | undefined;
  /** The root and the directories whose installed npm dependencies belong to the tool. */
  npm?: { root: string; dirs: string[] };
}
