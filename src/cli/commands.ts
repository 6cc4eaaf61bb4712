/**
 * The build verbs' handlers (declared in `verbs/build.ts`, bound in `table.ts`): each takes its parsed
 * flags, calls the service and renders; no logic of their own.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { EXIT, invalid } from '../errors.js';
import { type Handler, printJson } from '../kit/verb.js';
import type * as verbs from './verbs/build.js';
import type * as runVerbs from './verbs/runs.js';
import type * as storeVerbs from './verbs/store.js';
import { gateExitCode } from '../gate/evaluate.js';
import { checkLabel } from '../graph/compile.js';
import { toJunit, toMarkdown, toSarif } from '../gate/formats.js';
import * as service from '../service/index.js';
import type { VkitEvent } from '../engine/events.js';
import type { BuildReport } from '../engine/schema.js';
import { printEvent, printGate, printSummary, printTails } from './render.js';
import { interrupts } from './interrupt.js';
import { defaultRoot } from '../service/root.js';

function openOptions(v: { root?: string; store?: string }): service.OpenOptions {
  return { root: v.root ? resolve(v.root) : defaultRoot(), store: v.store };
}

/** `--remote URL`: an http(s) URL, or exit 2 naming the flag. */
function remoteUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('ERR_USAGE', `Expected --remote to be an http(s) URL, got \`${url}\``, { path: '--remote' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw invalid('ERR_USAGE', `Expected --remote to be an http(s) URL, got \`${url}\``, { path: '--remote' });
  return url;
}

function jobsOf(v: { jobs?: string }): number {
  if (v.jobs === undefined) return availableParallelism();
  const n = Number(v.jobs);
  if (!Number.isInteger(n) || n < 1)
    throw invalid('ERR_USAGE', `Expected --jobs to be a positive integer, got \`${v.jobs}\``, { path: '--jobs' });
  return n;
}

/**
 * Ctrl-C (or SIGTERM) cancels running checks: their process groups are killed and their attempts end
 * `interrupted` with reason `cancelled`. A second signal exits at once.
 */
function cancelOnSignal(): AbortSignal {
  const controller = new AbortController();
  const source = interrupts();
  source.listen((signal) => {
    if (controller.signal.aborted) return source.exitNow(signal);
    process.stderr.write(`vkit: ${signal}: cancelling running checks (again to exit now)\n`);
    controller.abort();
  });
  return controller.signal;
}

const json = printJson;

export const build: Handler<typeof verbs.build> = async ({ values: v }) => {
  if (v['remote-only-read'] && !v.remote && !process.env.VKIT_REMOTE)
    throw invalid('ERR_USAGE', 'Expected --remote URL (or VKIT_REMOTE) with --remote-only-read', {
      path: '--remote-only-read',
    });
  const open = {
    ...openOptions(v),
    ...(v.remote !== undefined || v['remote-only-read']
      ? { remote: { ...(v.remote ? { url: remoteUrl(v.remote) } : {}), readOnly: v['remote-only-read'] ?? false } }
      : {}),
    ...(v.executor !== undefined ? { executor: v.executor } : {}),
  };
  const report = await service.build(open, {
    only: v.only,
    force: v.force,
    explain: v.explain,
    jobs: jobsOf(v),
    onEvent: v.json ? undefined : printEvent,
    signal: cancelOnSignal(),
  });
  if (v.json) json(report);
  else {
    printTails(report);
    printGate(report.gate);
    printSummary(report);
  }
  return gateExitCode(report.gate.status);
};

export const gate: Handler<typeof verbs.gate> = async ({ values: v, version }) => {
  if (v.protected)
    return (await import('./evidence.js')).protectedGateCommand(
      { ...v, remote: v.remote === undefined ? undefined : remoteUrl(v.remote) },
      jobsOf(v),
      cancelOnSignal(),
      openOptions(v),
    );
  for (const flag of ['target', 'candidate', 'working-tree', 'reuse', 'remote', 'remote-only-read'] as const)
    if (v[flag] !== undefined)
      throw invalid('ERR_USAGE', `--${flag} belongs to the protected gate: add --protected`, { path: `--${flag}` });
  const format = v.format ?? (v.json ? 'json' : 'text');
  // --now asks what the gate will say on another day (acceptance decisions expire); it never touches evidence.
  if (v.now !== undefined && (await import('../text/dates.js')).parseIsoDate(v.now) === undefined)
    throw invalid('ERR_USAGE', `Expected --now to be a real YYYY-MM-DD date, got \`${v.now}\``, { path: '--now' });
  if (!['text', 'json', 'sarif', 'junit', 'markdown'].includes(format))
    throw invalid('ERR_USAGE', `Expected --format to be text, json, sarif, junit or markdown, got \`${format}\``, {
      path: '--format',
    });
  const detail = format === 'sarif' || format === 'junit';
  const report = await service.gate(openOptions(v), { deep: v.deep, only: v.only, today: v.now, detail });
  if (format === 'json') json(report.gate);
  else if (format === 'sarif') json(toSarif(report.gate, version(), report.detail!));
  else if (format === 'junit') process.stdout.write(toJunit(report.gate, report.detail!.tails));
  else if (format === 'markdown') process.stdout.write(toMarkdown(report.gate));
  else printGate(report.gate, v.explain);
  return gateExitCode(report.gate.status);
};

function secondsOf(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw invalid('ERR_USAGE', `Expected ${flag} to be a number of seconds >= 0, got \`${value}\``, { path: flag });
  return n * 1000;
}

export const verify: Handler<typeof verbs.verify> = async ({ values: v }) => {
  if (v.request !== undefined) return verifyRequest(v as typeof v & { request: string });
  if (!v.check) throw invalid('ERR_USAGE', 'Expected --check ID or --request FILE', { path: '--check' });
  // The verified action's own line waits for the report: when the bounded wait ended first the run is
  // still going, and the line says `running` instead of the engine's provisional `blocked`.
  const label = checkLabel(v.check);
  let held: VkitEvent | undefined;
  const onEvent = (e: VkitEvent) => (e.type === 'action.finished' && e.label === label ? (held = e) : printEvent(e));
  const report = await service.verify(openOptions(v), {
    check: v.check,
    reuse: v.reuse,
    explain: v.explain,
    jobs: jobsOf(v),
    onEvent: v.json ? undefined : onEvent,
    signal: cancelOnSignal(),
    waitMs: secondsOf(v.wait, '--wait'),
  });
  const action = printVerified(report, v.json, () => {
    if (held) printEvent(held);
  });
  if (!action || action.pending) return EXIT.blocked;
  return action.outcome === 'PASS' ? EXIT.ok : action.outcome === 'FAIL' ? EXIT.fail : EXIT.blocked;
};

type VerifiedAction = BuildReport['actions'][number];

/**
 * What `verify` prints for its one action: the whole answer with --json; a line saying the run goes
 * on when the bounded wait ended first; else the action's own line (`line`) and the report's tails.
 */
function printVerified(
  report: BuildReport,
  asJson: boolean | undefined,
  line: (action: VerifiedAction | undefined) => void,
): VerifiedAction | undefined {
  const action = report.actions[0];
  if (asJson) json({ schema: 'vkit.verify/1', action: action ?? null, gate: report.gate });
  else if (action?.pending)
    process.stdout.write(
      `run ${action.run} running: the wait timed out; the worker continues (vkit run wait --run ${action.run})\n`,
    );
  else {
    line(action);
    printTails(report);
  }
  return action;
}

/** `verify --request FILE`: a formal request (schema_version 2), validated before anything opens. */
async function verifyRequest(v: {
  request: string;
  check?: string;
  reuse?: boolean;
  json?: boolean;
  root?: string;
  store?: string;
  wait?: string;
  jobs?: string;
}): Promise<number> {
  if (v.check !== undefined)
    throw invalid('ERR_USAGE', 'Expected --check or --request, not both', { path: '--request' });
  const formal = await import('../service/formal.js');
  const open = openOptions(v);
  const req = formal.readFormalRequest(resolve(open.root!, v.request), v.request);
  const report = await formal.verifyFormalRequest(open, v.reuse ? { ...req, reuse: true } : req, {
    file: v.request,
    signal: cancelOnSignal(),
    waitMs: secondsOf(v.wait, '--wait'),
    jobs: jobsOf(v),
  });
  printVerified(report, v.json, (action) => {
    if (action)
      process.stdout.write(
        `${action.label} ${action.outcome}${action.status === 'cached' ? ' (reused)' : ''}${action.reason ? `: ${action.reason}` : ''}${action.run ? `  ${action.run}` : ''}\n`,
      );
  });
  return formal.formalExit(report);
}

export const runs: Handler<typeof runVerbs.runs> = async ({ values: v }) => {
  const limit = v.limit === undefined ? 50 : Number(v.limit);
  if (!/^[0-9]+$/.test(v.limit ?? '50') || limit < 1 || limit > 500)
    throw invalid('ERR_USAGE', `Expected --limit to be an integer from 1 to 500, got \`${v.limit}\``, {
      path: '--limit',
    });
  const store = await service.openStore(openOptions(v));
  try {
    const label = v.check ? checkLabel(v.check) : undefined;
    const rows = service.listRuns(store, { label, limit });
    if (v.json) json({ schema: 'vkit.runs/1', runs: rows });
    else
      for (const r of rows)
        process.stdout.write(
          `${r.run}  ${r.state.padEnd(11)} ${(r.outcome ?? '-').padEnd(7)} ${r.label}  ${r.created_at}${r.reason ? `  ${r.reason}` : ''}\n`,
        );
  } finally {
    store.close();
  }
  return EXIT.ok;
};

export const runShow: Handler<typeof runVerbs.runShow> = async ({ values: v }) => {
  if (!v.run) throw invalid('ERR_USAGE', 'Expected --run ID', { path: '--run' });
  const asked = v.section ?? [];
  const sections = asked.includes('all') ? [...service.SECTIONS] : asked;
  for (const s of sections)
    if (!(service.SECTIONS as readonly string[]).includes(s))
      throw invalid(
        'ERR_USAGE',
        `Expected --section to be one of ${service.SECTIONS.join(', ')} or all, got \`${s}\``,
        { path: '--section' },
      );
  const page = v.page ? Number(v.page) : 1;
  if (!Number.isInteger(page) || page < 1)
    throw invalid('ERR_USAGE', `Expected --page to be a positive integer, got \`${v.page}\``, { path: '--page' });
  const store = await service.openStore(openOptions(v));
  try {
    const shown = service.showRun(store, v.run, sections as service.Section[], page);
    if (v.json) json(shown);
    else process.stdout.write(renderShown(shown));
  } finally {
    store.close();
  }
  return EXIT.ok;
};

function renderShown(shown: Record<string, unknown>): string {
  const { summary, ...sections } = shown as { summary: Record<string, unknown> };
  const lines = Object.entries(summary).map(
    ([k, val]) => `${k}: ${typeof val === 'object' ? JSON.stringify(val) : String(val)}`,
  );
  for (const [name, body] of Object.entries(sections)) {
    if (name === 'schema') continue;
    lines.push('', `== ${name} ==`);
    const log = body as Record<string, { lines?: string[]; page?: number; pages?: number }>;
    if (name === 'log')
      for (const [stream, s] of Object.entries(log))
        lines.push(`-- ${stream} (page ${s.page}/${s.pages}) --`, ...(s.lines ?? []));
    else lines.push(JSON.stringify(body, null, 2));
  }
  return `${lines.join('\n')}\n`;
}

/** Exit code of a run's summary: 0 PASS, 1 FAIL, 3 anything else (BLOCKED, interrupted, still running). */
function runExit(summary: { state: string; outcome: string | null }): number {
  if (summary.state !== 'done') return EXIT.blocked;
  return summary.outcome === 'PASS' ? EXIT.ok : summary.outcome === 'FAIL' ? EXIT.fail : EXIT.blocked;
}

function printSummary1(shown: service.RunShown & { timed_out?: boolean }): void {
  const s = shown.summary;
  process.stdout.write(
    `${s.run}  ${s.state} ${s.outcome ?? '-'}  ${s.label}${s.reason ? `  ${s.reason}` : ''}${shown.timed_out ? '  (wait timed out; the worker continues)' : ''}\nnext: ${s.next}\n`,
  );
}

/**
 * The verbs on one run (`--run ID`, required): `act` does the verb's work, then the run's summary is
 * printed, or the whole answer with --json.
 */
async function onRun<R extends service.RunShown & { timed_out?: boolean }>(
  v: { run?: string; json?: boolean },
  act: (run: string) => Promise<R>,
): Promise<R> {
  if (!v.run) throw invalid('ERR_USAGE', 'Expected --run ID', { path: '--run' });
  const shown = await act(v.run);
  if (v.json) json(shown);
  else printSummary1(shown);
  return shown;
}

export const runWait: Handler<typeof runVerbs.runWait> = async ({ values: v }) => {
  const shown = await onRun(v, (run) => service.waitRun(openOptions(v), run, secondsOf(v.timeout, '--timeout')));
  return runExit(shown.summary);
};

export const runCancel: Handler<typeof runVerbs.runCancel> = async ({ values: v }) => {
  await onRun(v, (run) => service.cancelRun(openOptions(v), run));
  return EXIT.ok;
};

export const runRetry: Handler<typeof runVerbs.runRetry> = async ({ values: v }) => {
  const shown = await onRun(v, (run) => service.retryRun(openOptions(v), run, secondsOf(v.wait, '--wait')));
  return runExit(shown.summary);
};

export const init: Handler<typeof storeVerbs.init> = async ({ values: v }) => {
  const { file, text, written } = await service.initConfig(resolve(v.root ?? process.cwd()), {
    dryRun: v['dry-run'],
  });
  if (v.json) json(written ? { created: file } : { would_create: file, text });
  else if (!written) {
    // The config alone on stdout (`vkit init --dry-run > vkit.config.ts` works); what it is on stderr.
    process.stderr.write(`--dry-run: would write ${file}; nothing written\n`);
    process.stdout.write(text);
  } else process.stdout.write(`wrote ${file}\nnext: edit its inputs, then run \`vkit build\`\n`);
  return EXIT.ok;
};

export const storeGc: Handler<typeof storeVerbs.storeGc> = async ({ values: v }) => {
  const keep = Number(v['keep-runs']);
  if (v['keep-runs'] === undefined || !Number.isInteger(keep) || keep < 0)
    throw invalid('ERR_USAGE', `Expected --keep-runs to be a non-negative integer, got \`${v['keep-runs'] ?? ''}\``, {
      path: '--keep-runs',
    });
  const store = await service.openStore(openOptions(v));
  try {
    const result = service.collectGarbage(store, keep);
    if (v.json) json(result);
    else
      process.stdout.write(
        `deleted ${result.runs_deleted} runs and ${result.blobs_deleted} blobs; kept ${result.blobs_kept} blobs\n`,
      );
  } finally {
    store.close();
  }
  return EXIT.ok;
};
