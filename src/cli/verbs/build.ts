/**
 * The build verbs: build, gate, verify, runs, run show|wait|cancel|retry, init, store gc,
 * watch, mcp, tui. Declarations only (flags, help, summary); `table.ts` binds each to its handler.
 */
import { COMMON, defineVerb } from '../../kit/verb.js';

const COMMON_HELP = `Common flags:
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --json         machine-readable output
  --jobs N       concurrent actions (default: number of cores)
`;

export const EXITS = `Exit codes: 0 READY/PASS, 1 REJECTED/FAIL, 2 invalid request, 3 BLOCKED, 4 internal error, 5 unavailable.
`;

export const build = defineVerb({
  name: 'build',
  summary: 'run the checks whose inputs changed, keep receipts, print the gate',
  readme:
    "run what changed, reuse the rest, print the gate; exits with the gate's code. A repeated no-op is answered from the record the last one left (every path it stands on statted and unchanged, D51; `VKIT_NOOP_RECORDS=0` turns records off); one that missed because the tree or the store changed, or found no record for its command line, starts its job worker ahead, once its workspace is open (D55, D57, D58; `VKIT_STANDBY=0` turns that off)",
  flags: {
    ...COMMON,
    only: { type: 'string', multiple: true },
    force: { type: 'boolean' },
    explain: { type: 'boolean' },
    remote: { type: 'string' },
    'remote-only-read': { type: 'boolean' },
  },
  help: `Usage: vkit build [--only ID]... [--force] [--explain] [--remote URL [--remote-only-read]] [common flags]

Compiles the config into an action graph, runs only the actions whose inputs changed, retains a
receipt for each and prints the gate. Exits with the gate's code.

A no-op (nothing ran, every item on a receipt; JSON manifest of checks without outputs, at the top
of a git work tree, no remote) leaves a record in the store; the same command line (arguments,
directory, environment, terminal, date) is then answered from it, without git or the store, while
every directory, listed file, receipt, blob, tool and git or store file it stands on has the stat
it had (D51). VKIT_NOOP_RECORDS=0 turns records off; VKIT_NOOP_DEBUG=1 says why one was not used.
A build whose record missed because the work tree or the store changed, or that found no record
for its command line, starts its job worker ahead, once its workspace is open (D55, D57, D58);
VKIT_STANDBY=0 starts one only when a run is queued.

  --only ID      run only this check (and what it runs after); repeatable. The gate still covers every requirement.
  --force        rerun every selected action even when intact evidence exists
  --explain      for each action that ran, say which key fields changed since its last receipt
                 (a reused result whose inputs differ from its evidence's in line endings only is
                 noted whether or not --explain is given)
  --remote URL   a shared remote cache (Bazel's HTTP protocol; default VKIT_REMOTE): on a local miss
                 an entry is used only when signed by a key in vkit.lock.json's trusted_signers, made
                 for this very action key, every blob hashing to its digest and the receipt passing
                 the local checks (anything else runs here, with a warning); results committed here
                 are signed with VKIT_SIGNING_KEY and uploaded (without a key nothing is uploaded)
  --remote-only-read  read the remote, never upload (also VKIT_REMOTE_READ_ONLY=1)

${COMMON_HELP}
${EXITS}`,
});

export const gate = defineVerb({
  name: 'gate',
  summary: 'evaluate the gate from retained evidence; runs nothing',
  readme:
    "evaluate the gate from retained evidence; runs nothing. `--deep` re-hashes every blob, input and tool (no file-state cache); `--explain` also lists passing items that carry notes (line endings). SARIF and JUnit carry the gate's own verdict as entry `gate` whenever it is not READY and the items shown would not say so",
  flags: {
    ...COMMON,
    deep: { type: 'boolean' },
    format: { type: 'string' },
    only: { type: 'string', multiple: true },
    now: { type: 'string' },
    protected: { type: 'boolean' },
    target: { type: 'string' },
    candidate: { type: 'string' },
    'working-tree': { type: 'boolean' },
    reuse: { type: 'boolean' },
    remote: { type: 'string' },
    'remote-only-read': { type: 'boolean' },
    explain: { type: 'boolean' },
  },
  help: `Usage: vkit gate [--deep] [--explain] [--format text|json|sarif|junit] [--only ID]... [--now YYYY-MM-DD] [common flags]
       vkit gate --protected --target REV [--candidate REV | --working-tree] --store DIR [--reuse]
                 [--remote URL [--remote-only-read]] [--json]

Evaluates the gate from retained evidence without running anything.

With --protected: loads the requirements (config, its local modules, vkit.lock.json) from the exact
target commit, checks the candidate (a commit, default HEAD, or the working tree) under them afresh in
a scratch copy, in the private store DIR (never the repository's own store, nothing inside the
repository), imports no local approvals or branch receipts, and re-hashes everything. The report names
the target and candidate commits. --reuse reuses intact passing evidence of earlier protected runs
under the same target authority only. --remote URL (implies --reuse) also reads such evidence from a
shared cache: only entries published by protected runs under the same target authority, signed by a
key the target commit's vkit.lock.json trusts; with VKIT_SIGNING_KEY (and not --remote-only-read)
this run's results are published the same way. VKIT_REMOTE and the config's remote are not used.

  --deep         re-hash every blob, input and tool the gate relies on instead of trusting unchanged stat fingerprints
  --format F     text (default), json (same as --json), sarif or junit
  --only ID      show only these items; the status still covers every requirement
  --now DATE     judge date-dependent facts (acceptance decisions' expiry) as of this UTC date
  --explain      also show passing items that carry notes (inputs that differ from their evidence's
                 in line endings only; JSON has them as items[].notes)

${COMMON_HELP}
${EXITS}`,
});

