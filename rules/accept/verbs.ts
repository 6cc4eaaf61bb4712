/**
 * `vkit acceptance <verb>`: Acceptance 0.4.0 documents. Every verb takes --root (paths in documents
 * and on the command line are relative to it), --json, and its documents as positionals.
 * Declarations only; the kind (`index.ts`) binds each to its handler in `cli.ts`, loaded when the verb runs.
 */
import { defineVerb, type Flags } from '../../src/kit/verb.js';

const BASE = { root: { type: 'string' }, json: { type: 'boolean', default: false } } as const satisfies Flags;

/** The stack flags: acceptor stores and where a commit's bytes are. */
const STACK = {
  store: { type: 'string', multiple: true },
  tree: { type: 'string', multiple: true },
} as const satisfies Flags;

export const digest = defineVerb({
  name: 'acceptance digest',
  heading: 'Acceptance 0.4.0 documents (`vkit acceptance <verb> --help` for each):',
  summary: 'the M11 digest of a file in a domain (acceptance binding fields)',
  readme: 'the M11 digest (`D:sha-512:<hex>`) of a file in a domain, for acceptance binding fields',
  flags: { ...BASE, domain: { type: 'string' } },
  positionals: true,
  help: `Usage: vkit acceptance digest --domain D FILE [--root DIR] [--json]

Prints the M11 digest of FILE: SHA-512 over the ASCII bytes \`D:\` followed by the file's raw bytes,
written \`D:sha-512:<128 hex>\`. Domains: specification, manifest, decision, record, subject, artifact,
inventory, normative-reference. FILE is relative to --root (default: cwd).

With --domain subject, FILE may be a directory: its subject digest as \`[subject] digest\` records it
(one line \`<path> NUL <sha-512 hex>\` per file, sorted bytewise, hashed in domain subject; \`target/\`
and \`.git/\` left out; inside git, the tracked files and the untracked ones git does not ignore).
`,
});

export const check = defineVerb({
  name: 'acceptance check',
  summary: 'validate acceptance.toml documents: fields, records, tiers, weight (runs nothing)',
  flags: {
    ...BASE,
    strict: { type: 'boolean', default: false },
    'strict-weight': { type: 'boolean', default: false },
  },
  positionals: true,
  help: `Usage: vkit acceptance check FILE... [--root DIR] [--strict] [--strict-weight] [--json]

Validates acceptance.toml documents (format acceptance/0.4): tables and fields, claim statuses and
grades, evidence records (record_hash recomputed in domain record; inputs recomputed in domain
subject, build_inputs in domain artifact), tiers against family ceilings, and weight: a claim asking
for weight gets it only with a watched-fail witness and the rest of the weight rules. It runs no
command. FILEs and every path in a document are relative to --root (default: cwd); records, [spec]
path and cited packages are relative to the document's directory, inputs to [subject] root; none
may leave the root.

One summary line per file, then its findings:
  <VERDICT> <file> (N errors, M warnings) [weighted: W, unweighted: U]
Verdicts: PASS, PASS-PROSPECTIVE (prospective subject or no evidenced claim), INDETERMINATE (an
unresolvable reference to another document, or every claim not-applicable), FAIL. A PASS says the
document is well formed and its weights honestly granted, not that anything is accepted.

  --strict         a missing record or input file is an error (default: a warning)
  --strict-weight  every WEIGHT REFUSED is an error (default: a warning; the claim counts unweighted)

Exit: 0 PASS/PASS-PROSPECTIVE, 1 FAIL, 3 INDETERMINATE (the worst file decides), 2 when a file
cannot be read or parsed, is an acceptance 0.3 document (convert it with vkit acceptance migrate),
or on usage errors.
`,
});

export const checkSpec = defineVerb({
  name: 'acceptance check-spec',
  summary: 'check a specification document (fields, requirements, floors, binding)',
  flags: BASE,
  positionals: true,
  help: `Usage: vkit acceptance check-spec S [--root DIR] [--json]

Checks a specification (acceptance-protocol/0.4): [document] (kind specification, id, version,
issued_at, issued_by, status), [parties] consumer and producer {name, role}, [acceptance] (rule,
authority = a party name, consumer_verification, profiles_required, stale_after, assurance_class)
and every [[requirement]] with its floor ([requirement.evidence]), demands (cross-cutting) or
[requirement.chain]. A producer-issued specification binds only once ratified ([ratification] by, at).

Exit: 0 valid (binding or not: a NOTE says when it does not bind), 1 invalid, 2 unreadable or a 0.3
document, 3 indeterminate (a floor or assurance class this vkit cannot evaluate).
`,
});

