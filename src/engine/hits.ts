/**
 * Whether a node's evidence stands, so that it is not run: the fail-closed local lookup, a remote
 * result imported on a local miss, and the outputs on disk checked against the receipt's. A hit
 * that does not stand is STALE for the gate and rerun by a build.
 */
import type { RemoteContext } from '../remote/context.js';
import type { RemoteLookup } from '../remote/exchange.js';
import { lookupEvidence, type Lookup } from './evidence.js';
import { makeEvent } from './events.js';
import { lineEndingsNote } from './explain.js';
import { fromReceipt, type NodeResult } from './node-result.js';
import { hasOutputs, movedOutputs, OUTPUTS_MOVED } from './outputs.js';
import type { PlannedNode } from './plan-node.js';
import type { ActionReport } from './schema.js';
import type { WalkState } from './walk-state.js';

type Hit = Extract<Lookup, { state: 'hit' }>;

/** What the remote cache said of a node's key: a note for the report and the action's `remote`. */
export interface RemoteSeen {
  note?: string;
  info?: ActionReport['remote'];
}

/** The local evidence filed under the node's key (see lookupEvidence); a hit is told to the reliance listener. */
export function localEvidence(walk: WalkState, p: PlannedNode): Lookup {
  const found = lookupEvidence(walk.ctx.store, p.key, walk.opts.deep ?? false, walk.latest.get(p.label), walk.shared);
  if (found.state === 'hit')
    walk.opts.reliance?.evidence(
      found.receiptId,
      found.receipt.artifacts.map((a) => a.sha256),
    );
  return found;
}

/**
 * What a remote import made of a local miss: a hit (imported only after every remote check, which
 * include those of a local hit, made on the bytes as they arrived: D45), or the miss, with why the
 * remote refused its entry (warned of: the node runs here instead).
 */
export function remoteEvidence(
  remote: RemoteContext,
  label: string,
  got: RemoteLookup,
  miss: Lookup,
): { found: Lookup; seen: RemoteSeen } {
  if (got.state === 'imported')
    return {
      found: { state: 'hit', receiptId: got.receiptId, receipt: got.receipt },
      seen: {
        note: `remote hit from ${got.url}, signed by ${got.keyid}${got.signer ? ` (${got.signer})` : ''}`,
        info: { state: 'hit', url: got.url, keyid: got.keyid, ...(got.signer ? { signer: got.signer } : {}) },
      },
    };
  if (got.refused) {
    const note = `remote entry refused: ${got.reason}`;
    remote.warn(`${label}: ${note}; running it here`);
    return { found: miss, seen: { note, info: { state: 'refused', url: remote.cache.url, reason: got.reason } } };
  }
  return { found: miss, seen: {} };
}

/**
 * The cached result when the evidence found stands, else why the node's evidence is stale (or
 * nothing, for a miss or a result a fresh run passes over). A tampered entry is dropped by a build.
 */
export function standingEvidence(
  walk: WalkState,
  p: PlannedNode,
  found: Lookup,
  runnable: boolean,
  fresh: boolean | undefined,
  remote: RemoteSeen,
): { hit: NodeResult } | { staleReason: string | undefined } {
  let staleReason: string | undefined;
  // verify --reuse accepts passing evidence only: a cached FAIL is checked again.
  // A hit whose declared outputs on disk are no longer the ones its receipt names (a checkout, a
  // clean, an edit, another check writing them) does not stand: a build reruns it, which puts
  // them back, so dependents never run against other outputs; for the gate it is STALE.
  const outputsMoved =
    found.state === 'hit'
      ? movedOutputs(walk.ctx.root, found.receipt.artifacts, { cache: walk.fileStates, now: walk.ctx.store.now })
      : undefined;
  if (outputsMoved) staleReason = `${OUTPUTS_MOVED}: ${outputsMoved}`;
  else if (found.state === 'hit' && !(fresh && found.receipt.outcome !== 'PASS'))
    return { hit: cachedResult(walk, p, found, runnable, remote) };
  if (found.state === 'tampered') {
    staleReason = found.reason;
    // The entry can never be trusted again; dropping it makes the next build rerun the action.
    if (runnable) walk.ctx.store.actions.cacheDelete(p.key);
  }
  return { staleReason };
}

/** A hit that stands, reported as cached; its outputs are vouched for from this moment. */
function cachedResult(walk: WalkState, p: PlannedNode, found: Hit, runnable: boolean, remote: RemoteSeen): NodeResult {
  const { label, node, key } = p;
  const ms = 0;
  // Same key over a normalising capture, yet the check may have read other bytes: say so.
  const note = node.hash === 'raw' ? undefined : lineEndingsNote(found.receipt.capture, p.capture.files);
  const all = [...(note ? [note] : []), ...(remote.note ? [remote.note] : [])];
  const notes = all.length ? all : undefined;
  // Made only for a listener: a thousand hits' events cost more than nothing (--json has none).
  if (runnable && walk.opts.onEvent)
    walk.emit(
      makeEvent({
        type: 'action.cached',
        label,
        kind: node.kind,
        key,
        outcome: found.receipt.outcome as 'PASS' | 'FAIL',
        run: found.receipt.run,
        ms,
        ...(found.receipt.timings ? { ran_ms: found.receipt.timings.ms } : {}),
        ...(notes ? { notes } : {}),
      }),
    );
  const res = fromReceipt(
    p,
    walk.today,
    found.receiptId,
    { ...found.receipt, ended_at: found.receipt.timings?.ended_at ?? null },
    { status: 'cached', ms, explain: undefined, notes, remote: remote.info },
  );
  // Marked now, the moment its outputs were found as its receipt names them (nothing of this
  // process ran since; a job in a worker then running is in the mark).
  if (hasOutputs(found.receipt.artifacts))
    res.vouched = { label, artifacts: found.receipt.artifacts, mark: walk.timeline.mark() };
  return runnable ? res : { ...res, action: undefined };
}
