/**
 * The engine's one loop: walk the action graph in dependency order, capture each node's inputs,
 * plan it through its rule, compute its key, reuse intact evidence or submit a job, and fold every
 * requirement into the gate. `vkit gate` is the same walk with nothing allowed to run.
 */
import { join, relative } from 'node:path';
import PQueue from 'p-queue';
import { compileGlob, matchGlobs } from '../text/glob.js';
import { isSecretPath } from '../capture/secrets.js';
import {
  captureSelector,
  globIndexOf,
  INPUTS_HINT,
  uncapturedMessage,
  UndecodablePathError,
  type Refused,
  type SelectorCapture,
} from '../capture/selector.js';
import type { CacheMode, FileStateCache, Fingerprint, HashCounter } from '../capture/files.js';
import { checkerIdentity, ToolNotFoundError } from '../checkers/identity.js';
import { NpmDepsError } from '../checkers/npm-deps.js';
import type { CheckerIdentity, DepResult, Rule } from '../config/rule.js';
import type { LoadedConfig } from '../config/load.js';
import { InvalidInputError, type Issue } from '../errors.js';
import { evaluateGate, namedBy } from '../gate/evaluate.js';
import type { GateItem, ItemStatus } from '../gate/schema.js';
import type { ActionReport, BuildReport } from './schema.js';
import type { ActionGraph, GraphNode } from '../graph/compile.js';
import { actionKey, depResult, envDigests, type Job, type RuleIdentity } from '../jobs/job.js';
import type { JobService } from '../jobs/service.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';
import { importRemote, publishEvidence } from '../remote/exchange.js';
import type { RemoteContext } from '../remote/context.js';
import { buildChecks, lookupEvidence, short } from './evidence.js';
import { makeEvent, type EventSink } from './events.js';
import { explainChange, lineEndingsNote } from './explain.js';
import {
  hasOutputs,
  JobTimeline,
  movedOutputs,
  OUTPUTS_MOVED,
  rewrittenOutputs,
  type JobMark,
  type Vouched,
} from './outputs.js';

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
  /** Told what the build relied on beyond the listed tree (the watched daemon's memo re-checks it: daemon/noop-memo.ts). */
  witness?: BuildWitness;
}

