/** Reading retained runs: listing, `run show` sections, and failure tails. Reads only; starts nothing. */
import { invalid } from '../errors.js';
import { stripAnsi } from '../text/ansi.js';
import type { ActionReport } from '../engine/schema.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { RunRow, Store } from '../store/store.js';
import type { Job } from '../jobs/job.js';

export const SECTIONS = [
  'diagnostics',
  'obligations',
  'provenance',
  'coverage',
  'compilation',
  'artifacts',
  'log',
] as const;
export type Section = (typeof SECTIONS)[number];

/** Log lines per page, and the longest line a page carries (longer ones are cut, and counted). */
const LOG_PAGE_LINES = 200;
const LOG_LINE_CHARS = 4000;
/** Artifacts per page of the `artifacts` section. */
const ARTIFACT_PAGE_ITEMS = 100;
const TAIL_LINES = 12;

export function listRuns(store: Store, filter: { label?: string; limit?: number } = {}) {
  return store.lifecycle.listRuns(filter).map((r) => ({
    run: r.id,
    label: r.label,
    state: r.state,
    outcome: r.outcome,
    reason: r.reason,
    receipt: r.receipt,
    created_at: isoOf(r.created_ns),
  }));
}

function isoOf(ns: string | null): string | null {
  return ns === null ? null : new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
}

function receiptOf(store: Store, run: RunRow): Receipt | undefined {
  if (!run.receipt) return undefined;
  const read = store.actions.readReceipt(run.receipt);
  return read.state === 'intact' ? parseReceipt(read.receipt) : undefined;
}

/** The last lines of a failing or blocked action's output, for inline display. */
export function attachTails(store: Store, actions: ActionReport[]): void {
  for (const a of actions) {
    if (a.status !== 'failed' && a.status !== 'blocked') continue;
    const tail = a.receipt ? receiptTail(store, a.receipt) : undefined;
    if (tail) a.tail = tail;
  }
}

/**
 * The last lines of each failing or blocked item's output (by item id), from the receipt its
 * status stands on: what a CI report shows under a failure.
 */
export function itemTails(
  store: Store,
  items: readonly { id: string; status: string; receipt?: string | null }[],
): Record<string, string[]> {
  const tails: Record<string, string[]> = {};
  for (const i of items) {
    if (i.status === 'PASS' || !i.receipt) continue;
    const tail = receiptTail(store, i.receipt);
    if (tail?.length) tails[i.id] = tail;
  }
  return tails;
}

/** A place in the work tree a diagnostic points at (one-based line). */
export interface SourceLine {
  file: string;
  line: number;
  column?: number;
}

/** At most this many source places per item: a report points at the first few, not every warning. */
const SOURCE_LINES = 10;

/**
 * Where each failing or blocked item's diagnostics point (a formal verifier's errors), for reports
 * that show file and line: only places inside the work tree (`inTree` says which root-relative paths
 * are files of it; a path inside a package or the worker is no place in the repository), errors first.
 */
export function itemSourceLines(
  store: Store,
  items: readonly { id: string; status: string; receipt?: string | null }[],
  inTree: (file: string) => boolean,
): Record<string, SourceLine[]> {
  const found: Record<string, SourceLine[]> = {};
  for (const i of items) {
    if (i.status === 'PASS' || !i.receipt) continue;
    const read = store.actions.readReceipt(i.receipt);
    if (read.state !== 'intact') continue;
    const diagnostics = ownSections(parseReceipt(read.receipt))?.diagnostics;
    const places = sourcePlaces(Array.isArray(diagnostics) ? diagnostics : [], inTree);
    if (places.length) found[i.id] = places;
  }
  return found;
}

