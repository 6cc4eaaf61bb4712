/** Reading retained runs: listing, `run show` sections, and failure tails. Reads only; starts nothing. */
import { invalid } from '../errors.js';
import type { ActionReport } from '../engine/build.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { RunRow, Store } from '../store/store.js';

export const SECTIONS = ['diagnostics', 'obligations', 'provenance', 'coverage', 'compilation', 'artifacts', 'log'] as const;
export type Section = (typeof SECTIONS)[number];

const LOG_PAGE_LINES = 200;
const TAIL_LINES = 12;

export function listRuns(store: Store, filter: { label?: string; limit?: number } = {}) {
  return store.listRuns(filter).map((r) => ({ run: r.id, label: r.label, state: r.state, outcome: r.outcome, reason: r.reason, receipt: r.receipt, created_at: isoOf(r.created_ns) }));
}

function isoOf(ns: string | null): string | null {
  return ns === null ? null : new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
}

function receiptOf(store: Store, run: RunRow): Receipt | undefined {
  if (!run.receipt) return undefined;
  const read = store.readReceipt(run.receipt);
  return read.state === 'intact' ? parseReceipt(read.receipt) : undefined;
}

/** The last lines of a failing or blocked action's output, for inline display. */
export function attachTails(store: Store, actions: ActionReport[]): void {
  for (const a of actions) {
    if (a.status !== 'failed' && a.status !== 'blocked') continue;
    if (!a.receipt) continue;
    const read = store.readReceipt(a.receipt);
    if (read.state !== 'intact') continue;
    const receipt = parseReceipt(read.receipt);
    const lines: string[] = [];
    for (const name of ['stdout', 'stderr']) {
      const art = receipt?.artifacts.find((x) => x.name === name);
      if (art && store.cas.state(art.sha256, false) === 'intact') lines.push(...store.cas.read(art.sha256).toString('utf8').split('\n').filter((l) => l.length > 0));
    }
    a.tail = lines.slice(-TAIL_LINES);
  }
}

export interface RunShown {
  schema: 'vkit.run/1';
  summary: { run: string; label: string; state: string; outcome: string | null; reason: string | null; next: string } & Record<string, unknown>;
  [section: string]: unknown;
}

/** `vkit run show`: a summary plus the selected sections, read from retained results. */
export function showRun(store: Store, runId: string, sections: Section[], page = 1): RunShown {
  const run = store.getRun(runId);
  if (!run) throw invalid('ERR_USAGE', `No run \`${runId}\` in this store`, { path: '--run' }, 'List runs with `vkit runs`.');
  const receipt = receiptOf(store, run);
  const attempts = store.attemptsOf(run.id).map((a) => ({ attempt: a.id, state: a.state, outcome: a.outcome, reason: a.reason, host: a.host, pid: a.pid, started_at: isoOf(a.started_ns), ended_at: isoOf(a.ended_ns) }));
  const summary = {
    run: run.id,
    job: run.job,
    label: run.label,
    state: run.state,
    outcome: run.outcome,
    reason: run.reason,
    receipt: run.receipt,
    claim: receipt?.claim ?? null,
    assurance: receipt?.assurance ?? null,
    obligations: formalSections(receipt)?.obligations ? formalCounts(formalSections(receipt)!) : obligationCounts(receipt),
    attempts,
    next: run.outcome === 'PASS' ? 'nothing to do' : `vkit verify --check ${run.label.replace(/^check:/, '')}`,
  };
  const out: RunShown = { schema: 'vkit.run/1', summary };
  const noReceipt = { applicable: false, note: 'this run has no intact receipt' };
  const formal = formalSections(receipt);
  for (const section of sections) {
    // A formal receipt carries its own sections (the profile's); the generic ones below describe tests.
    if (formal && section !== 'artifacts' && section !== 'log') {
      out[section] = formalSection(receipt!, formal, section);
      continue;
    }
    if (section === 'coverage' || section === 'compilation') {
      out[section] = { applicable: false, note: `not applicable: ${run.kind} actions have no ${section} section` };
      continue;
    }
    if (!receipt) {
      out[section] = noReceipt;
      continue;
    }
    if (section === 'diagnostics') out[section] = { outcome: receipt.outcome, reason: receipt.reason, exit_code: receipt.exit_code, expected: (receipt.definition.expect as { exit_code?: number } | undefined)?.exit_code ?? null };
    if (section === 'obligations') out[section] = receipt.obligations;
    if (section === 'provenance') out[section] = { policy_sha256: receipt.policy_sha256, definition_sha256: receipt.definition_sha256, definition: receipt.definition, capture: receipt.capture, checker: receipt.checker, deps: receipt.deps, env: receipt.env, timings: receipt.timings, logical_trust: 'empirical: a test run, no axioms or proofs involved' };
    if (section === 'artifacts') out[section] = receipt.artifacts.map((a) => ({ ...a, state: store.cas.state(a.sha256, false) }));
    if (section === 'log') out[section] = logPage(store, receipt, page);
  }
  return out;
}

