/**
 * The one API every face calls. It wires workspace, engine, store and gate together and owns no
 * logic of its own beyond that: faces parse and render, everything else happens below.
 */
import { didYouMean } from '../text/suggest.js';
import { runEngine, type BuildOptions } from '../engine/build.js';
import type { BuildReport } from '../engine/schema.js';
import { invalid } from '../errors.js';
import { namedBy, showOnly } from '../gate/evaluate.js';
import type { GateDetail } from '../gate/formats.js';
import { checkLabel } from '../graph/compile.js';
import { kinds, loadKinds, loadRules, ruleKindsOf } from '../config/kind.js';
import { JobService } from '../jobs/service.js';
import type { Store } from '../store/store.js';
import { openStore, openWorkspace, type OpenOptions, type Workspace } from './workspace.js';
import { attachTails, showRun } from './runs.js';
import { gateDetail } from './gate-detail.js';
import { callOf, noopMemo, replay } from './speed.js';
import type { VkitEvent } from '../engine/events.js';

export { openWorkspace, openStore, type OpenOptions, type Workspace } from './workspace.js';
export { listRuns, showRun, SECTIONS, type RunShown, type Section } from './runs.js';
export { collectGarbage } from './gc.js';
export { initConfig } from './init.js';
export { reportData, reportStoreDir } from './report.js';
export {
  addFeedback,
  listFeedback,
  FEEDBACK_KINDS,
  FEEDBACK_MAX_LIMIT,
} from './feedback.js';
import { defaultRoot } from './root.js';

export type BuildRequest = Omit<BuildOptions, 'mode'>;

async function withWorkspace<T>(open: OpenOptions, fn: (ws: Workspace) => Promise<T>): Promise<T> {
  const ws = await openWorkspace(open);
  try {
    return await fn(ws);
  } finally {
    ws.close();
  }
}

/** A did-you-mean among the graph's labels, spelt as the user spelt theirs (`lint` or `check:lint`). */
function nearLabel(word: string, labels: readonly string[]): string {
  return didYouMean(word, word.includes(':') ? labels : labels.map((l) => l.slice(l.indexOf(':') + 1)));
}

function checkOnly(ws: Workspace, only: string[] | undefined): void {
  for (const o of only ?? []) {
    const known = ws.graph.order.some((l) => namedBy(l, o));
    if (!known)
      throw invalid(
        'ERR_USAGE',
        `Expected --only to name a declared check or label, got \`${o}\`${nearLabel(o, ws.graph.order)}`,
        { path: '--only' },
      );
  }
}

/** `vkit build`: run what changed, reuse the rest, fold the gate over every requirement. */
export async function build(open: OpenOptions, req: BuildRequest = {}): Promise<BuildReport> {
  const t0 = performance.now();
  // The engine's date is fixed here: it is part of the call a memo answers (service/speed.ts).
  const today = req.today ?? new Date().toISOString().slice(0, 10);
  const call = callOf('build', open, { ...req, today }, today);
  const memo = call && noopMemo();
  const recalled = call && memo?.recall(call);
  if (recalled) return replay(recalled, req.onEvent, t0);
  const events: VkitEvent[] = [];
  const onEvent = call && req.onEvent ? (e: VkitEvent) => (events.push(e), req.onEvent!(e)) : req.onEvent;
  return withWorkspace(open, async (ws) => {
    checkOnly(ws, req.only);
    const reliance = call && memo?.reliance(call);
    const report = await runEngine(ws, { ...req, today, onEvent, reliance, mode: 'build' });
    attachTails(ws.store, report.actions);
    const shown = { ...report, gate: showOnly(report.gate, req.only) };
    if (call && reliance) memo?.offer(call, ws, { report: shown, events });
    return shown;
  });
}

/** `vkit gate`: the same walk with nothing allowed to run. */
export async function gate(
  open: OpenOptions,
  req: { deep?: boolean; only?: string[]; today?: string; detail?: boolean } = {},
): Promise<BuildReport & { detail?: GateDetail }> {
  const t0 = performance.now();
  const today = req.today ?? new Date().toISOString().slice(0, 10);
  // `--deep` re-hashes everything by definition, and a CI report's detail is read from the store:
  // neither is answered from a memo.
  const call = req.deep || req.detail ? undefined : callOf('gate', open, { ...req, today }, today);
  const memo = call && noopMemo();
  const recalled = call && memo?.recall(call);
  if (recalled) return replay(recalled, undefined, t0);
  return withWorkspace(open, async (ws) => {
    checkOnly(ws, req.only);
    const reliance = call && memo?.reliance(call);
    const report = await runEngine(ws, { mode: 'gate', deep: req.deep, today, reliance });
    const shown = { ...report, gate: showOnly(report.gate, req.only) };
    if (call && reliance) memo?.offer(call, ws, { report: shown, events: [] });
    return req.detail ? { ...shown, detail: gateDetail(ws, shown.gate) } : shown;
  });
}

