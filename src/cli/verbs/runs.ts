/**
 * The run verbs: runs, run show|wait|cancel|retry. Declarations only; `table.ts` binds each to its handler.
 */
import { COMMON, defineVerb } from '../../kit/verb.js';
import { COMMON_HELP } from './build.js';

export const runs = defineVerb({
  name: 'runs',
  summary: 'list retained runs',
  readme: 'list retained runs (`--limit` 1 to 500, default 50)',
  flags: { ...COMMON, check: { type: 'string' }, limit: { type: 'string' } },
  help: `Usage: vkit runs [--check ID] [--limit N] [common flags]

Lists retained runs, newest first. --limit N: at most N runs, 1 to 500 (default 50).

${COMMON_HELP}`,
});

export const runShow = defineVerb({
  name: 'run show',
  summary: 'show one run: summary and sections (diagnostics, log, artifacts, ...)',
  readme:
    'summary (identities: job, source, policy, package, checker; state; obligation counts; the next action for that state) plus diagnostics, obligations, provenance, artifacts, log (coverage and compilation are "not applicable" to checks); `--page` pages the log (200 lines a page, lines cut at 4,000 characters and counted in `lines_cut`) and the artifact list (100 a page)',
  flags: { ...COMMON, run: { type: 'string' }, section: { type: 'string', multiple: true }, page: { type: 'string' } },
  help: `Usage: vkit run show --run ID [--section S]... [--page N] [common flags]

Shows a run's summary and the selected sections: diagnostics, obligations, provenance, coverage,
compilation, artifacts, log (or all). Sections that do not apply say "not applicable". Reads retained
results only. --page pages the log (200 lines a page; lines cut at 4,000 characters) and the
artifact list (100 a page).

${COMMON_HELP}`,
});

export const runWait = defineVerb({
  name: 'run wait',
  summary: 'wait for a run (bounded with --timeout)',
  readme:
    'wait for a run (a run left queued by a face that went away is adopted after 10 s: the waiter starts a worker for it)',
  flags: { ...COMMON, run: { type: 'string' }, timeout: { type: 'string' } },
  help: `Usage: vkit run wait --run ID [--timeout SECONDS] [common flags]

Waits until the run ends (or the timeout passes: the worker continues). Exits with the run's outcome:
0 PASS, 1 FAIL, 3 BLOCKED, interrupted or still running.

${COMMON_HELP}`,
});

export const runCancel = defineVerb({
  name: 'run cancel',
  summary: "cancel one run (its check's process group only)",
  readme: "cancel only that run (its check's process group; ends `interrupted`, reason `cancelled`)",
  flags: { ...COMMON, run: { type: 'string' } },
  help: `Usage: vkit run cancel --run ID [common flags]

Cancels one run: a queued run ends at once; a running one is stopped (its check's process group only)
and ends interrupted with reason \`cancelled\`. Other runs are never touched.

${COMMON_HELP}`,
});

export const runRetry = defineVerb({
  name: 'run retry',
  summary: 'a new run for the same frozen job',
  flags: { ...COMMON, run: { type: 'string' }, wait: { type: 'string' } },
  help: `Usage: vkit run retry --run ID [--wait SECONDS] [common flags]

Starts a new run for the same frozen job (the inputs must still hold the frozen bytes, else the new
run is BLOCKED) and waits for it, bounded by --wait.

${COMMON_HELP}`,
});