/** check-package and coverage: `P --spec S` with the stack flags. */
const PACKAGE = { ...BASE, spec: { type: 'string' }, ...STACK } as const satisfies Flags;

export const checkPackage = defineVerb({
  name: 'acceptance check-package',
  summary: 'check a package against its specification (bindings, claims, deviations, subject, stack)',
  flags: PACKAGE,
  positionals: true,
  help: `Usage: vkit acceptance check-package P --spec S [--store NAME=DIR ...] [--tree COMMIT=DIR ...] [--root DIR] [--json]

Checks that package P is a valid answer to specification S: the format validator passes; S is valid
and binding; [specification] id, hash (domain specification over S's bytes) and requirements_total
match; every claim's clause resolves; every item requirement has a claim; every mandatory requirement
coverage does not find satisfied has a [[deviation]] {requirement, kind, reason}; the subject has one
certified identity and the presented bytes are its bytes; required profiles are present; every chain
requirement's stack check passes (--store maps acceptor names to stores, --tree says where a commit's
bytes are). Prints the findings, the coverage (the one computation every verb shows: acceptable
only over a valid package) and a verdict line.

Exit: 0 valid (whatever the coverage), 1 invalid, 2 unreadable or usage, 3 indeterminate.
`,
});

export const coverage = defineVerb({
  name: 'acceptance coverage',
  summary: 'per requirement: satisfied, partial, deviation-declared, gap or missing',
  flags: PACKAGE,
  positionals: true,
  help: `Usage: vkit acceptance coverage P --spec S [--store NAME=DIR ...] [--tree COMMIT=DIR ...] [--root DIR] [--json]

Per requirement of S: satisfied | partial | deviation-declared | gap | missing | indeterminate, with
the claims that meet the floor as basis and the first failed reason of every other answering claim.
A floor with keys this vkit cannot evaluate (or an [acceptance] assurance_class) is never
satisfied: what would be is indeterminate, with \`(floor): not evaluated: <keys>\`. A claim meets a
floor when, in order: status evidenced; weight granted if required; tier reaches min_tier; a passing
record's kind is in methods; a control or watched-fail witness if control_required; freshness (every
relied-on record captured at the subject commit) if delivered-revision; independence (each record's
author against the parties). Ends with \`summary: mandatory a/b, optional c/d, acceptable=...\`
(\`a/b (N indeterminate)\` when some are), then why it is not acceptable when the counts do not say it.

Exit: 0 only when every mandatory requirement is satisfied and the package check is valid, else 1;
2 unreadable or usage.
`,
});

export const decide = defineVerb({
  name: 'acceptance decide',
  summary: 'write a draft decision from the computed coverage (every run not-run)',
  flags: {
    ...BASE,
    spec: { type: 'string' },
    issuer: { type: 'string' },
    role: { type: 'string' },
    out: { type: 'string' },
    id: { type: 'string' },
    force: { type: 'boolean', default: false },
    ...STACK,
  },
  positionals: true,
  help: `Usage: vkit acceptance decide P --spec S --issuer NAME --out D [--role ROLE] [--id ID] [--force]
                              [--store NAME=DIR ...] [--tree COMMIT=DIR ...] [--root DIR] [--json]

Writes a draft decision D from the computed coverage of the package P against the specification
S: binds filled with the current hashes and the package's subject, verification mode = the
specification's consumer_verification, one [[verification.run]] per basis claim with result
"not-run", one disposition per requirement (satisfied when coverage, or for a chain requirement
the stack check, says so; unsatisfied otherwise, with the coverage reasons as comments), the
verdict from the verdict table, and [validity] stale_after = issued_at + the specification's
stale_after when it sets one. Re-run the commands, record the runs, and revise before issuing;
under re-execute-all check-decision refuses satisfied requirements until their runs pass.

NAME must be the specification's authority; ROLE defaults to that party's role. ID defaults to
AD-<date>-<8 hex of the package hash>. An existing D is never overwritten unless --force.
Exit: 0 draft written, 1 the package is invalid or its subject dirty (nothing written),
3 the package check is indeterminate, 2 usage errors (also an existing D without --force).
`,
});

