/** Help text per verb. Kept apart from the commands so `--help` imports nothing heavy. */
import { EXIT } from '../errors.js';
import { TUI_HELP } from '../tui/help.js';

const COMMON = `Common flags:
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --json         machine-readable output
  --jobs N       concurrent actions (default: number of cores)
`;

const EXITS = `Exit codes: 0 READY/PASS, 1 REJECTED/FAIL, 2 invalid request, 3 BLOCKED, 4 internal error, 5 unavailable.
`;

export const HELP: Record<string, string> = {
  tui: TUI_HELP,
  main: `vkit: a build system whose outputs are evidence.

Usage: vkit <command> [flags]

Commands:
  build        run the checks whose inputs changed, keep receipts, print the gate
  gate         evaluate the gate from retained evidence; runs nothing
  verify       run one check afresh (or reuse intact passing evidence with --reuse); --request FILE for a formal request
  runs         list retained runs
  run show     show one run: summary and sections (diagnostics, log, artifacts, ...)
  run wait     wait for a run (bounded with --timeout); run cancel, run retry
  init         write a starter vkit.config.ts
  store gc     delete runs and blobs nothing kept reaches
  model compare  compare two explicit finite models (exact categories, shortest witnesses)
  acceptance <verb>  Acceptance 0.4.0 documents (\`vkit acceptance <verb> --help\` for each):
    digest           the M11 digest of a file in a domain (acceptance binding fields)
    check            validate acceptance.toml documents: fields, records, tiers, weight (runs nothing)
    check-spec       check a specification document (fields, requirements, floors, binding)
    check-package    check a package against its specification (bindings, claims, deviations, subject, stack)
    coverage         per requirement: satisfied, partial, deviation-declared, gap or missing
    decide           write a draft decision from the computed coverage (every run not-run)
    check-decision   check a decision against its specification and package; --effect for a deploy gate
    render           a Markdown view of a record (requirements, claims, coverage, decision; stack table)
    migrate          convert 0.3 specifications (contracts) and packages to 0.4 (preview; --write applies)
    run              run claims' self_verify commands (needs --yes-run-commands)
    witness          break the subject in a scratch copy, watch a claim's check go red, record watched_fail
  evidence export  write a run's evidence as a deterministic, validated tar bundle
  evidence replay  check a bundle as hostile input, then run its check again here (recorded outcomes never count)
  policy accept  accept formal components' policy, package and checker digests into vkit.lock.json
  formal package digest [ID]  the identity of installed mathematical packages
  feedback add   record a missing verification capability (a Markdown file; never affects gates)
  feedback list  preview recorded feedback, formal requests first
  watch        build, then rebuild on every change to inputs or config; one settle line per cycle
  mcp          serve the same verbs as MCP tools over stdio (for agents)
  tui          the gate overview once, from retained evidence (drawn with Ink on a terminal)
  daemon start|stop|status  a resident build process for a root that serves build and gate faster

Run \`vkit <command> --help\` for a command's flags. \`vkit --version\` prints the version.

${EXITS}`,
  build: `Usage: vkit build [--only ID]... [--force] [--explain] [common flags]

Compiles the config into an action graph, runs only the actions whose inputs changed, retains a
receipt for each and prints the gate. Exits with the gate's code.

  --only ID      run only this check (and what it runs after); repeatable. The gate still covers every requirement.
  --force        rerun every selected action even when intact evidence exists
  --explain      for each action that ran, say which key fields changed since its last receipt
                 (a reused result whose inputs differ from its evidence's in line endings only is
                 noted whether or not --explain is given)

${COMMON}
${EXITS}`,
  gate: `Usage: vkit gate [--deep] [--explain] [--format text|json|sarif|junit] [--only ID]... [--now YYYY-MM-DD] [common flags]
       vkit gate --protected --target REV [--candidate REV | --working-tree] --store DIR [--reuse] [--json]

Evaluates the gate from retained evidence without running anything.

With --protected: loads the requirements (config, its local modules, vkit.lock.json) from the exact
target commit, checks the candidate (a commit, default HEAD, or the working tree) under them afresh in
a scratch copy, in the private store DIR (never the repository's own store, nothing inside the
repository), imports no local approvals or branch receipts, and re-hashes everything. The report names
the target and candidate commits. --reuse reuses intact passing evidence of earlier protected runs
under the same target authority only.

  --deep         re-hash every blob, input and tool the gate relies on instead of trusting unchanged stat fingerprints
  --format F     text (default), json (same as --json), sarif or junit
  --only ID      show only these items; the status still covers every requirement
  --now DATE     judge date-dependent facts (acceptance decisions' expiry) as of this UTC date
  --explain      also show passing items that carry notes (inputs that differ from their evidence's
                 in line endings only; JSON has them as items[].notes)

${COMMON}
${EXITS}`,
  verify: `Usage: vkit verify (--check ID | --request FILE) [--reuse] [--explain] [--wait SECONDS] [common flags]

Runs one check afresh (a new run), its \`after\` dependencies reused when intact. With --reuse, intact
identical passing evidence is returned unchanged instead (tool identity is rechecked). Exits with the
check's outcome. --wait bounds the wait: when it times out the run id and state \`running\` are printed,
the worker continues, and the exit code is 3.

--check formal:ID runs a formal component on the working tree. --request FILE takes a formal request
(schema_version 2, schema/vkit.formal-request-2.schema.json): claim.kind \`package\`, claim.component an
accepted component, claim.policy_sha256 and claim.package_sha256 equal to vkit.lock.json's, and a source
{kind: working-tree} (provisional) or {kind: git-commit, commit} (the commit's bytes; dirty edits do not
count). Replacement formulas, checker commands, smaller obligation sets, legacy implements goals and finite
claims are refused (exit 2, naming the JSON path).

${COMMON}
${EXITS}`,
  runs: `Usage: vkit runs [--check ID] [--limit N] [common flags]

Lists retained runs, newest first. --limit N: at most N runs, 1 to 500 (default 50).

${COMMON}`,
  'run show': `Usage: vkit run show --run ID [--section S]... [--page N] [common flags]

Shows a run's summary and the selected sections: diagnostics, obligations, provenance, coverage,
compilation, artifacts, log (or all). Sections that do not apply say "not applicable". Reads retained
results only. --page pages the log (200 lines a page; lines cut at 4,000 characters) and the
artifact list (100 a page).

${COMMON}`,
  'run wait': `Usage: vkit run wait --run ID [--timeout SECONDS] [common flags]

Waits until the run ends (or the timeout passes: the worker continues). Exits with the run's outcome:
0 PASS, 1 FAIL, 3 BLOCKED, interrupted or still running.

${COMMON}`,
  'run cancel': `Usage: vkit run cancel --run ID [common flags]

Cancels one run: a queued run ends at once; a running one is stopped (its check's process group only)
and ends interrupted with reason \`cancelled\`. Other runs are never touched.

${COMMON}`,
  'run retry': `Usage: vkit run retry --run ID [--wait SECONDS] [common flags]

Starts a new run for the same frozen job (the inputs must still hold the frozen bytes, else the new
run is BLOCKED) and waits for it, bounded by --wait.

${COMMON}`,
  init: `Usage: vkit init [--root DIR]

Writes a starter vkit.config.ts with one check suited to the project found (npm, cargo, or a
placeholder that fails until you replace it). Refuses when a config exists.
`,
  'model compare': `Usage: vkit model compare --request FILE [--json]

Compares the two finite models of a request (schema_version 1: before, after, optional max_contexts)
over the complete declared space: initial states, reachable states, assumption contexts, enabled
contexts, transitions and observations, each with its count and a shortest deterministic witness.
Probes name contexts to inspect; they are not executed transitions. Read-only: writes no policy.

Exit codes: 0 equivalent, 1 different, 2 invalid request, 3 incomparable or unknown (a budget ran out).
`,
  watch: `Usage: vkit watch [--no-tui] [--json] [--root DIR] [--store DIR] [--jobs N]

Builds, then rebuilds whenever a declared input, the config or one of its imports changes. Changes
are debounced and batched; edits made while actions run start the next cycle. Only actions whose keys
changed rerun. While the config is invalid the gate is BLOCKED ("config invalid") until it is fixed.
Every cycle ends with one line: \`cycle N settled: READY|REJECTED|BLOCKED in X ms\`.

  --no-tui       one line per event (the default when stdout is not a terminal)
  --json         one vkit.event/1 object per line
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --jobs N       concurrent actions (default: number of cores)

Ctrl-C cancels running checks (their attempts end interrupted, reason cancelled) and exits 130;
a second Ctrl-C exits at once.
`,
  mcp: `Usage: vkit mcp [--root DIR] [--store DIR]

Serves MCP (Model Context Protocol) over stdio: stdout carries the protocol only, logs go to stderr.
Tools: build, verify, run_wait, run_show, run_cancel, run_retry, runs_list, gate, model_compare,
acceptance_check_decision, acceptance_render, evidence_export, evidence_replay, feedback_add, feedback_list. build and verify return a run or build id at once unless wait_s (0 to 50)
is given; poll with run_wait. Errors are tool errors carrying the CLI's codes and exit codes. Each call
opens the store and closes it again, so several servers and CLIs may share one store. Exits when the
client closes stdin.

  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
`,
  'store gc': `Usage: vkit store gc --keep-runs N [common flags]

Keeps the N newest runs plus every cache entry's receipt, deletes the runs, attempts and blobs
nothing kept reaches.

${COMMON}`,
};

export function usage(message: string): number {
  process.stderr.write(`vkit: ${message}\nRun \`vkit --help\` for the commands.\n`);
  return EXIT.invalid;
}
