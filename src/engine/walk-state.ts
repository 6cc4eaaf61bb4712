/**
 * The state one walk shares between its nodes: the job queue, the file-state cache and hash
 * counter, the captures taken before the walk, the memoised tool identities, the jobs queued and
 * when they ran, the results so far and the uploads in flight. Opening a walk captures every
 * node's inputs first, so that an input the config declares and vkit cannot stand for is a config
 * error before any work starts.
 */
import { join, relative } from 'node:path';
import PQueue from 'p-queue';
import type { FileStateCache, HashCounter } from '../capture/files.js';
import {
  captureSelector,
  globIndexOf,
  INPUTS_HINT,
  uncapturedMessage,
  UndecodablePathError,
  type Refused,
  type SelectorCapture,
} from '../capture/selector.js';
import { checkerIdentity, ToolNotFoundError } from '../checkers/identity.js';
import { NpmDepsError } from '../checkers/npm-deps.js';
import type { CheckerIdentity } from '../config/rule.js';
import { InvalidInputError, type Issue } from '../errors.js';
import { namedBy } from '../gate/evaluate.js';
import type { ActionGraph } from '../graph/compile.js';
import type { BuildOptions, RelianceListener, EngineContext } from './context.js';
import { buildChecks, type BuildChecks } from './evidence.js';
import type { EventSink } from './events.js';
import type { NodeResult } from './node-result.js';
import { ExclusiveRuns } from './exclusive-runs.js';
import { JobTimeline } from './outputs.js';

export class WalkState {
  readonly ctx: EngineContext;
  readonly opts: BuildOptions;
  readonly emit: EventSink;
  readonly queue: PQueue;
  readonly graph: ActionGraph['graph'];
  /** The labels this build may run: the `only` ones and what they depend on. */
  readonly selected: Set<string>;
  /** Each node's evaluation, started once: dependents share the one promise. */
  readonly results = new Map<string, Promise<NodeResult>>();
  readonly counter: HashCounter = { hashed: 0, reused: 0 };
  readonly fileStates: FileStateCache;
  private readonly toolStates: FileStateCache;
  private readonly toolMemo = new Map<string, CheckerIdentity>();
  /**
   * A tool call's identity once per build: a thousand checks of one tool ask the same question
   * under the build's one PATH, and each asking cost ~10 us (D59). A tool not found is asked again
   * by the next node (as `toolMemo` does): a job of this build may be what makes it.
   */
  private readonly checkers = new Map<string, CheckerIdentity>();
  /** Every label's latest receipt and key, read in one query. */
  readonly latest: Map<string, { receipt: string; key: string }>;
  /** Blobs verified intact and the latest runs' chains, shared by this build's lookups (see verifyReceipt). */
  readonly shared: BuildChecks;
  readonly today: string;
  /** The captures taken before the walk, by label. */
  readonly early = new Map<string, SelectorCapture | UndecodablePathError>();
  /** Nodes with an input whose recorded digest could not be reused: most likely the ones to run. */
  readonly edited: string[] = [];
  /** Nodes that queued a job in this build: from then on the tree may hold what it wrote. */
  readonly queuedJobs = new Set<string>();
  /** When each job of this build ran: what may have written over outputs a result vouches for. */
  readonly timeline = new JobTimeline();
  /** Jobs that make declared outputs wait for the others and run alone. */
  readonly exclusive = new ExclusiveRuns();
  private readonly afterJobMemo = new Map<string, boolean>();
  /** Uploads of results to the remote cache, running beside the build. */
  readonly uploads: Promise<void>[] = [];
  /** Whether the warning that results are shared unsigned was given (once per build). */
  unsignedSaid = false;

  constructor(ctx: EngineContext, opts: BuildOptions) {
    this.ctx = ctx;
    this.opts = opts;
    this.emit = opts.onEvent ?? (() => {});
    this.queue = new PQueue({ concurrency: Math.max(1, opts.jobs ?? 1) });
    ctx.jobs.maxWorkers = Math.max(1, opts.jobs ?? 1);
    this.graph = ctx.graph.graph;
    this.selected = selectNodes(ctx.graph, opts.only);
    // One query loads the file states under the root: a SQLite lookup per file costs more than its lstat.
    // `deep` trusts no recorded digest: every input and tool is re-hashed (and its true digest recorded).
    this.fileStates = opts.deep ? ctx.store.fileStates.rehashing() : ctx.store.fileStates.under(ctx.root);
    this.toolStates = relied(opts.deep ? this.fileStates : ctx.store.fileStates, opts.reliance);
    this.latest = ctx.store.actions.latestAll();
    this.shared = buildChecks(ctx.store);
    this.today = opts.today ?? new Date().toISOString().slice(0, 10);
  }