type Sections = { obligations?: { total: number | null; proved: number; failed: number; unknown: number | null; items: unknown[] } } & Record<string, unknown>;

/** The sections a formal (`verify`) receipt keeps in its subject, when present. */
function formalSections(receipt: Receipt | undefined): Sections | undefined {
  if (receipt?.kind !== 'verify') return undefined;
  const sections = (receipt.subject as { sections?: unknown } | undefined)?.sections;
  return typeof sections === 'object' && sections !== null ? (sections as Sections) : undefined;
}

function formalCounts(s: Sections) {
  const o = s.obligations!;
  return { total: o.total, passed: o.proved, failed: o.failed, blocked: 0, unknown: o.unknown };
}

function formalSection(receipt: Receipt, s: Sections, section: Section): unknown {
  const identities = (receipt.subject as { formal?: unknown }).formal ?? null;
  switch (section) {
    case 'diagnostics':
      return { outcome: receipt.outcome, reason: receipt.reason, claim: receipt.claim, items: s.diagnostics ?? [] };
    case 'provenance':
      return { identities, policy_sha256: receipt.policy_sha256, capture: receipt.capture, scope: s.scope ?? null, inventory: s.inventory ?? null, ...((s.provenance as object | undefined) ?? {}), timings: receipt.timings };
    case 'compilation':
      return s.compilation ?? { applicable: false, note: 'this profile produced no compilation section' };
    default:
      return s[section] ?? { applicable: false, note: `the receipt has no ${section} section` };
  }
}

/**
 * Observed results versus unobserved obligations. Without a receipt there is no denominator, so
 * `total` and `unknown` are null rather than a guess.
 */
function obligationCounts(receipt: Receipt | undefined) {
  if (!receipt) return { total: null, passed: 0, failed: 0, blocked: 0, unknown: null };
  const count = (o: string) => receipt.obligations.filter((x) => x.outcome === o).length;
  return { total: receipt.obligations.length, passed: count('PASS'), failed: count('FAIL'), blocked: count('BLOCKED'), unknown: receipt.obligations.filter((x) => x.claim === 'unknown').length };
}

function logPage(store: Store, receipt: Receipt, page: number) {
  const streams: Record<string, unknown> = {};
  for (const name of ['stdout', 'stderr']) {
    const art = receipt.artifacts.find((a) => a.name === name);
    if (!art) continue;
    if (store.cas.state(art.sha256, false) !== 'intact') {
      streams[name] = { state: 'missing or altered' };
      continue;
    }
    const lines = store.cas.read(art.sha256).toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const pages = Math.max(1, Math.ceil(lines.length / LOG_PAGE_LINES));
    streams[name] = { page, pages, total_lines: lines.length, lines: lines.slice((page - 1) * LOG_PAGE_LINES, page * LOG_PAGE_LINES) };
  }
  return streams;
}
