/**
 * The watched resident build process's memo (`vkit daemon start --watch`; D50): the answer of a
 * no-op `build` or `gate`, given again to the very same call (same arguments, directory,
 * environment and date: service/speed.ts) while nothing it depended on has changed. What "nothing
 * changed" means, and how each part is proved when the call comes again:
 *
 * - the working tree: no inotify event at all since before the answer was computed, in any
 *   directory of the root that git does not ignore whole, in `.git` and `.git/info` (tree-watch.ts;
 *   the root on a local file system, no other file system mounted inside it);
 * - the store's index: SQLite's `data_version`, unchanged since before the answer was computed
 *   (store/data-version.ts), so no commit by anyone, this process included, came between;
 * - every receipt and blob the answer relied on: its file's stat fingerprint, re-read and equal to
 *   the one the index recorded (the shallow check a fresh build makes);
 * - every tool: identified again as a fresh build would (resolved on PATH, links followed,
 *   toolchain probes run), its digest reused only under an unchanged, not racily clean fingerprint;
 * - what lies outside the tree: the config's own files, git's configuration files (every one git
 *   reads, and the usual places one could appear), the git binary and PATH's directories: their
 *   stat fingerprints.
 *
 * An answer is kept only when it ran nothing and every gate item stands on a receipt; only for a
 * JSON manifest (a TS config is code that may read anything, so it is evaluated on every request)
 * whose every node is a `check` without declared outputs (other kinds read beyond their inputs),
 * at the top of a git work tree, without a remote cache. Anything else is simply never recalled:
 * the request runs in full, as a fresh process would. A watcher error, or the root replaced,
 * drops every answer and starts a new watch: the next request sweeps the tree in full.
 */
import { rmSync, statSync } from 'node:fs';
import type { Fingerprint } from '../capture/files.js';
import type { RelianceListener, ToolCall } from '../engine/build.js';
import type { Answer, NoopMemo, ServiceCall } from '../service/speed.js';
import {
  evidenceStates,
  ineligible,
  lstatState,
  outsideFiles,
  sameTool,
  statePair,
  watchedPaths,
  collectReliance,
  type Reliance,
} from './noop-proof.js';
import type { Workspace } from '../service/workspace.js';
import { IndexVersion } from '../store/data-version.js';
import { TreeWatch, unwatchableFileSystem } from './tree-watch.js';

/** At most this many calls' answers are kept (a shell alternates `build`, `gate`, `gate --json`, ...). */
const KEPT = 8;

interface Collected extends Reliance {
  call: ServiceCall;
}

interface Offered {
  identity: string;
  answer: Answer;
  storeDir: string;
  /** The evidence's files (receipts and blobs) -> their lstat, as `lstatState` gives it. */
  blobs: Map<string, string>;
  /** Files outside the tree -> their lstat and stat, as `statePair` gives them. */
  stats: Map<string, string>;
  /** The files outside the tree among `stats`: each must have been so since before the request. */
  outside: string[];
  tools: Array<{ call: ToolCall; identity: string }>;
  toolFiles: Map<string, { fp: Fingerprint; sha256: string }>;
  /** What the watch must cover: walked once the answer is on its way (end). */
  tree: { root: string; files: readonly string[]; ignored: readonly string[]; storeDir: string };
}

interface Kept extends Offered {
  generation: number;
  dataVersion: number;
}

export interface MemoStatus {
  watching: boolean;
  /** Why the last answer offered was not kept (or the root cannot be watched). */
  refused?: string;
  /** Why the last answer kept for a repeated call was not given (what changed). */
  missed?: string;
  recalled: number;
  /** Watches started again after an error or a replaced root. */
  restarts: number;
}

export class WatchedMemo implements NoopMemo {
  private watch: TreeWatch;
  private readonly kept = new Map<string, Kept>();
  private collecting: Collected | undefined;
  private offered: Offered | undefined;
  private version: IndexVersion | undefined;
  private startGeneration = 0;
  private startVersion: number | undefined;
  private rootId: string;
  /** The files outside the tree the last answer offered depended on, and their state when this request began. */
  private outside: string[] = [];
  private outsideBefore = new Map<string, string>();
  private readonly unwatchable: string | undefined;
  private refused: string | undefined;
  /** Why the last answer kept for a call was not given again. */
  private missed: string | undefined;
  private recalled = 0;
  private restarts = 0;

  constructor(
    private readonly root: string,
    private readonly sentinelDir: string,
  ) {
    this.unwatchable = unwatchableFileSystem(root);
    this.rootId = identityOf(root);
    this.watch = new TreeWatch(sentinelDir);
  }

  status(): MemoStatus {
    return {
      watching: !this.unwatchable,
      ...(this.unwatchable || this.refused ? { refused: this.unwatchable ?? this.refused } : {}),
      ...(this.missed ? { missed: this.missed } : {}),
      recalled: this.recalled,
      restarts: this.restarts,
    };
  }