/** Diagnostics with a file of the tree and a positive line, errors before warnings, at most `SOURCE_LINES`. */
export function sourcePlaces(diagnostics: readonly unknown[], inTree: (file: string) => boolean): SourceLine[] {
  const rank = (d: { severity?: unknown }) => (d.severity === 'error' ? 0 : d.severity === 'warning' ? 1 : 2);
  return diagnostics
    .filter(
      (d): d is { file: string; line: number; column?: unknown; severity?: unknown } =>
        typeof d === 'object' &&
        d !== null &&
        typeof (d as { file?: unknown }).file === 'string' &&
        Number.isInteger((d as { line?: unknown }).line) &&
        (d as { line: number }).line > 0 &&
        inTree((d as { file: string }).file),
    )
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, SOURCE_LINES)
    .map((d) => ({
      file: d.file,
      line: d.line,
      ...(Number.isInteger(d.column) && (d.column as number) > 0 ? { column: d.column as number } : {}),
    }));
}

/** The last lines of a receipt's stdout and stderr, escapes stripped; undefined when the receipt is not intact. */
function receiptTail(store: Store, receiptId: string): string[] | undefined {
  const read = store.actions.readReceipt(receiptId);
  if (read.state !== 'intact') return undefined;
  const receipt = parseReceipt(read.receipt);
  const lines: string[] = [];
  for (const name of ['stdout', 'stderr']) {
    const art = receipt?.artifacts.find((x) => x.name === name);
    if (art && store.cas.state(art.sha256, false) === 'intact') lines.push(...lastLines(store, art.sha256, TAIL_LINES));
  }
  return lines.slice(-TAIL_LINES);
}

export interface RunShown {
  schema: 'vkit.run/1';
  summary: {
    run: string;
    label: string;
    state: string;
    outcome: string | null;
    reason: string | null;
    next: string;
  } & Record<string, unknown>;
  [section: string]: unknown;
}

