/**
 * One node of the walk: once its dependencies have settled, the checks that may block it and its
 * key (plan-node.ts), then its evidence if it stands (hits.ts), else its absence for the gate or
 * its job for a build (run-job.ts). The only waits are on the dependencies, a remote import and the
 * job: between them a node's steps run without yielding, so a node evaluated first queues its job
 * before the next node's evidence is looked at.
 */
import { importRemote } from '../remote/exchange.js';
import { localEvidence, remoteEvidence, standingEvidence, type RemoteSeen } from './hits.js';
import { absentItem, blockedResult, type NodeResult } from './node-result.js';
import { planNode } from './plan-node.js';
import { explainRun, queueJob, recordRun } from './run-job.js';
import type { WalkState } from './walk-state.js';

/** The node's result, evaluated once per walk. */
export function nodeResult(walk: WalkState, label: string): Promise<NodeResult> {
  let p = walk.results.get(label);
  if (!p) {
    p = evaluateNode(walk, label);
    walk.results.set(label, p);
  }
  return p;
}

async function evaluateNode(walk: WalkState, label: string): Promise<NodeResult> {
  const { ctx, opts } = walk;
  const node = walk.graph.getNodeAttributes(label);
  const depLabels = walk.graph.inNeighbors(label);
  const deps = await Promise.all(depLabels.map((d) => nodeResult(walk, d)));
  const runnable = opts.mode === 'build' && walk.selected.has(label);
  const planned = planNode(walk, label, node, depLabels, deps);
  if ('blocked' in planned) return blockedResult(walk.emit, label, node, runnable, planned.blocked);

  let staleReason: string | undefined;
  let remote: RemoteSeen = {};
  const fresh = runnable && (opts.force || opts.fresh?.includes(label));
  if (!fresh || opts.reusePassing) {
    let found = localEvidence(walk, planned);
    // A local miss may be a remote hit. A fresh run asked with reuse (verify --reuse, the
    // protected gate) takes a remote PASS as it would a local one.
    if (found.state === 'miss' && runnable && ctx.remote) {
      const got = await importRemote(ctx.store, ctx.remote, planned.key, label, walk.shared.intact);
      ({ found, seen: remote } = remoteEvidence(ctx.remote, label, got, found));
    }
    const standing = standingEvidence(walk, planned, found, runnable, fresh, remote);
    if ('hit' in standing) return standing.hit;
    staleReason = standing.staleReason;
  }

  if (!runnable) return { item: absentItem(ctx.store, label, planned.key, node, staleReason) };
  const explain = explainRun(walk, planned, fresh, staleReason, remote);
  const queued = queueJob(walk, planned);
  const result = await queued.result;
  return recordRun(walk, planned, result, { startedAt: queued.startedAt(), beside: queued.beside() }, explain, remote);
}