  /** Before a request runs: every change made before it is counted, and the store's version read. */
  async begin(): Promise<void> {
    const rootId = identityOf(this.root);
    if (this.watch.broken || rootId !== this.rootId) {
      this.refused = this.watch.broken ?? `the root ${this.root} was replaced`;
      this.watch.close();
      this.kept.clear();
      this.restarts++;
      this.rootId = rootId;
      this.watch = new TreeWatch(this.sentinelDir);
    }
    this.collecting = undefined;
    this.offered = undefined;
    await this.watch.settle();
    this.startGeneration = this.watch.generation;
    this.startVersion = this.version?.read();
    this.outsideBefore = new Map(this.outside.map((f) => [f, statePair(f)]));
  }

  /**
   * After the request: its offered answer is kept only when nothing under the watch changed and
   * nobody committed to the store while it ran, and the watch already covered every directory the
   * answer relied on (one added now may have changed unseen before). The watch then follows the tree.
   */
  async end(): Promise<void> {
    const offered = this.offered;
    this.offered = undefined;
    this.collecting = undefined;
    let wanted: Map<string, bigint> | undefined;
    if (offered) {
      const { root, files, ignored, storeDir } = offered.tree;
      try {
        wanted = watchedPaths(root, files, ignored, storeDir);
      } catch (error) {
        this.refused = (error as Error).message;
      }
    }
    // Watches added now cover paths that may have changed unseen until now: nothing is kept then.
    const added = wanted ? this.watch.cover(wanted) : 0;
    await this.watch.settle();
    if (!offered || !wanted) return;
    if (this.version?.storeDir !== offered.storeDir) {
      this.version?.close();
      this.version = undefined;
      try {
        this.version = new IndexVersion(offered.storeDir);
      } catch {
        // no version, nothing kept
      }
    }
    const version = this.version?.read();
    const why =
      this.watch.broken ??
      (this.watch.generation !== this.startGeneration
        ? 'the tree changed while it ran'
        : this.startVersion === undefined || version !== this.startVersion
          ? 'the store was written while it ran (the next no-op is kept)'
          : offered.outside.some((f) => this.outsideBefore.get(f) !== offered.stats.get(f))
            ? 'files outside the tree were not known before it ran (the next no-op is kept)'
            : added > 0
              ? `${added} path(s) were not watched yet (the next no-op is kept)`
              : undefined);
    this.refused = why;
    this.outside = offered.outside;
    if (!why) {
      this.kept.delete(offered.identity);
      this.kept.set(offered.identity, { ...offered, generation: this.startGeneration, dataVersion: version! });
      if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    }
  }

  close(): void {
    this.watch.close();
    this.version?.close();
    rmSync(this.sentinelDir, { recursive: true, force: true });
  }

  reliance(call: ServiceCall): RelianceListener | undefined {
    if (this.unwatchable) return undefined;
    const c: Collected = { call, tools: new Map(), toolFiles: new Map(), evidence: new Set() };
    this.collecting = c;
    return collectReliance(c);
  }

  offer(call: ServiceCall, ws: Workspace, answer: Answer): void {
    const c = this.collecting;
    this.collecting = undefined;
    if (!c || c.call.identity !== call.identity) return;
    const why = ineligible(ws, answer);
    if (why) return void (this.refused = why);
    const blobs = evidenceStates(ws, c.evidence);
    if (typeof blobs === 'string') return void (this.refused = blobs);
    const stats = new Map<string, string>();
    const outside = [...new Set([...ws.config.sources, ...outsideFiles(ws.root, ws.env)])];
    for (const file of outside) stats.set(file, statePair(file));
    this.offered = {
      identity: call.identity,
      answer,
      storeDir: ws.store.dir,
      blobs,
      stats,
      outside,
      tools: [...c.tools.values()],
      toolFiles: c.toolFiles,
      tree: { root: ws.root, files: ws.files, ignored: ws.ignored, storeDir: ws.store.dir },
    };
  }

  recall(call: ServiceCall): Answer | undefined {
    const k = this.kept.get(call.identity);
    if (!k) return undefined;
    const changed = this.changedSince(k);
    this.missed = changed;
    if (changed) return undefined;
    this.recalled++;
    return k.answer;
  }

  /** What changed since `k` was kept (the first thing found), or undefined when nothing did. */
  private changedSince(k: Kept): string | undefined {
    if (this.watch.broken || this.watch.generation !== k.generation) return 'the tree changed';
    if (this.version?.storeDir !== k.storeDir || this.version.read() !== k.dataVersion) return 'the store was written';
    for (const [path, state] of k.blobs) if (lstatState(path) !== state) return `evidence ${path} changed`;
    for (const [path, state] of k.stats) if (statePair(path) !== state) return `${path} changed`;
    const tool = k.tools.find((t) => !sameTool(t, k.toolFiles));
    if (tool) return `tool ${tool.call.tool} is not the one identified`;
    return undefined;
  }
}

function identityOf(path: string): string {
  const st = statSync(path, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}` : 'absent';
}