/** What a build relied on outside its inputs: each tool identity it took, and each hit's evidence. */
export interface BuildWitness {
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

/** `cache`, telling `witness` every digest it hands out or is given. */
function witnessed(cache: FileStateCache, witness: BuildWitness | undefined): FileStateCache {
  if (!witness) return cache;
  return {
    reuse(absPath, mode, fp) {
      const sha256 = cache.reuse(absPath, mode, fp);
      if (sha256 !== undefined) witness.toolFile(absPath, mode, fp, sha256);
      return sha256;
    },
    put(absPath, mode, entry) {
      witness.toolFile(absPath, mode, entry, entry.sha256);
      cache.put(absPath, mode, entry);
    },
    flush: cache.flush?.bind(cache),
  };
}

type ActionStatus = ActionReport['status'];

interface NodeResult {
  item: GateItem;
  action?: ActionReport;
  /** What dependents' keys see; only for nodes with an outcome. */
  dep?: DepResult;
  /** A result naming declared outputs, from when the build relied on them. */
  vouched?: Vouched;
}

export async function runEngine(ctx: EngineContext, opts: BuildOptions): Promise<BuildReport> {
  const t0 = performance.now();
  const uploads: Promise<void>[] = [];
  let unsignedSaid = false;
  const emit: EventSink = opts.onEvent ?? (() => {});
  const queue = new PQueue({ concurrency: Math.max(1, opts.jobs ?? 1) });
  ctx.jobs.maxWorkers = Math.max(1, opts.jobs ?? 1);
  const { graph } = ctx.graph;
  const selected = selectNodes(ctx.graph, opts.only);
  const results = new Map<string, Promise<NodeResult>>();
  const counter: HashCounter = { hashed: 0, reused: 0 };
  // One query loads the file states under the root: a SQLite lookup per file costs more than its lstat.
  // `deep` trusts no recorded digest: every input and tool is re-hashed (and its true digest recorded).
  const fileStates: FileStateCache = opts.deep
    ? ctx.store.fileStates.rehashing()
    : ctx.store.fileStates.under(ctx.root);
  const toolStates = witnessed(opts.deep ? fileStates : ctx.store.fileStates, opts.witness);
  const toolMemo = new Map<string, CheckerIdentity>();
  /**
   * A tool call's identity once per build: a thousand checks of one tool ask the same question
   * under the build's one PATH, and each asking cost ~10 us (D59). A tool not found is asked again
   * by the next node (as `toolMemo` does): a job of this build may be what makes it.
   */
  const checkers = new Map<string, CheckerIdentity>();
  const checkerOf = (argv0: string, shell: boolean, cwd: string, npmDirs: string[] = []): CheckerIdentity | string => {
    const memoKey = `${argv0}\0${shell}\0${cwd}\0${npmDirs.join('\0')}`;
    let found = checkers.get(memoKey);
    if (found === undefined) {
      const npm = npmDirs.length ? { root: ctx.root, dirs: npmDirs } : undefined;
      const call = { tool: argv0, shell, cwd: join(ctx.root, cwd), ...(npm ? { npm } : {}) };
      try {
        found = checkerIdentity(call.tool, call.shell, {
          cwd: call.cwd,
          path: ctx.env.PATH,
          cache: toolStates,
          now: ctx.store.now,
          memo: toolMemo,
          npm,
        });
      } catch (error) {
        if (error instanceof ToolNotFoundError || error instanceof NpmDepsError) return error.message;
        throw error;
      }
      opts.witness?.tool({ ...call, path: ctx.env.PATH }, found);
      checkers.set(memoKey, found);
    }
    return found;
  };
  const latest = ctx.store.actions.latestAll();
  /** Blobs verified intact and the latest runs' chains, shared by this build's lookups (see verifyReceipt). */
  const shared = buildChecks(ctx.store);
  const today = opts.today ?? new Date().toISOString().slice(0, 10);

  /** A node's selector capture now, or the undecodable name that stops it. */
  const captureOf = (label: string): SelectorCapture | UndecodablePathError => {
    const node = graph.getNodeAttributes(label);
    try {
      return captureSelector({
        root: ctx.root,
        globs: node.inputs,
        files: ctx.files,
        cache: fileStates,
        now: ctx.store.now,
        counter,
        hashMode: node.hash,
      });
    } catch (error) {
      if (error instanceof UndecodablePathError) return error;
      throw error;
    }
  };
  // Every node's inputs are captured before anything runs (on a no-op build this is the only
  // capture: nothing is read twice), so that an input declared in the config that vkit cannot stand
  // for (a link whose target the capture does not hold, a special file) is a config error before any
  // work starts, like the listing's own checks in openWorkspace.
  const early = new Map<string, SelectorCapture | UndecodablePathError>();
  /** Nodes with an input whose recorded digest could not be reused: most likely the ones to run. */
  const edited: string[] = [];
  const issues: Issue[] = [];
  const shown = relative(process.cwd(), ctx.config.file) || ctx.config.file;
  for (const label of ctx.graph.order) {
    const node = graph.getNodeAttributes(label);
    const hashedBefore = counter.hashed;
    const taken = captureOf(label);
    early.set(label, taken);
    if (counter.hashed > hashedBefore) edited.push(label);
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
  fileStates.flush?.();
  if (issues.length) throw new InvalidInputError('ERR_CONFIG_INPUTS', issues, INPUTS_HINT);
  /** Nodes that queued a job in this build: from then on the tree may hold what it wrote. */
  const queuedJobs = new Set<string>();
  /** When each job of this build ran: what may have written over outputs a result vouches for. */
  const timeline = new JobTimeline();
  const afterJobMemo = new Map<string, boolean>();
  /**
   * Whether a node depends, directly or not, on one that queued a job: asked only once its
   * dependencies have settled, so the answer for each of them is final.
   */
  const afterJob = (label: string): boolean => {
    let after = afterJobMemo.get(label);
    if (after === undefined) {
      after = graph.inNeighbors(label).some((d) => queuedJobs.has(d) || afterJob(d));
      afterJobMemo.set(label, after);
    }
    return after;
  };

  const nodeResult = (label: string): Promise<NodeResult> => {
    let p = results.get(label);
    if (!p) {
      p = evaluateNode(label);
      results.set(label, p);
    }
    return p;
  };

  const evaluateNode = async (label: string): Promise<NodeResult> => {
    const node = graph.getNodeAttributes(label);
    const depLabels = graph.inNeighbors(label);
    const deps = await Promise.all(depLabels.map(nodeResult));
    const runnable = opts.mode === 'build' && selected.has(label);
    const item = (
      status: ItemStatus,
      reason: string,
      run: string | null = null,
      receipt: string | null = null,
    ): GateItem => ({ id: label, required: node.required, status, reason, run, receipt });
    const blockedAction = (reason: string, key: string | null = null): NodeResult => {
      const action: ActionReport = {
        label,
        kind: node.kind,
        key,
        status: 'blocked',
        outcome: 'BLOCKED',
        reason,
        run: null,
        receipt: null,
        ms: 0,
      };
      if (runnable)
        emit(
          makeEvent({
            type: 'action.finished',
            label,
            kind: node.kind,
            key,
            status: 'blocked',
            outcome: 'BLOCKED',
            reason,
            run: null,
            ms: 0,
          }),
        );
      return { item: item('BLOCKED', reason), action: runnable ? action : undefined };
    };

    const notPassing = depLabels.map((d, i) => [d, deps[i]!] as const).filter(([, r]) => r.item.status !== 'PASS');
    if (notPassing.length) {
      const [d, r] = notPassing[0]!;
      return blockedAction(`dependency ${d} is ${r.item.status}`);
    }
    const rule = ctx.rules.get(node.kind);
    if (!rule) return blockedAction(`no rule registered for kind \`${node.kind}\``);

    let capture: SelectorCapture;
    const selectorHash = node.hash;
    // Raw captures (acceptance records, their libraries and claims, formal components; checks with
    // `line_endings: 'raw'`, whose config check refuses such a file already) stand for whole
    // trees whose identity a secret-looking file would change, yet vkit never hashes one: its presence
    // is refused at every evaluation, so one added after a PASS cannot hide behind a cached key.
    if (selectorHash === 'raw') {
      const secret = secretInputs(node.inputs, ctx.files);
      if (secret)
        return blockedAction(
          `input \`${secret}\` is a secret-looking file: vkit never reads or hashes one, and this ${node.kind} result would depend on it; move it out of the inputs or ignore it in git`,
        );
    }
    // The capture taken before the walk is the tree as the user left it, before any job of this
    // build; a node downstream of a job captures again, now that the job has ended (it may have
    // rewritten the node's inputs). A node no job precedes keeps it (D54): capturing it again
    // while another node's job runs beside it would read a moment no better, and cost a stat per
    // input and a look at its evidence for every node evaluated after the first job was queued.
    const taken = afterJob(label) ? undefined : early.get(label);
    const captured = taken ?? captureOf(label);
    if (captured instanceof UndecodablePathError)
      return blockedAction(
        `input \`${JSON.stringify(captured.path).slice(1, -1)}\` has a name that is not valid UTF-8 (shown with U+FFFD): vkit cannot read it to capture it; rename it`,
      );
    capture = captured;
    const refusal = refusedReason(node, capture.refused);
    if (refusal) return blockedAction(refusal);
    let checker: CheckerIdentity | undefined;
    const tool = rule.tool?.(node.attrs);
    if (tool) {
      const found = checkerOf(tool.argv0, tool.shell, String(node.attrs.cwd ?? '.'), tool.npm);
      if (typeof found === 'string') return blockedAction(found);
      checker = found;
    }
    const depResults = deps.map((r) => r.dep!);
    // A user rule's identity includes the digest of the config's module graph: vkit cannot tell
    // which code the rule runs, so any edit there re-identifies its actions (fail closed).
    const source = ctx.config.manifest.rules.find((r) => r.kind === rule.kind)?.source_sha256;
    const ruleId: RuleIdentity = source
      ? { kind: rule.kind, version: rule.version, source }
      : { kind: rule.kind, version: rule.version };
    const planned = rule.plan({ label, id: node.id, attrs: node.attrs, capture, checker }, depResults);
    const key = actionKey({
      rule: ruleId,
      capture: capture.digest,
      definition: planned.definition,
      env: envDigests(planned.env, ctx.env),
      checker: checker ?? null,
      deps: depResults,
    });

    const fromReceipt = (
      receiptId: string,
      r: Pick<Receipt, 'outcome' | 'reason' | 'run' | 'artifacts'> & {
        assurance?: Receipt['assurance'];
        ended_at?: string | null;
        subject?: Receipt['subject'];
      },
      status: ActionStatus,
      ms: number,
      explain?: string[],
      notes?: string[],
    ): NodeResult => {
      // A judge may keep or worsen a receipt's outcome, never raise it to PASS (invariant 7): such an
      // answer is ignored and the receipt's own outcome stands.
      const asked = rule.judge?.({ outcome: r.outcome, reason: r.reason, subject: r.subject }, today);
      const judged = asked?.status === 'PASS' && r.outcome !== 'PASS' ? undefined : asked;
      const itemStatus: ItemStatus =
        judged?.status ?? (r.outcome === 'PASS' ? 'PASS' : r.outcome === 'FAIL' ? 'FAIL' : 'BLOCKED');
      const reason = judged?.reason ?? r.reason ?? (r.outcome === 'PASS' ? 'passed' : r.outcome.toLowerCase());
      const action: ActionReport = {
        label,
        kind: node.kind,
        key,
        status,
        outcome: r.outcome,
        reason: r.reason,
        run: r.run,
        receipt: receiptId,
        ms,
        explain,
        ...(notes ? { notes } : {}),
        ...(remoteInfo ? { remote: remoteInfo } : {}),
      };
      const gateItem = {
        ...item(itemStatus, reason, r.run, receiptId),
        ...(r.assurance ? { assurance: r.assurance } : {}),
        ended_at: r.ended_at ?? null,
        ...(notes ? { notes } : {}),
      };
      return { item: gateItem, action, dep: depResult(label, key, r.outcome, r.artifacts) };
    };

    let staleReason: string | undefined;
    let remoteNote: string | undefined;
    let remoteInfo: ActionReport['remote'];
    const fresh = runnable && (opts.force || opts.fresh?.includes(label));
    if (!fresh || opts.reusePassing) {
      let found = lookupEvidence(ctx.store, key, opts.deep ?? false, latest.get(label), shared);
      if (found.state === 'hit')
        opts.witness?.evidence(
          found.receiptId,
          found.receipt.artifacts.map((a) => a.sha256),
        );
      // A local miss may be a remote hit: imported only after every remote check, which include
      // those of a local hit, made on the bytes as they arrived (D45). A fresh run asked with
      // reuse (verify --reuse, the protected gate) takes a remote PASS as it would a local one.
      if (found.state === 'miss' && runnable && ctx.remote) {
        const got = await importRemote(ctx.store, ctx.remote, key, label, shared.intact);
        if (got.state === 'imported') {
          found = { state: 'hit', receiptId: got.receiptId, receipt: got.receipt };
          remoteNote = `remote hit from ${got.url}, signed by ${got.keyid}${got.signer ? ` (${got.signer})` : ''}`;
          remoteInfo = { state: 'hit', url: got.url, keyid: got.keyid, ...(got.signer ? { signer: got.signer } : {}) };
        } else if (got.refused) {
          remoteNote = `remote entry refused: ${got.reason}`;
          remoteInfo = { state: 'refused', url: ctx.remote.cache.url, reason: got.reason };
          ctx.remote.warn(`${label}: ${remoteNote}; running it here`);
        }
      }
      // verify --reuse accepts passing evidence only: a cached FAIL is checked again.
      // A hit whose declared outputs on disk are no longer the ones its receipt names (a checkout, a
      // clean, an edit, another check writing them) does not stand: a build reruns it, which puts
      // them back, so dependents never run against other outputs; for the gate it is STALE.
      const outputsMoved =
        found.state === 'hit'
          ? movedOutputs(ctx.root, found.receipt.artifacts, { cache: fileStates, now: ctx.store.now })
          : undefined;
      if (outputsMoved) staleReason = `${OUTPUTS_MOVED}: ${outputsMoved}`;
      else if (found.state === 'hit' && !(fresh && found.receipt.outcome !== 'PASS')) {
        const ms = 0;
        // Same key over a normalising capture, yet the check may have read other bytes: say so.
        const note = selectorHash === 'raw' ? undefined : lineEndingsNote(found.receipt.capture, capture.files);
        const all = [...(note ? [note] : []), ...(remoteNote ? [remoteNote] : [])];
        const notes = all.length ? all : undefined;
        // Made only for a listener: a thousand hits' events cost more than nothing (--json has none).
        if (runnable && opts.onEvent)
          emit(
            makeEvent({
              type: 'action.cached',
              label,
              kind: node.kind,
              key,
              outcome: found.receipt.outcome as 'PASS' | 'FAIL',
              run: found.receipt.run,
              ms,
              ...(notes ? { notes } : {}),
            }),
          );
        const res = fromReceipt(
          found.receiptId,
          { ...found.receipt, ended_at: found.receipt.timings?.ended_at ?? null },
          'cached',
          ms,
          undefined,
          notes,
        );
        // Marked now, the moment its outputs were found as its receipt names them (nothing of this
        // process ran since; a job in a worker then running is in the mark).
        if (hasOutputs(found.receipt.artifacts))
          res.vouched = { label, artifacts: found.receipt.artifacts, mark: timeline.mark() };
        return runnable ? res : { ...res, action: undefined };
      }
      if (found.state === 'tampered') {
        staleReason = found.reason;
        // The entry can never be trusted again; dropping it makes the next build rerun the action.
        if (runnable) ctx.store.actions.cacheDelete(key);
      }
    }

    if (!runnable) return { item: absentItem(ctx.store, label, key, node, staleReason) };

    const previous = opts.explain ? readLatest(ctx.store, label) : undefined;
    const explain = opts.explain
      ? [
          ...explainChange(
            previous,
            {
              key,
              rule: ruleId,
              files: capture.files,
              definition: planned.definition,
              checker: checker ?? null,
              deps: depResults,
            },
            fresh ? 'a fresh run was asked for' : staleReason,
          ),
          // A local miss the remote could not answer: which check refused its entry.
          ...(remoteNote ? [remoteNote] : []),
        ]
      : undefined;
    const job: Job = {
      schema: 'vkit.job/1',
      key,
      label,
      rule: ruleId,
      id: node.id,
      attrs: node.attrs,
      capture: {
        digest: capture.digest,
        files: capture.files.map(({ path, mode, sha256 }) => ({ path, mode, sha256 })),
        ...(selectorHash ? { hash: selectorHash } : {}),
        selector: [...node.inputs],
      },
      checker,
      deps: depResults,
      policy: ctx.config.policyDigest,
      env: [...planned.env].sort(),
    };
    queuedJobs.add(label);
    // The job's worker re-hashes its inputs: what this build learnt about them is recorded first.
    fileStates.flush?.();
    emit(makeEvent({ type: 'action.queued', label, kind: node.kind, key }));
    let startedAt: JobMark | undefined;
    const result = await queue.add(async () => {
      emit(makeEvent({ type: 'action.started', label, kind: node.kind, key }));
      startedAt = timeline.start(label);
      let ran;
      try {
        ran = await ctx.jobs.run(job, opts.signal, opts.fresh?.includes(label) ? opts.waitMs : undefined);
      } catch (error) {
        timeline.end(label);
        throw error;
      }
      // A run still going after a bounded wait may write on: it stays running for the timeline.
      if (!ran.pending) timeline.end(label);
      return ran;
    });
    const status: ActionStatus = result.outcome === 'PASS' ? 'ran' : result.outcome === 'FAIL' ? 'failed' : 'blocked';
    // A run still going when a bounded wait ended has not finished: no finished event for it.
    if (!result.pending)
      emit(
        makeEvent({
          type: 'action.finished',
          label,
          kind: node.kind,
          key,
          status,
          outcome: result.outcome,
          reason: result.reason,
          run: result.run,
          ms: result.ms,
          explain,
        }),
      );
    const res = fromReceipt(
      result.receipt,
      {
        outcome: result.outcome,
        reason: result.reason,
        run: result.run,
        artifacts: result.artifacts,
        assurance: result.assurance,
        ended_at: result.endedAt,
        subject: result.subject,
      },
      status,
      result.ms,
      explain,
      remoteNote ? [remoteNote] : undefined,
    );
    if (result.pending) res.action!.pending = true;
    else if (startedAt && result.outcome !== 'BLOCKED' && hasOutputs(result.artifacts))
      res.vouched = { label, artifacts: result.artifacts, mark: startedAt };
    // Shared only once committed here; a failed upload loses nothing and fails no build.
    const remote = ctx.remote;
    const shareable = result.receipt && (result.outcome === 'PASS' || result.outcome === 'FAIL');
    if (shareable && remote?.unsigned && !unsignedSaid) {
      unsignedSaid = true;
      remote.warn(remote.unsigned);
    }
    if (remote?.signingKey && shareable && result.receipt)
      uploads.push(
        publishEvidence(ctx.store, remote.cache, remote.signingKey, key, result.receipt, remote.scope).then(
          (published) => {
            if (!published.ok && !published.reason.includes('not shared'))
              remote.warn(`${label}: not uploaded to ${remote.cache.url}: ${published.reason}`);
          },
          (error: Error) => remote.warn(`${label}: not uploaded to ${remote.cache.url}: ${error.message}`),
        ),
      );
    // BLOCKED results feed no dependent: they carry no claim.
    return result.outcome === 'BLOCKED' ? { ...res, dep: undefined } : res;
  };

  // Nodes with a file hashed afresh are evaluated first: a job an edit needs is queued before the
  // hundreds of unchanged nodes' evidence is checked, which then goes on beside it. Only the order
  // of evaluation moves: each node still waits for its dependencies, and the report keeps graph order.
  for (const label of edited) void nodeResult(label);
  const settled = await Promise.all(ctx.graph.order.map(nodeResult));
  // A job may have written over outputs another result vouches for (one check writing a file
  // another declares): such a result no longer stands, and the build says so rather than end READY.
  const rewritten = rewrittenOutputs(
    ctx.root,
    { cache: fileStates, now: ctx.store.now },
    timeline,
    settled.flatMap((r) => (r.vouched ? [r.vouched] : [])),
  );
  if (rewritten.size) unvouch(ctx.graph, settled, rewritten);
  fileStates.flush?.();
  shared.flush();
  // Uploads ran beside the build; each is bounded by the remote's timeouts.
  await Promise.all(uploads);
  const items = settled.map((r) => r.item);
  const gate = evaluateGate(items);
  const actions = settled.flatMap((r) => (r.action ? [r.action] : []));
  const ran = actions.filter((a) => a.status !== 'cached' && a.run !== null).length;
  const cached = actions.filter((a) => a.status === 'cached').length;
  const ms = Math.round(performance.now() - t0);
  emit(
    makeEvent({
      type: 'cycle.settled',
      status: gate.status,
      ran,
      cached,
      ms,
      ...(opts.cycle === undefined ? {} : { cycle: opts.cycle }),
      gate,
    }),
  );
  return {
    schema: 'vkit.build/1',
    actions,
    gate,
    stats: {
      ran,
      cached,
      hashed: counter.hashed,
      reused_hashes: counter.reused,
      ...(ctx.remote ? { remote_hits: actions.filter((a) => a.remote?.state === 'hit').length } : {}),
      ms,
    },
  };
}

/** Why a node cannot run on its capture, or undefined: special files always, unheld link targets where the config declares the inputs. */
function refusedReason(node: GraphNode, refused: readonly Refused[]): string | undefined {
  const special = refused.find((r) => r.kind === 'special');
  if (special)
    return `input \`${special.path.replace(/\/$/, '')}\` is not a regular file or symlink (${special.why}): vkit cannot capture it; exclude it with \`${special.exclude}\``;
  // Where the config entry names its inputs (checks, user actions), what they select must be what
  // the key covers. Comparisons name one plain file (a linked request is the compare rule's to
  // refuse), acceptance items check their own reads, and formal components show their checker only
  // the captured files (and refuse links themselves).
  const link = node.declared ? refused.find((r) => r.kind === 'link') : undefined;
  if (link)
    return `input \`${link.path}\` is ${link.why}: the check could read bytes its key does not see; capture the target too, or exclude the link with \`${link.exclude}\``;
  return undefined;
}

/**
 * Turns the items of results whose outputs were written over into STALE ones, and their dependents
 * (in graph order, direct or not) BLOCKED, as the next `vkit gate` will see them. A dependent
 * already held back by another dependency keeps the item it has.
 */
function unvouch(ag: ActionGraph, settled: NodeResult[], reasons: ReadonlyMap<string, string>): void {
  const byLabel = new Map(ag.order.map((label, i) => [label, settled[i]!]));
  const changed = new Set<string>();
  const held = (r: NodeResult, status: ItemStatus, reason: string): void => {
    r.item = { id: r.item.id, required: r.item.required, status, reason, run: null, receipt: null };
  };
  for (const label of ag.order) {
    const r = byLabel.get(label)!;
    const stale = reasons.get(label);
    if (stale) {
      held(r, 'STALE', stale);
      changed.add(label);
      continue;
    }
    const first = ag.graph.inNeighbors(label).find((d) => byLabel.get(d)!.item.status !== 'PASS');
    if (first === undefined || !changed.has(first)) continue;
    held(r, 'BLOCKED', `dependency ${first} is ${byLabel.get(first)!.item.status}`);
    changed.add(label);
  }
}

/** The first secret-looking path the globs select (selectors leave those out of captures), or undefined. */
function secretInputs(globs: readonly string[], files: readonly string[]): string | undefined {
  return matchGlobs(globs.map(compileGlob), files).find(isSecretPath);
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

/** A requirement with no current evidence: BLOCKED when its last attempt for this key was, STALE when evidence exists for other inputs, else MISSING. */
function absentItem(store: Store, label: string, key: string, node: GraphNode, staleReason?: string): GateItem {
  const base = { id: label, required: node.required, run: null, receipt: null };
  if (staleReason) return { ...base, status: 'STALE', reason: `${staleReason}; run vkit build` };
  const latest = store.actions.latest(label);
  if (latest?.key === key) {
    const r = readLatest(store, label);
    if (r?.outcome === 'BLOCKED')
      return {
        ...base,
        status: 'BLOCKED',
        reason: `last attempt BLOCKED: ${r.reason}`,
        run: r.run,
        receipt: latest.receipt,
      };
  }
  if (latest)
    return {
      ...base,
      status: 'STALE',
      reason: `evidence ${short(latest.key)} is for other inputs or definition; run vkit build`,
    };
  return { ...base, status: 'MISSING', reason: 'no evidence yet; run vkit build' };
}

function readLatest(store: Store, label: string): Receipt | undefined {
  const latest = store.actions.latest(label);
  if (!latest) return undefined;
  const read = store.actions.readReceipt(latest.receipt);
  return read.state === 'intact' ? parseReceipt(read.receipt) : undefined;
}
