/**
 * A valid acceptance trio for tests: specification, package (acceptance.toml) and decision, plus
 * the files the package names (human spec, evidence record, a runnable test script). Tests start
 * from `validTrio()`, break one thing with `edit` (which refuses an edit that matches nothing, so a
 * test can never pass by editing nothing), call `rebind` when the change should keep the bindings
 * current, and `writeTrio` into a temp dir.
 *
 * Every digest here is computed with node:crypto directly, never with vkit's hash module, so the
 * tests check vkit against an independent computation.
 *
 * The trio, as written:
 * - specification `AS-TEST-0001` (consumer-issued, status issued): R1 mandatory (T3, weighted,
 *   methods unit-test, freshness delivered-revision), R2 optional (T3, weighted, freshness any);
 *   authority = consumer name; re-execute-all; profiles_required acceptance/verification; P180D.
 * - package: subject `slug` at `commit` (dirty = false); claims WT-1 (clause R1) and WT-2 (clause
 *   R2), both evidenced, weighted, grade probe, with self_verify + watched_fail and one passing
 *   unit-test record (family dynamic, tier T3, captured_at_commit = commit, author = producer).
 * - decision `AD-TEST-0001`: issuer = consumer, verdict accepted, both requirements satisfied, one
 *   passing run per claim, validity stale_after 2027-02-01 (issued 2026-09-01T10:00:00Z).
 *
 * Subject identity: the default commit is not in any test repository, so checks that verify the
 * subject need `--tree <commit>=<dir>`; `TREE_FLAG(dir)` builds that flag. A DIR that cannot show
 * the commit leaves the check indeterminate unless the documents pin every subject file with a
 * recorded digest, so by default the subject is `slug/` (beside the documents, never around
 * them), holding only `test/slug-test.js`, which every record names in its `inputs`: vkit then
 * notes that each of those files was checked against its recorded digest. For a real commit,
 * commit your subject files under a directory, then pass `{commit, subjectRoot}`: `committedRepo`
 * does that (subject `acc/subject/`, documents in `acc/`), and `acceptanceRepo` adds the manifest's
 * `acceptance` item, for the gate.
 *
 * Also the independent digests other acceptance tests write their own documents with (`m11`,
 * `sha512`, `subjectDigest`), and the `check-decision` arguments for the trio's paths.
 *
 * Keep this API stable: the acceptance and evidence suites import it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempRepo, vkit, type CliResult, type TempRepo } from './repo.js';

export interface TrioOptions {
  /** Subject commit (40 hex) and every record's captured_at_commit. Default: a fixed fake commit. */
  commit?: string;
  /** Consumer party name (also the authority and the decision's issuer). */
  consumer?: string;
  /** Producer party name (also the records' author). */
  producer?: string;
  specId?: string;
  decisionId?: string;
  /** `[acceptance] stale_after` of the specification (ISO-8601 duration); null omits it. */
  staleAfter?: string | null;
  /** The decision's `[document] issued_at`. */
  decisionIssuedAt?: string;
  /** The decision's `[validity] stale_after` date; null omits the table. */
  validUntil?: string | null;
  /**
   * `[subject] root` (relative to --root). Default: `slug`, the pinned subject (see above). null:
   * no `root` key, so the subject is the package file's directory, documents included (nothing
   * pins those, so with the fake commit the check is indeterminate). With a real commit, point it
   * at a directory holding only committed files (the documents themselves are written after the
   * commit they name).
   */
  subjectRoot?: string | null;
}

export interface Trio {
  spec: string;
  pkg: string;
  decision: string;
  /** Other files the package names, by path relative to the trio's directory. */
  files: Record<string, string>;
}

/** The default subject root: every file under it is an `inputs` entry of every record. */
export const PINNED_SUBJECT = 'slug';

/** Where `writeTrio` puts the three documents (relative to the directory it is given). */
export const TRIO_PATHS = {
  spec: 'acceptance-specification.toml',
  pkg: 'acceptance.toml',
  decision: 'acceptance-decision.toml',
} as const;

export const DEFAULTS = {
  commit: '1c65772c4f078ca520f899ce3974565c612da56e',
  consumer: 'Example Consumer',
  consumerRole: 'platform-lead',
  producer: 'Example Producer',
  producerRole: 'maintainer',
  specId: 'AS-TEST-0001',
  decisionId: 'AD-TEST-0001',
  staleAfter: 'P180D',
  decisionIssuedAt: '2026-09-01T10:00:00Z',
  validUntil: '2027-02-01',
} as const;

