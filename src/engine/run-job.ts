/**
 * A node with no evidence that stands, run: its `--explain` lines, its job queued and waited for,
 * the result recorded with the outputs it vouches for, and shared with the remote cache once
 * committed here.
 */
import type { Job } from '../jobs/job.js';
import type { AttemptResult } from '../jobs/worker.js';
import { publishEvidence } from '../remote/exchange.js';
import { makeEvent } from './events.js';
import { explainChange } from './explain.js';
import { fromReceipt, readLatest, type ActionStatus, type NodeResult } from './node-result.js';
import { hasOutputs, type JobMark } from './outputs.js';
import type { RemoteSeen } from './hits.js';
import type { PlannedNode } from './plan-node.js';
import type { WalkState } from './walk-state.js';

/** A job on the walk's queue: its result, the mark taken as it started, and the jobs that ran beside it (once known). */
export interface QueuedJob {
  result: Promise<AttemptResult>;
  startedAt(): JobMark | undefined;
  beside(): readonly string[];
}

/** Why the node runs, against its latest receipt, when `--explain` asks; else undefined. */
export function explainRun(
  walk: WalkState,
  p: PlannedNode,
  fresh: boolean | undefined,
  staleReason: string | undefined,
  remote: RemoteSeen,
): string[] | undefined {
  if (!walk.opts.explain) return undefined;
  const previous = readLatest(walk.ctx.store, p.label);
  return [
    ...explainChange(
      previous,
      {
        key: p.key,
        rule: p.ruleId,
        files: p.capture.files,
        definition: p.planned.definition,
        checker: p.checker ?? null,
        deps: p.depResults,
      },
      fresh ? 'a fresh run was asked for' : staleReason,
    ),
    // A local miss the remote could not answer: which check refused its entry.
    ...(remote.note ? [remote.note] : []),
  ];
}

/** Queues the node's job on the walk's queue; from now on the tree may hold what it writes. */
export function queueJob(walk: WalkState, p: PlannedNode): QueuedJob {
  const { ctx, opts, emit, timeline } = walk;
  const { label, node, key, capture } = p;
  const job: Job = {
    schema: 'vkit.job/1',
    key,
    label,
    rule: p.ruleId,
    id: node.id,
    attrs: node.attrs,
    capture: {
      digest: capture.digest,
      files: capture.files.map(({ path, mode, sha256 }) => ({ path, mode, sha256 })),
      ...(node.hash ? { hash: node.hash } : {}),
      selector: [...node.inputs],
    },
    checker: p.checker,
    deps: p.depResults,
    policy: ctx.config.policyDigest,
    env: [...p.planned.env].sort(),
  };
  walk.queuedJobs.add(label);
  // The job's worker re-hashes its inputs: what this build learnt about them is recorded first.
  walk.fileStates.flush?.();
  emit(makeEvent({ type: 'action.queued', label, kind: node.kind, key }));
  let startedAt: JobMark | undefined;
  let beside: readonly string[] = [];
  // A job making declared outputs runs alone, its worker's hashing of them included (exclusive-runs.ts).
  const alone = p.planned.writesOutputs === true;
  const result = walk.queue.add(() =>
    walk.exclusive.run(alone, async () => {
      emit(makeEvent({ type: 'action.started', label, kind: node.kind, key }));
      const mark = timeline.start(label);
      startedAt = mark;
      let ran;
      try {
        ran = await ctx.jobs.run(job, opts.signal, opts.fresh?.includes(label) ? opts.waitMs : undefined);
      } catch (error) {
        timeline.end(label);
        throw error;
      }
      // Asked before the next job may start: who ran while this one made and hashed its outputs.
      beside = timeline.since(mark, label);
      // A run still going after a bounded wait may write on: it stays running for the timeline.
      if (!ran.pending) timeline.end(label);
      return ran;
    }),
  );
  return { result, startedAt: () => startedAt, beside: () => beside };
}

/** The node's result from its job's: reported, vouching for its outputs from the job's start, and shared. */
export function recordRun(
  walk: WalkState,
  p: PlannedNode,
  result: AttemptResult,
  ran: { startedAt: JobMark | undefined; beside: readonly string[] },
  explain: string[] | undefined,
  remote: RemoteSeen,
): NodeResult {
  const { label, node, key } = p;
  const status: ActionStatus = result.outcome === 'PASS' ? 'ran' : result.outcome === 'FAIL' ? 'failed' : 'blocked';
  // A run still going when a bounded wait ended has not finished: no finished event for it.
  if (!result.pending)
    walk.emit(
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
    p,
    walk.today,
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
    { status, ms: result.ms, explain, notes: remote.note ? [remote.note] : undefined, remote: remote.info },
  );
  if (result.pending) res.action!.pending = true;
  else if (ran.startedAt && result.outcome !== 'BLOCKED' && hasOutputs(result.artifacts))
    res.vouched = { label, artifacts: result.artifacts, mark: ran.startedAt, beside: ran.beside };
  shareResult(walk, label, key, result);
  // BLOCKED results feed no dependent: they carry no claim.
  return result.outcome === 'BLOCKED' ? { ...res, dep: undefined } : res;
}

/** Uploads a committed PASS or FAIL to the remote cache; a failed upload loses nothing and fails no build. */
function shareResult(walk: WalkState, label: string, key: string, result: AttemptResult): void {
  const remote = walk.ctx.remote;
  const shareable = result.receipt && (result.outcome === 'PASS' || result.outcome === 'FAIL');
  if (shareable && remote?.unsigned && !walk.unsignedSaid) {
    walk.unsignedSaid = true;
    remote.warn(remote.unsigned);
  }
  if (remote?.signingKey && shareable && result.receipt)
    walk.uploads.push(
      publishEvidence(walk.ctx.store, remote.cache, remote.signingKey, key, result.receipt, remote.scope).then(
        (published) => {
          if (!published.ok && !published.reason.includes('not shared'))
            remote.warn(`${label}: not uploaded to ${remote.cache.url}: ${published.reason}`);
        },
        (error: Error) => remote.warn(`${label}: not uploaded to ${remote.cache.url}: ${error.message}`),
      ),
    );
}
