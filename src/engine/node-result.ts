/**
 * What one node of the walk comes to: its gate item, its action in the report (for a node this
 * build may run), what its dependents' keys see, and the outputs it vouches for. Built here from a
 * receipt, a block, or the absence of evidence.
 */
import type { DepResult, Rule } from '../config/rule.js';
import type { GateItem, ItemStatus } from '../gate/schema.js';
import type { GraphNode } from '../graph/compile.js';
import { depResult } from '../jobs/job.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';
import { short } from './evidence.js';
import { makeEvent, type EventSink } from './events.js';
import type { Vouched } from './outputs.js';
import type { ActionReport } from './schema.js';

export type ActionStatus = ActionReport['status'];

export interface NodeResult {
  item: GateItem;
  action?: ActionReport;
  /** What dependents' keys see; only for nodes with an outcome. */
  dep?: DepResult;
  /** A result naming declared outputs, from when the build relied on them. */
  vouched?: Vouched;
}

/** A node with its rule and action key: what a result found or made for it is reported under. */
export interface KeyedNode {
  label: string;
  node: GraphNode;
  rule: Rule;
  key: string;
}

/** A result's fields, from a receipt read back or a job just ended. */
export type ResultFields = Pick<Receipt, 'outcome' | 'reason' | 'run' | 'artifacts'> & {
  assurance?: Receipt['assurance'];
  ended_at?: string | null;
  subject?: Receipt['subject'];
};

/** How the build came by a result, as its action reports it. */
export interface HowFound {
  status: ActionStatus;
  ms: number;
  explain?: string[];
  notes?: string[];
  remote?: ActionReport['remote'];
}

function gateItem(
  label: string,
  node: GraphNode,
  status: ItemStatus,
  reason: string,
  run: string | null = null,
  receipt: string | null = null,
): GateItem {
  return { id: label, required: node.required, status, reason, run, receipt };
}

/** The result a receipt stands for, its outcome re-judged by the rule against `today`. */
export function fromReceipt(
  k: KeyedNode,
  today: string,
  receiptId: string,
  r: ResultFields,
  how: HowFound,
): NodeResult {
  const { label, node, rule, key } = k;
  const { notes } = how;
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
    status: how.status,
    outcome: r.outcome,
    reason: r.reason,
    run: r.run,
    receipt: receiptId,
    ms: how.ms,
    explain: how.explain,
    ...(notes ? { notes } : {}),
    ...(how.remote ? { remote: how.remote } : {}),
  };
  const item = {
    ...gateItem(label, node, itemStatus, reason, r.run, receiptId),
    ...(r.assurance ? { assurance: r.assurance } : {}),
    ended_at: r.ended_at ?? null,
    ...(notes ? { notes } : {}),
  };
  return { item, action, dep: depResult(label, key, r.outcome, r.artifacts) };
}

/** A node held back before it has a key: BLOCKED, with a finished event when this build may run it. */
export function blockedResult(
  emit: EventSink,
  label: string,
  node: GraphNode,
  runnable: boolean,
  reason: string,
): NodeResult {
  const action = {
    label,
    kind: node.kind,
    key: null,
    status: 'blocked',
    outcome: 'BLOCKED',
    reason,
    run: null,
    receipt: null,
    ms: 0,
  } satisfies ActionReport;
  // The finished event is the action's report without the receipt (there is none).
  const { receipt: _receipt, ...finished } = action;
  if (runnable) emit(makeEvent({ type: 'action.finished', ...finished }));
  return { item: gateItem(label, node, 'BLOCKED', reason), action: runnable ? action : undefined };
}

/** A requirement with no current evidence: BLOCKED when its last attempt for this key was, STALE when evidence exists for other inputs, else MISSING. */
export function absentItem(store: Store, label: string, key: string, node: GraphNode, staleReason?: string): GateItem {
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

/** The label's latest receipt, when it is intact. */
export function readLatest(store: Store, label: string): Receipt | undefined {
  const latest = store.actions.latest(label);
  if (!latest) return undefined;
  const read = store.actions.readReceipt(latest.receipt);
  return read.state === 'intact' ? parseReceipt(read.receipt) : undefined;
}
