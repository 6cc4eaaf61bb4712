/**
 * The build verbs: build, gate, verify, and the help text every workspace verb shares. Declarations
 * only (flags, help, summary); `table.ts` binds each to its handler.
 */
import { COMMON, defineVerb } from '../../kit/verb.js';

export const COMMON_HELP = `Common flags:
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: the
                 nearest directory up from here that holds one, within the git work tree)
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
    "run what changed, reuse the rest, print the gate; exits with the gate's code. A repeated no-op is answered from the record the last one left (every path it stands on statted and unchanged; `VKIT_NOOP_RECORDS=0` turns records off, `VKIT_NOOP_DEBUG=1` says why one was not used); one that missed because the tree or the store changed, or found no record for its command line, starts its job worker ahead, once its workspace is open (`VKIT_STANDBY=0` turns that off)",
  flags: {
    ...COMMON,
    only: { type: 'string', multiple: true },
    force: { type: 'boolean' },
    explain: { type: 'boolean' },
    remote: { type: 'string' },
    'remote-only-read': { type: 'boolean' },
    executor: { type: 'string' },
  },
  help: `Usage: vkit build [--only ID]... [--force] [--explain] [--remote URL [--remote-only-read]] [--executor local|nats://HOST:PORT] [common flags]

Compiles the config into an action graph, runs only the actions whose inputs changed, retains a
receipt for each and prints the gate. Exits with the gate's code.

A no-op (nothing ran, every item on a receipt; JSON manifest of checks without outputs, at the top
of a git work tree, no remote) leaves a record in the store; the same command line (arguments,
directory, environment, terminal, date) is then answered from it, without git or the store, while
every directory, listed file, receipt, blob, tool and git or store file it stands on has the stat
it had. VKIT_NOOP_RECORDS=0 turns records off; VKIT_NOOP_DEBUG=1 says why one was not used.
A build whose record missed because the work tree or the store changed, or that found no record
for its command line, starts its job worker ahead, once its workspace is open;
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
  --executor local|nats://HOST:PORT  who runs the jobs, over the config's \`executor\`: this
                 machine's workers, or the fleet's \`vkit worker\`s through NATS JetStream
                 (docs/fleet.md; needs the remote cache)

${COMMON_HELP}
${EXITS}`,
});

export const gate = defineVerb({
  name: 'gate',
  summary: 'evaluate the gate from retained evidence; runs nothing',
  readme:
    "evaluate the gate from retained evidence; runs nothing. `--deep` re-hashes every blob, input and tool (no file-state cache); `--explain` also lists passing items that carry notes (line endings). SARIF (2.1.0: every result located on its entry in the config, a formal item first on the lines its verifier rejected) and JUnit (a failure's body is its log tail) carry the gate's own verdict as entry `gate` whenever it is not READY and the items shown would not say so; no terminal escapes in either",
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
  help: `Usage: vkit gate [--deep] [--explain] [--format text|json|sarif|junit|markdown] [--only ID]... [--now YYYY-MM-DD] [common flags]
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
  --format F     text (default), json (same as --json), sarif (code scanning: each result on
                 the line of its entry in the config), junit (a failure's body is its log tail)
                 or markdown (a CI job summary: vkit gate --format markdown >> "$GITHUB_STEP_SUMMARY")
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
