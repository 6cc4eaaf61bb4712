/**
 * What `vkit report` shows, read in one pass: the gate (the same walk `vkit gate` makes, nothing
 * allowed to run), each item's evidence (duration and identities from its receipt), the failing
 * items' log tails, the graph's edges and the last runs' durations. Reads only; the page itself is
 * rendered by the face.
 */
import { resolve } from 'node:path';
import { runEngine } from '../engine/build.js';
import type { Gate } from '../gate/schema.js';
import { parseReceipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';
import { gateDetail } from './gate-detail.js';
import { realRoot } from './root.js';
import { defaultStoreDir, type OpenOptions, openWorkspace } from './workspace.js';

/** Runs shown in the durations chart, newest last. */
const RECENT_RUNS = 30;

/** One item's evidence as its receipt names it; every field null when the receipt is not intact. */
interface ItemEvidence {
  ms: number | null;
  source: string | null;
  checker: string | null;
  policy: string | null;
}

export interface RecentRun {
  run: string;
  label: string;
  state: string;
  outcome: string | null;
  /** Its last attempt's wall time; null while it has not ended (or never started). */
  ms: number | null;
  created_at: string;
}

export interface ReportData {
  gate: Gate;
  /** The config file, relative to the root. */
  configFile: string;
  /** The last lines of each failing or blocked item's output, escapes stripped. */
  tails: Record<string, string[]>;
  evidence: Record<string, ItemEvidence>;
  /** Every node of the graph in dependency order, and its edges (`[dependency, dependent]`). */
  nodes: string[];
  edges: [string, string][];
  /** The last runs, oldest first. */
  runs: RecentRun[];
}

/** The store `vkit report` reads, as the workspace will open it: where its page must not go. */
export async function reportStoreDir(open: OpenOptions): Promise<string> {
  return open.store ? resolve(open.store) : defaultStoreDir(realRoot(open.root));
}

export async function reportData(open: OpenOptions, req: { deep?: boolean; today?: string } = {}): Promise<ReportData> {
  const today = req.today ?? new Date().toISOString().slice(0, 10);
  const ws = await openWorkspace(open);
  try {
    // The gate's own walk (service `gate`), never a memo's answer: the page is read from the store.
    const report = await runEngine(ws, { mode: 'gate', deep: req.deep, today });
    const detail = gateDetail(ws, report.gate);
    const g = ws.graph.graph;
    return {
      gate: report.gate,
      configFile: detail.configFile,
      tails: detail.tails,
      evidence: Object.fromEntries(report.gate.items.map((i) => [i.id, evidenceOf(ws.store, i.receipt ?? null)])),
      nodes: [...ws.graph.order],
      edges: g.mapEdges((_edge, _attrs, from, to) => [from, to] as [string, string]),
      runs: recentRuns(ws.store),
    };
  } finally {
    ws.close();
  }
}

function evidenceOf(store: Store, receiptId: string | null): ItemEvidence {
  const none = { ms: null, source: null, checker: null, policy: null };
  if (!receiptId) return none;
  const read = store.actions.readReceipt(receiptId);
  const receipt = read.state === 'intact' ? parseReceipt(read.receipt) : undefined;
  if (!receipt) return none;
  return {
    ms: receipt.timings.ms,
    source: receipt.capture.digest,
    checker: receipt.checker?.sha256 ?? null,
    policy: receipt.policy_sha256,
  };
}

const msOfNs = (ns: string) => Number(BigInt(ns) / 1_000_000n);

function recentRuns(store: Store): RecentRun[] {
  return store.lifecycle
    .listRuns({ limit: RECENT_RUNS })
    .reverse()
    .map((r) => {
      const last = store.lifecycle.attemptsOf(r.id).at(-1);
      return {
        run: r.id,
        label: r.label,
        state: r.state,
        outcome: r.outcome,
        ms: last?.ended_ns ? msOfNs(last.ended_ns) - msOfNs(last.started_ns) : null,
        created_at: new Date(msOfNs(r.created_ns)).toISOString(),
      };
    });
}