/** `['--tree', '<commit>=<dir>']` for the trio's subject commit (default: the fixed fake commit). */
export function TREE_FLAG(dir: string, commit: string = DEFAULTS.commit): string[] {
  return ['--tree', `${commit}=${dir}`];
}

/** M11 digest computed independently: SHA-512 over `<domain>:` + the raw bytes. */
export function m11(domain: string, content: string | Uint8Array): string {
  return `${domain}:sha-512:${createHash('sha512').update(`${domain}:`, 'ascii').update(content).digest('hex')}`;
}

/** Plain SHA-512 hex over the parts, in order. */
export function sha512(...parts: (string | Uint8Array)[]): string {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** A subject digest computed independently: `subject` over `<path> NUL <sha-512 hex> \n`, sorted bytewise. */
export function subjectDigest(files: Record<string, string>): string {
  const names = Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return m11('subject', names.map((n) => `${n}\0${sha512(files[n]!)}\n`).join(''));
}

/** Replaces exactly one occurrence of `from`; throws when it occurs zero or several times. */
export function edit(text: string, from: string | RegExp, to: string): string {
  const count =
    typeof from === 'string'
      ? text.split(from).length - 1
      : (text.match(new RegExp(from.source, from.flags.includes('g') ? from.flags : `${from.flags}g`)) ?? []).length;
  if (count !== 1) throw new Error(`edit: expected exactly one match of ${String(from)}, found ${count}`);
  return text.replace(from, to);
}

const TEST_SCRIPT = `// Runs slug over five inputs; prints SLUG PASS: 5 cases when all are lowercase.
const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');
const cases = ['hello', 'HELLO', 'Hello World', '1234', 'a-b'];
const bad = cases.filter((c) => /[A-Z]/.test(slug(c)));
if (bad.length) { console.log('SLUG FAILED: ' + bad.length + '/5 cases'); process.exit(1); }
console.log('SLUG PASS: 5 cases');
`;

const RECORD_1 = 'node test/slug-test.js\nSLUG PASS: 5 cases\nexit: 0\n';
const RECORD_2 = 'node test/slug-test.js --spaces\nSLUG PASS: 5 cases\nexit: 0\n';

function specText(o: Required<TrioOptions>): string {
  return `# Test specification: what slug() must do.
[document]
protocol = "acceptance-protocol/0.4"
kind = "specification"
id = "${o.specId}"
version = 1
issued_at = "2026-08-01T10:00:00Z"
issued_by = "consumer"
status = "issued"

[parties]
consumer = { name = "${o.consumer}", role = "${DEFAULTS.consumerRole}" }
producer = { name = "${o.producer}", role = "${DEFAULTS.producerRole}" }

[acceptance]
rule = "all-mandatory-satisfied"
authority = "${o.consumer}"
consumer_verification = "re-execute-all"
profiles_required = ["acceptance/verification"]
${o.staleAfter === null ? '' : `stale_after = "${o.staleAfter}"\n`}
[[requirement]]
id = "R1"
statement = "slug(s) never returns an uppercase ASCII letter"
mandatory = true
waivable = false
domain = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier = "T3"
  weighted_required = true
  control_required = false
  freshness = "delivered-revision"
  independence = "none"
  methods = ["unit-test"]

[[requirement]]
id = "R2"
statement = "slug(s) never returns whitespace"
mandatory = false
waivable = true
domain = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier = "T3"
  weighted_required = true
  control_required = false
  freshness = "any"
  independence = "none"
`;
}

/** Each record's `inputs`, for the pinned default subject: the one file under it. */
const PINNED_INPUTS = `  inputs = [{ path = "test/slug-test.js", digest = "${m11('subject', TEST_SCRIPT)}" }]\n`;

function claimText(
  id: string,
  clause: string,
  statement: string,
  command: string,
  record: string,
  recordBytes: string,
  o: Required<TrioOptions>,
): string {
  return `[[claim]]
id = "${id}"
clause = "${clause}"
statement = "${statement}"
status = "evidenced"
weight = "weighted"
grade = "probe"
bounds = "bounded: 5 concrete input strings"
clause_source = "spec-document"

  [claim.self_verify]
  command = "${command}"
  expect = "SLUG PASS: 5 cases"

    [claim.self_verify.watched_fail]
    of_command = "${command}"
    perturbed = "removed the toLowerCase call from slug"
    observed = "SLUG FAILED: 2/5 cases"
    date = "2026-08-28"

  [[claim.evidence]]
  kind = "unit-test"
  family = "dynamic"
  ref = "test/slug-test.js"
  result = "pass"
  tool = "node@20 + test/slug-test.js"
  epistemic_tier = "T3"
  record = "${record}"
  record_hash = "${m11('record', recordBytes)}"
  captured_at_commit = "${o.commit}"
  author = "${o.producer}"
${o.subjectRoot === PINNED_SUBJECT ? PINNED_INPUTS : ''}`;
}

function packageText(o: Required<TrioOptions>, spec: string): string {
  return `# Test package: the producer's acceptance.toml for slug().
[format]
id = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name = "slug"
kind = "tool"
${o.subjectRoot === null ? '' : `root = "${o.subjectRoot}"\n`}commit = "${o.commit}"
dirty = false

[spec]
path = "SPEC.md"
version = "v1"

[specification]
id = "${o.specId}"
hash = "${m11('specification', spec)}"
requirements_total = 2

[coverage]
claims_total = 2

${claimText('WT-1', 'R1', 'slug(s) never returns a string containing an uppercase ASCII letter', 'node test/slug-test.js', 'evidence/wt1-run.txt', RECORD_1, o)}
${claimText('WT-2', 'R2', 'slug(s) never returns a string containing whitespace', 'node test/slug-test.js --spaces', 'evidence/wt2-run.txt', RECORD_2, o)}`;
}

function decisionText(o: Required<TrioOptions>, spec: string, pkg: string): string {
  return `# Test decision: the consumer's verdict on the package.
[document]
protocol = "acceptance-protocol/0.4"
kind = "decision"
id = "${o.decisionId}"
issued_at = "${o.decisionIssuedAt}"
issuer = { name = "${o.consumer}", role = "${DEFAULTS.consumerRole}" }
verdict = "accepted"

[binds]
specification = { id = "${o.specId}", hash = "${m11('specification', spec)}" }
package = { hash = "${m11('manifest', pkg)}" }
subject = { commit = "${o.commit}" }

[verification]
mode = "re-execute-all"

[[verification.run]]
claim = "WT-1"
command = "node test/slug-test.js"
observed = "SLUG PASS: 5 cases"
result = "pass"
at = "2026-09-01T09:00:00Z"

[[verification.run]]
claim = "WT-2"
command = "node test/slug-test.js --spaces"
observed = "SLUG PASS: 5 cases"
result = "pass"
at = "2026-09-01T09:01:00Z"

[[disposition]]
requirement = "R1"
status = "satisfied"
basis = ["WT-1"]

[[disposition]]
requirement = "R2"
status = "satisfied"
basis = ["WT-2"]
${o.validUntil === null ? '' : `\n[validity]\nstale_after = "${o.validUntil}"\n`}`;
}

/** The full valid trio with every binding current. */
export function validTrio(opts: TrioOptions = {}): Trio {
  const o: Required<TrioOptions> = {
    commit: opts.commit ?? DEFAULTS.commit,
    consumer: opts.consumer ?? DEFAULTS.consumer,
    producer: opts.producer ?? DEFAULTS.producer,
    specId: opts.specId ?? DEFAULTS.specId,
    decisionId: opts.decisionId ?? DEFAULTS.decisionId,
    staleAfter: opts.staleAfter === undefined ? DEFAULTS.staleAfter : opts.staleAfter,
    decisionIssuedAt: opts.decisionIssuedAt ?? DEFAULTS.decisionIssuedAt,
    validUntil: opts.validUntil === undefined ? DEFAULTS.validUntil : opts.validUntil,
    subjectRoot: opts.subjectRoot === undefined ? PINNED_SUBJECT : opts.subjectRoot,
  };
  const spec = specText(o);
  const pkg = packageText(o, spec);
  return {
    spec,
    pkg,
    decision: decisionText(o, spec, pkg),
    files: {
      'SPEC.md': '# slug\n\nslug(s) lowercases s and replaces each run of whitespace with `-`.\n',
      // The script's text; also the pinned subject's one file (a caller's own subject copies it).
      'test/slug-test.js': TEST_SCRIPT,
      ...(o.subjectRoot === PINNED_SUBJECT ? { [`${PINNED_SUBJECT}/test/slug-test.js`]: TEST_SCRIPT } : {}),
      'evidence/wt1-run.txt': RECORD_1,
      'evidence/wt2-run.txt': RECORD_2,
    },
  };
}

const HEX = '[0-9a-f]{128}';

/**
 * Makes every binding current again after an edit, in dependency order: each `record_hash` from
 * the file its preceding `record = "..."` names (when that file is in `files`), the package's
 * specification hash, then the decision's specification and package hashes.
 */
export function rebind(trio: Trio): Trio {
  const pkg = trio.pkg
    .replace(
      /(record\s*=\s*"([^"]+)"[^[]*?record_hash\s*=\s*")record:sha-512:[0-9a-f]{128}"/g,
      (whole, head: string, path: string) =>
        trio.files[path] === undefined ? whole : `${head}${m11('record', trio.files[path]!)}"`,
    )
    .replace(new RegExp(`specification:sha-512:${HEX}`, 'g'), m11('specification', trio.spec));
  const decision = trio.decision
    .replace(new RegExp(`specification:sha-512:${HEX}`, 'g'), m11('specification', trio.spec))
    .replace(new RegExp(`manifest:sha-512:${HEX}`, 'g'), m11('manifest', pkg));
  return { ...trio, pkg, decision };
}