export const checkDecision = defineVerb({
  name: 'acceptance check-decision',
  summary: 'check a decision against its specification and package; --effect for a deploy gate',
  flags: {
    ...BASE,
    spec: { type: 'string' },
    package: { type: 'string' },
    effect: { type: 'boolean', default: false },
    now: { type: 'string' },
    'allow-conditions': { type: 'boolean', default: false },
    ...STACK,
  },
  positionals: true,
  help: `Usage: vkit acceptance check-decision D --spec S --package P [--effect [--now YYYY-MM-DD] [--allow-conditions]]
                                     [--store NAME=DIR ...] [--tree COMMIT=DIR ...] [--root DIR] [--json]

Checks the decision D: re-validates the specification S and the package P (including the subject
and, for chain requirements, the stack of accepted libraries), recomputes the bound hashes
([binds] specification in domain specification, package in domain manifest, subject commit or
digest), then the decision itself: issuer = the specification's authority (a self-acceptance by
the producer is valid, with a NOTE, and satisfies no requirement demanding more independence),
no dirty subject, one disposition per requirement coherent with the computed coverage and the
verification runs, conditions, and the verdict the verdict table gives from the mandatory
dispositions. A bound hash that no longer matches makes the decision stale:
  ERROR D: stale: renewed decision required: the package P changed since the decision (...)

--effect asks whether a publish/deploy gate may act on D at --now (default: today, UTC): the
decision is valid and not provisional; [validity] stale_after is present, no later than issued_at
+ the specification's stale_after duration, and not before now (the day itself still passes); no
condition is due before now; the verdict is accepted (accepted-with-conditions only with
--allow-conditions). Prints EFFECT-ELIGIBLE: ... or EFFECT-INELIGIBLE: <reasons>.

--tree COMMIT=DIR says where a commit subject's bytes are read. When DIR's repository has the
commit, every file under the subject root must equal the commit's blob. When it lacks the commit
(or DIR is in no git repository), the decision is indeterminate, naming the commit and DIR, unless
every file under the subject root in DIR is an input the documents name with a recorded digest
(evidence inputs or build_inputs, record_hash, an inventory element's crate digest) that matches
DIR's bytes; a NOTE then says so, with the number of files.

Paths (D, S, P, store and tree directories) are relative to --root (default: cwd).
Exit: 0 valid whatever the verdict, 1 invalid or stale, 3 indeterminate; with --effect 0 eligible,
1 ineligible, 3 indeterminate; 2 for unreadable documents, usage errors, a malformed --now, or
0.3 documents (a 0.3 specification or package: convert it with vkit acceptance migrate; a 0.3
decision cannot be migrated: issue a new one with vkit acceptance decide against the migrated
specification and package).
`,
});

export const render = defineVerb({
  name: 'acceptance render',
  summary: 'a Markdown view of a record (requirements, claims, coverage, decision; stack table)',
  flags: { ...BASE, ...STACK },
  positionals: true,
  help: `Usage: vkit acceptance render S P [D] [--store NAME=DIR ...] [--tree COMMIT=DIR ...] [--root DIR] [--json]

Checks the specification S, the package P and (optionally) the decision D, then prints a Markdown
view: the requirements with their floors, the claims answering each, the computed coverage, the
decision's dispositions and conditions. For a stack, the relation table comes first and the stack
lines last. A cross-cutting requirement's floor is what its [requirement.demands] demand over the
requirements it names; floor keys this vkit cannot evaluate are listed (not evaluated: ...) and
the requirement is indeterminate, never satisfied. When the documents are not valid, the verdict
line and the first 10 findings that decide it ("(and N more)") open the view and go to stderr.
Exit 0 for valid documents, 1 when one is invalid or the decision is stale (the view
still prints and says so), 3 when indeterminate, 2 for unreadable documents, usage errors or 0.3
documents (a 0.3 specification or package: convert it with vkit acceptance migrate; a 0.3
decision cannot be migrated: issue a new one with vkit acceptance decide against the migrated
specification and package).
`,
});