/** `vkit verify --check ID`: a fresh run of one check (its dependencies reused), or with `reuse` intact identical passing evidence. */
export async function verify(
  open: OpenOptions,
  req: {
    check: string;
    reuse?: boolean;
    explain?: boolean;
    jobs?: number;
    onEvent?: BuildOptions['onEvent'];
    signal?: AbortSignal;
    waitMs?: number;
  },
): Promise<BuildReport> {
  return withWorkspace(open, async (ws) => {
    const label = checkLabel(req.check);
    if (!ws.graph.graph.hasNode(label))
      throw invalid(
        'ERR_USAGE',
        `Expected --check to name a declared check, got \`${req.check}\`${nearLabel(req.check, ws.graph.order)}`,
        {
          path: '--check',
        },
      );
    let report = await runEngine(ws, {
      mode: 'build',
      only: [label],
      fresh: [label],
      reusePassing: req.reuse,
      explain: req.explain,
      jobs: req.jobs,
      onEvent: req.onEvent,
      signal: req.signal,
      waitMs: req.waitMs,
    });
    // Formal reuse also needs the installed package digest and the accepted tool identity, rechecked now.
    if (req.reuse && label.startsWith('formal:'))
      report = await (await import('./formal.js')).applyFormalReuseCheck(ws, report, label);
    attachTails(ws.store, report.actions);
    return {
      ...report,
      actions: report.actions.filter((a) => a.label === label),
      gate: showOnly(report.gate, [label]),
    };
  });
}

/** Run control for any run in the store, from any face: wait, cancel, retry. */
async function withJobs<T>(open: OpenOptions, fn: (jobs: JobService, store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(open);
  const jobs = new JobService({
    root: open.root ?? defaultRoot(),
    store,
    rules: await loadRules(await loadKinds(), ruleKindsOf(kinds())),
    env: open.env,
  });
  try {
    return await fn(jobs, store);
  } finally {
    jobs.close();
    store.close();
  }
}

function knownRun(store: Store, run: string): void {
  if (!store.lifecycle.getRun(run))
    throw invalid('ERR_USAGE', `No run \`${run}\` in this store`, { path: 'run' }, 'List runs with `vkit runs`.');
}

/** Waits for a run (bounded); a wait that times out says so while the worker continues. */
export async function waitRun(open: OpenOptions, run: string, timeoutMs = Infinity) {
  return withJobs(open, async (jobs, store) => {
    knownRun(store, run);
    const { timedOut } = await jobs.wait(run, timeoutMs);
    return { ...showRun(store, run, []), timed_out: timedOut };
  });
}

/** Cancels one run: only its own attempt and process group. */
export async function cancelRun(open: OpenOptions, run: string) {
  return withJobs(open, async (jobs, store) => {
    knownRun(store, run);
    await jobs.cancel(run);
    return showRun(store, run, []);
  });
}

/** A new run for the same frozen job, waited for up to `timeoutMs`. */
export async function retryRun(open: OpenOptions, run: string, timeoutMs = Infinity) {
  return withJobs(open, async (jobs, store) => {
    knownRun(store, run);
    const { run: next } = jobs.retry(run);
    const { timedOut } = await jobs.wait(next, timeoutMs);
    return { ...showRun(store, next, []), retried_from: run, timed_out: timedOut };
  });
}

/** A run (or else the label's latest run) as details for a face: diagnostics and the last lines of its output. */
export async function latestRunDetails(
  open: OpenOptions,
  label: string,
  runId: string | null = null,
  lines = 20,
): Promise<{ diagnostics: string[]; log: string[] } | null> {
  const store = await openStore(open);
  try {
    const run = (runId ? store.lifecycle.getRun(runId) : undefined) ?? store.lifecycle.listRuns({ label, limit: 1 })[0];
    if (!run) return null;
    const shown = showRun(store, run.id, ['diagnostics', 'log']);
    const d = shown.diagnostics as
      | { outcome?: string; reason?: string | null; exit_code?: number | null; expected?: number | null }
      | undefined;
    const diagnostics =
      d && 'outcome' in d
        ? [
            `${run.id}: ${d.outcome}${d.reason ? ` (${d.reason})` : ''}`,
            `exit code ${d.exit_code ?? '-'}, expected ${d.expected ?? '-'}`,
          ]
        : [`${run.id}: ${run.state}`];
    const log = Object.values((shown.log ?? {}) as Record<string, { lines?: string[] }>).flatMap(
      (stream) => stream.lines ?? [],
    );
    return { diagnostics, log: log.slice(-lines) };
  } finally {
    store.close();
  }
}