/** Writes the documents (at TRIO_PATHS) and the files under `dir`; returns the relative paths. */
export function writeTrio(dir: string, trio: Trio): { spec: string; pkg: string; decision: string } {
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  for (const [rel, text] of Object.entries(trio.files)) put(rel, text);
  put(TRIO_PATHS.spec, trio.spec);
  put(TRIO_PATHS.pkg, trio.pkg);
  put(TRIO_PATHS.decision, trio.decision);
  return { ...TRIO_PATHS };
}

/** `acceptance check-decision` on the documents at TRIO_PATHS; `--root` and the rest follow. */
export const CHECK_DECISION = [
  'acceptance',
  'check-decision',
  TRIO_PATHS.decision,
  '--spec',
  TRIO_PATHS.spec,
  '--package',
  TRIO_PATHS.pkg,
] as const;

/** The subject `committedRepo` commits by default: one file, `acc/subject/slug.js`. */
export const SLUG_SUBJECT: Readonly<Record<string, string>> = {
  'acc/subject/slug.js': "export const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n",
};

/** Trio options under which the decision is effect-eligible whatever today is (the gate judges on today). */
export const LASTING: TrioOptions = { validUntil: '2099-01-01', staleAfter: null };

/** The manifest's `acceptance` item for the trio in `acc/` (id `slug`: gate item `accept:slug`), plus `extra`. */
export function acceptanceItem(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'slug',
    root: 'acc',
    spec: `acc/${TRIO_PATHS.spec}`,
    package: `acc/${TRIO_PATHS.pkg}`,
    decision: `acc/${TRIO_PATHS.decision}`,
    ...extra,
  };
}