/** `vkit run show`: a summary plus the selected sections, read from retained results. */
export function showRun(store: Store, runId: string, sections: Section[], page = 1): RunShown {
  const run = store.lifecycle.getRun(runId);
  if (!run)
    throw invalid('ERR_USAGE', `No run \`${runId}\` in this store`, { path: '--run' }, 'List runs with `vkit runs`.');
  const receipt = receiptOf(store, run);
  const attempts = store.lifecycle.attemptsOf(run.id).map((a) => ({
    attempt: a.id,
    state: a.state,
    outcome: a.outcome,
    reason: a.reason,
    host: a.host,
    pid: a.pid,
    started_at: isoOf(a.started_ns),
    ended_at: isoOf(a.ended_ns),
  }));
  const summary = {
    run: run.id,
    job: run.job,
    identities: identitiesOf(store, run, receipt),
    label: run.label,
    state: run.state,
    outcome: run.outcome,
    reason: run.reason,
    receipt: run.receipt,
    claim: receipt?.claim ?? null,
    assurance: receipt?.assurance ?? null,
    // What confined its processes (none: unsandboxed, or nothing ran); not part of the key.
    sandbox: receipt?.confined_by ?? null,
    obligations: ownSections(receipt)?.obligations ? ownCounts(ownSections(receipt)!) : obligationCounts(receipt),
    attempts,
    next: nextAction(run),
  };
  const out: RunShown = { schema: 'vkit.run/1', summary };
  const noReceipt = { applicable: false, note: 'this run has no intact receipt' };
  const own = ownSections(receipt);
  for (const section of sections) {
    // A receipt carrying its own sections (a formal profile's) is shown by them; the generic ones below describe tests.
    if (own && section !== 'artifacts' && section !== 'log') {
      out[section] = ownSection(receipt!, own, section);
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
    if (section === 'diagnostics')
      out[section] = {
        outcome: receipt.outcome,
        reason: receipt.reason,
        exit_code: receipt.exit_code,
        expected: (receipt.definition.expect as { exit_code?: number } | undefined)?.exit_code ?? null,
      };
    if (section === 'obligations') out[section] = receipt.obligations;
    if (section === 'provenance')
      out[section] = {
        policy_sha256: receipt.policy_sha256,
        definition_sha256: receipt.definition_sha256,
        definition: receipt.definition,
        capture: receipt.capture,
        checker: receipt.checker,
        deps: receipt.deps,
        env: receipt.env,
        timings: receipt.timings,
        logical_trust: 'empirical: a test run, no axioms or proofs involved',
      };
    if (section === 'artifacts') out[section] = artifactPage(store, receipt, page);
    if (section === 'log') out[section] = logPage(store, receipt, page);
  }
  return out;
}

/**
 * What the job was frozen with: its content-derived identity and the source, policy and checker
 * identities in it (a formal receipt's accepted policy slice, package and checker when it has them).
 * Read from the frozen job, so a run still queued or running has them too.
 */
function identitiesOf(store: Store, run: RunRow, receipt: Receipt | undefined) {
  const frozen = store.lifecycle.getJob(run.job);
  let job: Partial<Job> | undefined;
  try {
    job = frozen ? (JSON.parse(frozen.job) as Job) : undefined;
  } catch {
    job = undefined;
  }
  type Identities = { policy_sha256?: string; package_sha256?: string; checker_sha256?: string };
  const subject = receipt?.subject as { formal?: Identities; model?: Identities } | undefined;
  // A formal component's receipt, or a model item's (which names no package).
  const formal = subject?.formal ?? subject?.model;
  return {
    job: run.job,
    source: job?.capture?.digest ?? receipt?.capture.digest ?? null,
    policy: formal?.policy_sha256 ?? job?.policy ?? receipt?.policy_sha256 ?? null,
    package: formal?.package_sha256 ?? null,
    checker: formal?.checker_sha256 ?? job?.checker?.sha256 ?? receipt?.checker?.sha256 ?? null,
  };
}

/** The next command for this run: wait while it runs, nothing after a PASS, else a fresh run. */
function nextAction(run: RunRow): string {
  if (run.state === 'queued' || run.state === 'running') return `vkit run wait --run ${run.id}`;
  if (run.state === 'done' && run.outcome === 'PASS') return 'nothing to do';
  const verify = `vkit verify --check ${run.label.replace(/^check:/, '')}`;
  if (run.state === 'done' && run.outcome === 'FAIL')
    return `vkit run show --run ${run.id} --section diagnostics --section log, fix, then ${verify}`;
  return verify;
}

type Sections = {
  obligations?: { total: number | null; proved: number; failed: number; unknown: number | null; items: unknown[] };
} & Record<string, unknown>;

/**
 * The sections a receipt's rule kept in its subject (`subject.sections`: a formal verifier's, a model
 * checker's), when present: they replace the generic ones, which describe tests. Any kind's rule
 * can return them; none is special-cased here.
 */
function ownSections(receipt: Receipt | undefined): Sections | undefined {
  if (!receipt) return undefined;
  const sections = (receipt.subject as { sections?: unknown } | undefined)?.sections;
  return typeof sections === 'object' && sections !== null ? (sections as Sections) : undefined;
}

function ownCounts(s: Sections) {
  const o = s.obligations!;
  return { total: o.total, passed: o.proved, failed: o.failed, blocked: 0, unknown: o.unknown };
}

function ownSection(receipt: Receipt, s: Sections, section: Section): unknown {
  const subject = receipt.subject as { formal?: unknown; model?: unknown };
  const identities = subject.formal ?? subject.model ?? null;
  switch (section) {
    case 'diagnostics':
      return { outcome: receipt.outcome, reason: receipt.reason, claim: receipt.claim, items: s.diagnostics ?? [] };
    case 'provenance':
      return {
        identities,
        policy_sha256: receipt.policy_sha256,
        capture: receipt.capture,
        scope: s.scope ?? null,
        inventory: s.inventory ?? null,
        ...((s.provenance as object | undefined) ?? {}),
        timings: receipt.timings,
      };
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
  return {
    total: receipt.obligations.length,
    passed: count('PASS'),
    failed: count('FAIL'),
    blocked: count('BLOCKED'),
    unknown: receipt.obligations.filter((x) => x.claim === 'unknown').length,
  };
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
    const { total, lines } = linesOf(
      store.cas.chunks(art.sha256),
      (page - 1) * LOG_PAGE_LINES,
      page * LOG_PAGE_LINES,
      LINE_BYTES_KEPT,
    );
    const pages = Math.max(1, Math.ceil(total / LOG_PAGE_LINES));
    // Bounded in lines and in characters: a line longer than LOG_LINE_CHARS is cut (the artifact keeps it whole).
    let cut = 0;
    const shown = lines.map((l) => (l.length > LOG_LINE_CHARS ? (cut++, `${l.slice(0, LOG_LINE_CHARS)}…`) : l));
    streams[name] = {
      page,
      pages,
      total_lines: total,
      lines: shown,
      lines_cut: cut,
      ...(art.dropped_bytes ? { dropped_bytes: art.dropped_bytes } : {}),
    };
  }
  return streams;
}

/**
 * Bytes kept of one line of a page: enough for LOG_LINE_CHARS UTF-16 units plus one (a unit takes at
 * most 3 UTF-8 bytes), so a line cut here is still seen to be longer than LOG_LINE_CHARS.
 */
const LINE_BYTES_KEPT = 3 * LOG_LINE_CHARS + 4;
/** How far from its end a failure tail is read: a log of any size costs this much. */
const TAIL_BYTES = 64 * 1024;

/**
 * Lines `from` to `to` (0-based, end excluded) of a log read in chunks, each kept up to `keep`
 * bytes, and the number of lines in the whole log (a last line without a newline counts), so a log
 * of any size is paged in one chunk of memory.
 */
function linesOf(chunks: Iterable<Buffer>, from: number, to: number, keep: number): { total: number; lines: string[] } {
  const lines: string[] = [];
  let line: Buffer[] = [];
  let kept = 0;
  let open = false; // bytes seen since the last newline
  let n = 0;
  const take = (bytes: Buffer) => {
    if (n < from || n >= to || kept >= keep) return;
    const part = bytes.subarray(0, keep - kept);
    line.push(Buffer.from(part)); // copied: the chunk is reused
    kept += part.length;
  };
  const end = () => {
    if (n >= from && n < to) {
      lines.push(stripAnsi(Buffer.concat(line).toString('utf8')));
      line = [];
      kept = 0;
    }
    open = false;
    n++;
  };
  for (const chunk of chunks) {
    let at = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, at)) {
      take(chunk.subarray(at, nl));
      end();
      at = nl + 1;
    }
    if (at < chunk.length) {
      take(chunk.subarray(at));
      open = true;
    }
  }
  if (open) end();
  return { total: n, lines };
}

/** The last `count` non-empty lines of a log, read from its last TAIL_BYTES only. */
function lastLines(store: Store, id: string, count: number): string[] {
  // One byte more than the tail: when it is there, the tail starts inside the log.
  const read = Buffer.concat(Array.from(store.cas.chunks(id, TAIL_BYTES + 1), (c) => Buffer.from(c)));
  const lines = read.toString('utf8').split('\n');
  // The first line may then be the end of a longer one: dropped when others follow.
  if (read.length > TAIL_BYTES && lines.length > 1) lines.shift();
  return lines
    .map(stripAnsi)
    .filter((l) => l.length > 0)
    .slice(-count);
}

/** One page of the receipt's artifacts, each with its state in the CAS. */
function artifactPage(store: Store, receipt: Receipt, page: number) {
  const total = receipt.artifacts.length;
  const pages = Math.max(1, Math.ceil(total / ARTIFACT_PAGE_ITEMS));
  const items = receipt.artifacts
    .slice((page - 1) * ARTIFACT_PAGE_ITEMS, page * ARTIFACT_PAGE_ITEMS)
    .map((a) => ({ ...a, state: store.cas.state(a.sha256, false) }));
  return { page, pages, total, items };
}