  /** The identity of the tool a node runs (with its npm dependencies), or why it cannot be found or keyed. */
  checkerOf(argv0: string, shell: boolean, cwd: string, npmDirs: string[] = []): CheckerIdentity | string {
    const { ctx } = this;
    const memoKey = `${argv0}\0${shell}\0${cwd}\0${npmDirs.join('\0')}`;
    let found = this.checkers.get(memoKey);
    if (found === undefined) {
      const npm = npmDirs.length ? { root: ctx.root, dirs: npmDirs } : undefined;
      const call = { tool: argv0, shell, cwd: join(ctx.root, cwd), ...(npm ? { npm } : {}) };
      try {
        found = checkerIdentity(call.tool, call.shell, {
          cwd: call.cwd,
          path: ctx.env.PATH,
          cache: this.toolStates,
          now: ctx.store.now,
          memo: this.toolMemo,
          npm,
        });
      } catch (error) {
        if (error instanceof ToolNotFoundError || error instanceof NpmDepsError) return error.message;
        throw error;
      }
      this.opts.reliance?.tool({ ...call, path: ctx.env.PATH }, found);
      this.checkers.set(memoKey, found);
    }
    return found;
  }

  /** A node's selector capture now, or the undecodable name that stops it. */
  captureOf(label: string): SelectorCapture | UndecodablePathError {
    const { ctx } = this;
    const node = this.graph.getNodeAttributes(label);
    try {
      return captureSelector({
        root: ctx.root,
        globs: node.inputs,
        files: ctx.files,
        cache: this.fileStates,
        now: ctx.store.now,
        counter: this.counter,
        hashMode: node.hash,
      });
    } catch (error) {
      if (error instanceof UndecodablePathError) return error;
      throw error;
    }
  }

  /**
   * Whether a node depends, directly or not, on one that queued a job: asked only once its
   * dependencies have settled, so the answer for each of them is final.
   */
  afterJob(label: string): boolean {
    let after = this.afterJobMemo.get(label);
    if (after === undefined) {
      after = this.graph.inNeighbors(label).some((d) => this.queuedJobs.has(d) || this.afterJob(d));
      this.afterJobMemo.set(label, after);
    }
    return after;
  }
}

/**
 * A walk over `ctx`, every node's inputs captured. On a no-op build this is the only capture:
 * nothing is read twice. Throws the config error naming every declared input vkit cannot stand for
 * (a link whose target the capture does not hold, a special file), like the listing's own checks in
 * openWorkspace.
 */
export function openWalk(ctx: EngineContext, opts: BuildOptions): WalkState {
  const walk = new WalkState(ctx, opts);
  const { counter } = walk;
  const issues: Issue[] = [];
  const shown = relative(process.cwd(), ctx.config.file) || ctx.config.file;
  for (const label of ctx.graph.order) {
    const node = walk.graph.getNodeAttributes(label);
    const hashedBefore = counter.hashed;
    const taken = walk.captureOf(label);
    walk.early.set(label, taken);
    if (counter.hashed > hashedBefore) walk.edited.push(label);
    if (taken instanceof UndecodablePathError || !node.declared) continue;
    const { inputs } = node;
    const byGlob = new Map<number, Refused[]>();
    for (const r of taken.refused) {
      const j = globIndexOf(inputs, r.path) ?? 0;
      byGlob.set(j, [...(byGlob.get(j) ?? []), r]);
    }
    for (const [j, refused] of [...byGlob].sort((a, b) => a[0] - b[0]))
      issues.push({
        file: shown,
        path: `${node.declaredAt}.inputs[${j}]`,
        message: uncapturedMessage(inputs[j]!, refused),
      });
  }
  // What the captures learnt is recorded in one transaction (a commit per file cost more than its hash).
  walk.fileStates.flush?.();
  if (issues.length) throw new InvalidInputError('ERR_CONFIG_INPUTS', issues, INPUTS_HINT);
  return walk;
}

/** `cache`, telling the listener every digest it hands out or is given. */
function relied(cache: FileStateCache, reliance: RelianceListener | undefined): FileStateCache {
  if (!reliance) return cache;
  return {
    reuse(absPath, mode, fp) {
      const sha256 = cache.reuse(absPath, mode, fp);
      if (sha256 !== undefined) reliance.toolFile(absPath, mode, fp, sha256);
      return sha256;
    },
    put(absPath, mode, entry) {
      reliance.toolFile(absPath, mode, entry, entry.sha256);
      cache.put(absPath, mode, entry);
    },
    flush: cache.flush?.bind(cache),
  };
}

/** The selected labels plus everything they depend on (their keys need those results). */
function selectNodes(ag: ActionGraph, only: string[] | undefined): Set<string> {
  const all = ag.order;
  if (!only || only.length === 0) return new Set(all);
  const picked = new Set<string>();
  const visit = (l: string) => {
    if (picked.has(l)) return;
    picked.add(l);
    ag.graph.inNeighbors(l).forEach(visit);
  };
  for (const l of all) if (only.some((o) => namedBy(l, o))) visit(l);
  return picked;
}