export interface CommittedOptions {
  /** The subject's files (paths from the repository root), committed before the documents. */
  files?: Record<string, string>;
  /** Trio options beyond its commit; an undefined value keeps the default. Subject root: `subject`. */
  trio?: TrioOptions;
  /** Writes the manifest with `acceptanceItem(item)`. */
  item?: Record<string, unknown>;
}

export interface CommittedRepo {
  repo: TempRepo;
  /** `acc/`: the documents' directory and the --root of every run. */
  root: string;
  trio: Trio;
  /** `vkit acceptance <args> --root <root>`. */
  run(...args: string[]): CliResult;
  cleanup(): void;
}

/** The options without their undefined values (which mean "the default"). */
const defined = (o: TrioOptions = {}): TrioOptions =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * The valid trio over a subject committed in a real repository, so the verbs verify the subject
 * against its commit (no `--tree`): commits the subject (`files`, default `SLUG_SUBJECT`), then
 * writes `make(trio bound to that commit)` (default: the trio itself) and the files it names into
 * `acc/`, beside `acc/subject/`.
 */
export function committedRepo(make: (trio: Trio) => Trio = (t) => t, opts: CommittedOptions = {}): CommittedRepo {
  const repo = tempRepo(opts.files ?? SLUG_SUBJECT);
  const root = join(repo.dir, 'acc');
  const trio = make(validTrio({ subjectRoot: 'subject', ...defined(opts.trio), commit: repo.commitAll('subject') }));
  writeTrio(root, trio);
  if (opts.item) repo.manifest({ acceptance: [acceptanceItem(opts.item)] });
  return {
    repo,
    root,
    trio,
    run: (...args) => vkit(['acceptance', ...args, '--root', root]),
    cleanup: () => repo.cleanup(),
  };
}

/** `committedRepo` for the gate: a `LASTING` trio (unless `trio` says otherwise) and the manifest's item. */
export function acceptanceRepo(opts: CommittedOptions & { change?: (trio: Trio) => Trio } = {}): CommittedRepo {
  return committedRepo(opts.change, { ...opts, trio: { ...LASTING, ...defined(opts.trio) }, item: opts.item ?? {} });
}