export const migrate = defineVerb({
  name: 'acceptance migrate',
  summary: 'convert 0.3 specifications (contracts) and packages to 0.4 (preview; --write applies)',
  flags: { ...BASE, write: { type: 'boolean', default: false } },
  positionals: true,
  help: `Usage: vkit acceptance migrate FILE... [--write] [--root DIR] [--json]

Converts acceptance 0.3 documents to 0.4: a contract becomes a specification ([document] kind and
protocol acceptance-protocol/0.4), a package gets [format] id acceptance/0.4 and its [contract]
binding becomes [specification], hashed in domain specification over the MIGRATED specification
bytes. Every old hash is verified against the bytes it names before it is re-expressed (legacy
record_hash forms become record:sha-512); one that does not match is reported, never rebound.
Give a package together with its specification, or let migrate find the specification through the
package's [spec] path (it is then migrated too). Text is spliced: comments and layout stay.

An authority written "Name / role" becomes the party's name (the role fills that party's missing
role), a deviation's statement becomes its reason, an absent control_required is written as 0.3's
default (false), a claim's band (A0-A4, nothing in 0.4 reads it) is removed with the comment lines
below it. A package without [subject] root whose evidence inputs all sit, with their recorded
digests, in one directory below it gets that directory as its root (none or several: listed).
A retired bare sha-512: binding is refused, as 0.3.2 refuses it.

Fields without a 0.4 meaning ([document] minor, a specification's [subject], [acceptance] phase, a
party's contact, [coverage] clauses_total, semantics, [[filler]], extra [contract] keys, a gap claim
without gap_reason, a party without role, ...) are never dropped or guessed: each is listed as
NEEDS-ATTENTION <file>:<line> <field>: <what 0.4 wants>, and marked in the output with a
"# TODO(vkit migrate)" comment above its line. Migrate then runs the 0.4 validators on the text it
writes (check-spec; check-package against the specification the package binds) and prints each
verdict (VALIDATE <file>: VALID|INVALID|INDETERMINATE); anything they still refuse is listed too.

Without --write, prints the changed lines of each file and writes nothing. With --write, writes
every file (items needing attention included, marked), or none when any file cannot be migrated
safely (a hash it cannot verify). A file already at 0.4 is left unchanged.
Decisions are never migrated (exit 2): the consumer must issue a new decision.

Exit codes: 0 migrated (or previewed, or unchanged) with every output valid and nothing needing
attention; 1 "migrated with N items needing attention", or a file cannot be migrated safely
(nothing written); 2 usage errors, a decision, or a document that cannot be read or parsed.
`,
});

export const run = defineVerb({
  name: 'acceptance run',
  summary: "run claims' self_verify commands (needs --yes-run-commands)",
  flags: {
    ...BASE,
    claim: { type: 'string', multiple: true },
    'yes-run-commands': { type: 'boolean', default: false },
    timeout: { type: 'string' },
  },
  positionals: true,
  help: `Usage: vkit acceptance run P [--claim ID]... --yes-run-commands [--timeout S] [--root DIR] [--json]

Runs each claim's [claim.self_verify] command (sh -c, in the subject root: [subject] root relative
to --root, default the package file's directory) and checks it: exit 0 and expect found in the
expect_stream (stdout, stderr or combined; CRLF -> LF). Prints \`<STATUS> <claim>: <command>\` per
claim and a summary. Statuses: EXECUTED-PASS, EXECUTED-FAIL (non-zero exit, signal, time-out),
EXPECT-MISMATCH (exit 0 without the text), SELF-FULFILLING-SUSPECT (the expected text is in the
command itself; never run), NOT-RUN (no command, or an empty expect).

Without --yes-run-commands nothing runs: it lists the commands it would run and exits 2.
  --claim ID       run only these claims (repeatable; default every claim)
  --timeout S      per command, in seconds (default 600)

Exit codes: 0 every claim EXECUTED-PASS; 1 any EXECUTED-FAIL or EXPECT-MISMATCH; 3 any
SELF-FULFILLING-SUSPECT or NOT-RUN and none failed; 2 usage errors or an unreadable package.
`,
});

export const witness = defineVerb({
  name: 'acceptance witness',
  summary: "break the subject in a scratch copy, watch a claim's check go red, record watched_fail",
  flags: {
    ...BASE,
    claim: { type: 'string' },
    patch: { type: 'string' },
    replace: { type: 'string' },
    old: { type: 'string' },
    new: { type: 'string' },
    timeout: { type: 'string' },
  },
  positionals: true,
  help: `Usage: vkit acceptance witness P --claim ID (--patch FILE.diff | --replace PATH --old TEXT --new TEXT) [--timeout S] [--root DIR] [--json]

Shows that a claim's check can fail, and records it. Copies the subject root (without .git) to a
scratch directory (your tree is never touched), runs the claim's self_verify command there (it must
pass), applies the perturbation (--patch: git apply, paths relative to the subject root; --replace:
OLD must occur exactly once in PATH, relative to --root), and runs the command again. When it goes
red by a real exit (EXECUTED-FAIL or EXPECT-MISMATCH), splices [claim.self_verify.watched_fail]
(of_command, perturbed with the perturbation's sha256, observed, date) into P, keeping comments and
layout, and prints the old and new manifest: digests: a decision bound to the old package is stale.

Exit codes: 0 witnessed and written; 1 SURVIVOR (the command still passes: nothing written) or the
command fails before any perturbation; 3 not witnessed (time-out, self-fulfilling or missing
command); 2 usage errors, a perturbation that cannot be applied, or an unreadable package.
`,
});