export const verify = defineVerb({
  name: 'verify',
  summary: 'run one check afresh (or reuse intact passing evidence with --reuse); --request FILE for a formal request',
  readme:
    'a fresh run of one check, or with `--reuse` intact identical passing evidence; with `--wait SECONDS` a bounded wait: when it times out, prints the run id and state `running` (the worker continues) and exits 3',
  flags: {
    ...COMMON,
    check: { type: 'string' },
    request: { type: 'string' },
    reuse: { type: 'boolean' },
    explain: { type: 'boolean' },
    wait: { type: 'string' },
  },
  help: `Usage: vkit verify (--check ID | --request FILE) [--reuse] [--explain] [--wait SECONDS] [common flags]

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

${COMMON_HELP}
${EXITS}`,
});

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

export const init = defineVerb({
  name: 'init',
  summary: 'write a starter vkit.config.ts',
  readme: 'write a starter `vkit.config.ts`',
  flags: COMMON,
  help: `Usage: vkit init [--root DIR] [--json]

Writes a starter vkit.config.ts with one check suited to the project found (npm, cargo, or a
placeholder that fails until you replace it). Refuses when a config exists. --json prints
{ "created": FILE }. --store and --jobs are accepted, for scripts that pass them to every verb,
and ignored.
`,
});

export const storeGc = defineVerb({
  name: 'store gc',
  summary: 'delete runs and blobs nothing kept reaches',
  readme:
    'delete runs and blobs that nothing kept reaches (queued and running runs are always kept; safe while builds run)',
  flags: { ...COMMON, 'keep-runs': { type: 'string' } },
  help: `Usage: vkit store gc --keep-runs N [common flags]

Keeps the N newest runs plus every cache entry's receipt, deletes the runs, attempts and blobs
nothing kept reaches.

${COMMON_HELP}`,
});

export const watch = defineVerb({
  name: 'watch',
  summary: 'build, then rebuild on every change to inputs or config; one settle line per cycle',
  readme:
    'build, then rebuild on every change to a declared input, the config or its imports; one settle line per cycle (`cycle N settled: READY in X ms`); the Ink TUI on a terminal',
  flags: { ...COMMON, 'no-tui': { type: 'boolean', default: false } },
  help: `Usage: vkit watch [--no-tui] [--json] [--root DIR] [--store DIR] [--jobs N]

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
});

/** No `--json`: stdout belongs to the protocol, so not even a usage error is printed there. */
export const mcp = defineVerb({
  name: 'mcp',
  summary: 'serve the same verbs as MCP tools over stdio (for agents)',
  readme: 'MCP server over stdio for agents (see below)',
  flags: { root: { type: 'string' }, store: { type: 'string' }, 'allow-write': { type: 'string', multiple: true } },
  help: `Usage: vkit mcp [--root DIR] [--store DIR] [--allow-write DIR ...]

Serves MCP (Model Context Protocol) over stdio: stdout carries the protocol only, logs go to stderr.
Tools: build, verify, run_wait, run_show, run_cancel, run_retry, runs_list, gate, model_compare,
acceptance_check_decision, acceptance_render, evidence_export, evidence_replay, feedback_add, feedback_list. build and verify return a run or build id at once unless wait_s (0 to 50)
is given; poll with run_wait. Errors are tool errors carrying the CLI's codes and exit codes; a call
that cannot start (unknown tool, arguments outside its schema) is JSON-RPC error -32602 naming the
argument, and a line that is not JSON-RPC gets -32700 or -32600. Each call opens the store and closes
it again, so several servers and CLIs may share one store. Exits when the client closes stdin.

A path an agent names for writing (evidence_export's out) must resolve, symlinks followed, inside the
root or an --allow-write directory, never inside a .git directory or the store; an existing file is
replaced only when the call passes overwrite: true.

  --root DIR         project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR        evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --allow-write DIR  a directory besides the root where agents' paths may be written (repeatable)
`,
});

export const tui = defineVerb({
  name: 'tui',
  summary: 'the gate overview once, from retained evidence (drawn with Ink on a terminal)',
  readme: 'the gate overview once, from retained evidence',
  flags: {
    root: { type: 'string' },
    store: { type: 'string' },
    json: { type: 'boolean', default: false },
    deep: { type: 'boolean' },
  },
  help: `Usage: vkit tui [--deep] [--root DIR] [--store DIR] [--json]

Shows the gate overview once from retained evidence, without running anything: the gate status,
then every item (failing first) with its kind, whether it is required and its last run. On a
terminal it is drawn with Ink; otherwise (a pipe, a file) it prints one plain line per item.
For the live view that reruns on changes, use \`vkit watch\`.

  --deep         re-hash every blob, input and tool the gate relies on
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --json         print the gate as JSON (vkit.gate/1) instead

Exit codes: 0 READY, 1 REJECTED, 2 invalid request, 3 BLOCKED, 4 internal error.
`,
});
