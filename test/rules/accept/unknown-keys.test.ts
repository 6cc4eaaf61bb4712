/**
 * Unknown keys and wrong types never pass silently, in any of the three documents: a key vkit does
 * not read is an ERROR naming the file, the table/key path and the line (with the known key a typo
 * most likely meant), and a TOML date or time where a string is required is an ERROR too. Each
 * document gets an unknown top-level table, an unknown key in every table it has, a typo'd key
 * with its did-you-mean, and a TOML datetime in a string field; all through the real CLI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestKey } from '../../../rules/accept/lib/keys.js';
import { tempRepo, vkit, type CliResult } from '../../_support/repo.js';
import {
  CHECK_DECISION,
  edit,
  rebind,
  TREE_FLAG,
  TRIO_PATHS,
  validTrio,
  writeTrio,
  type Trio,
} from '../../_support/acceptance-docs.js';

interface Finding {
  level: string;
  file: string;
  message: string;
  path?: string;
  line?: number;
}

/** Runs `args` (with --json) on the trio in a temp dir; returns the result and the text of each document. */
function run(trio: Trio, args: readonly string[], json = true): { r: CliResult; findings: Finding[] } {
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    // Only the verbs that verify the subject take --tree.
    const tree = args[1] === 'check-package' || args[1] === 'check-decision' ? TREE_FLAG('.') : [];
    const r = vkit([...args, ...tree, '--root', repo.dir, ...(json ? ['--json'] : [])]);
    const out = json && r.stdout ? r.json() : {};
    const findings: Finding[] = out.findings ?? out.files?.flatMap((f: { findings: Finding[] }) => f.findings) ?? [];
    return { r, findings };
  } finally {
    repo.cleanup();
  }
}

const CHECK_SPEC = ['acceptance', 'check-spec', TRIO_PATHS.spec];
const CHECK_PACKAGE = ['acceptance', 'check-package', TRIO_PATHS.pkg, '--spec', TRIO_PATHS.spec];

/** The 1-based line of the first line of `text` that `line` matches exactly (after trimming). */
function lineOf(text: string, line: string): number {
  const i = text.split('\n').findIndex((l) => l.trim() === line);
  assert.ok(i >= 0, `no line ${JSON.stringify(line)} in the document`);
  return i + 1;
}

/** One ERROR finding of `file` at `path` and `line` whose message matches `message`. */
function assertError(findings: Finding[], file: string, path: string, line: number, message: RegExp): void {
  const hit = findings.find((f) => f.level === 'ERROR' && f.path === path && message.test(f.message));
  assert.ok(
    hit,
    `no ERROR at ${path} matching ${message}; findings:\n${findings.map((f) => `${f.level} ${f.path} ${f.message}`).join('\n')}`,
  );
  assert.equal(hit.file, file, `the finding names ${file}`);
  assert.equal(hit.line, line, `${path}: the finding's line`);
}

/** Adds `key = 1` right after the first line matching `after` exactly (a header or a key). */
const addAfter = (text: string, after: string, key: string) => edit(text, `${after}\n`, `${after}\n${key} = 1\n`);

test('specification: an unknown top-level table and an unknown key in every table are errors at their lines', () => {
  const t = validTrio();
  let spec = t.spec
    .replace('status = "issued"', 'status = "ratified"')
    .replace('issued_by = "consumer"', 'issued_by = "producer"');
  spec = addAfter(spec, '[document]', 'title');
  spec = edit(spec, 'role = "platform-lead" }', 'role = "platform-lead", email = "x" }');
  spec = addAfter(spec, '[parties]', 'witness');
  spec = addAfter(spec, '[acceptance]', 'quorum');
  spec = addAfter(spec, 'id = "R1"', 'rationale');
  spec = `${spec}\n[ratification]\nby = "Example Consumer"\nat = "2026-08-02"\nseal = 1\n`;
  spec += `\n[[requirement]]\nid = "R3"\nstatement = "every dependency is accepted"\nmandatory = false\nwaivable = true\ndomain = "correctness"\nclause_source = "consumer-statement"\nkind = "chain"\n\n  [requirement.chain]\n  relations = ["runtime"]\n  depth = "all"\n  level = "C2"\n  completeness = "verified"\n  binds = "consumed"\n  acceptors = ["a"]\n  allow_conditions = false\n  unaccepted = "refuse"\n  max_elements = 10\n  trust = 1\n`;
  spec += '\n[bogus_table]\nx = 1\n';
  const { r, findings } = run({ ...t, spec }, CHECK_SPEC);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const F = TRIO_PATHS.spec;
  assertError(findings, F, 'bogus_table', lineOf(spec, '[bogus_table]'), /^the document: unknown key 'bogus_table'/);
  assertError(findings, F, 'document.title', lineOf(spec, 'title = 1'), /^\[document\]: unknown key 'title'/);
  assertError(findings, F, 'parties.witness', lineOf(spec, 'witness = 1'), /^\[parties\]: unknown key 'witness'/);
  assertError(
    findings,
    F,
    'parties.consumer.email',
    lineOf(spec, 'consumer = { name = "Example Consumer", role = "platform-lead", email = "x" }'),
    /^parties\.consumer: unknown key 'email' \(allowed: name, role, contact\)/,
  );
  assertError(findings, F, 'acceptance.quorum', lineOf(spec, 'quorum = 1'), /^\[acceptance\]: unknown key 'quorum'/);
  assertError(
    findings,
    F,
    'requirement[0].rationale',
    lineOf(spec, 'rationale = 1'),
    /^requirement\[0\]: unknown key 'rationale'/,
  );
  assertError(findings, F, 'ratification.seal', lineOf(spec, 'seal = 1'), /^\[ratification\]: unknown key 'seal'/);
  assertError(
    findings,
    F,
    'requirement[2].chain.trust',
    lineOf(spec, 'trust = 1'),
    /^requirement\[2\]\.chain: unknown key 'trust'/,
  );
  const text = run({ ...t, spec }, CHECK_SPEC, false).r;
  assert.match(
    text.stdout,
    new RegExp(
      `^ERROR acceptance-specification\\.toml: the document: unknown key 'bogus_table' .*\\(line ${lineOf(spec, '[bogus_table]')}\\)$`,
      'm',
    ),
  );
});

test("specification: `stale_afer` is an error naming 'stale_after' (the 180-day limit is never silently gone)", () => {
  const t = validTrio();
  const good = run(t, CHECK_SPEC);
  assert.equal(good.r.code, 0, good.r.stdout);
  const spec = edit(t.spec, 'stale_after = "P180D"', 'stale_afer = "P30D"');
  const { r, findings } = run({ ...t, spec }, CHECK_SPEC);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assertError(
    findings,
    TRIO_PATHS.spec,
    'acceptance.stale_afer',
    lineOf(spec, 'stale_afer = "P30D"'),
    /^\[acceptance\]: unknown key 'stale_afer': did you mean 'stale_after'\? \(allowed: .*stale_after/,
  );
  // A typo in a floor table is an error too, not an unevaluable floor.
  const floor = edit(
    t.spec,
    'min_tier = "T3"\n  weighted_required = true\n  control_required = false\n  freshness = "delivered-revision"',
    'min_tier = "T3"\n  weighted_requried = false\n  control_required = false\n  freshness = "delivered-revision"',
  );
  const typo = run({ ...t, spec: floor }, CHECK_SPEC);
  assert.equal(typo.r.code, 1, typo.r.stdout);
  assertError(
    typo.findings,
    TRIO_PATHS.spec,
    'requirement[0].evidence.weighted_requried',
    lineOf(floor, 'weighted_requried = false'),
    /unknown key 'weighted_requried': did you mean 'weighted_required'\?/,
  );
});

test('specification: a TOML datetime where a string is required is an error; issued_at may be one', () => {
  const t = validTrio();
  const spec = edit(
    edit(t.spec, 'statement = "slug(s) never returns whitespace"', 'statement = 1979-05-27T07:32:00Z'),
    'issued_at = "2026-08-01T10:00:00Z"',
    'issued_at = 2026-08-01T10:00:00Z',
  );
  const { r, findings } = run({ ...t, spec }, CHECK_SPEC);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assertError(
    findings,
    TRIO_PATHS.spec,
    'requirement[1].statement',
    lineOf(spec, 'statement = 1979-05-27T07:32:00Z'),
    /^requirement\[1\]\.statement must be a string, not the TOML date\/time 1979-05-27T07:32:00\.000Z: quote it/,
  );
  assert.equal(findings.filter((f) => f.level === 'ERROR').length, 1, 'the TOML datetime issued_at is accepted');
});

test('package: an unknown table, unknown keys in [coverage] and [specification] (with did-you-mean), a datetime statement', () => {
  const t = validTrio();
  let pkg = edit(t.pkg, 'claims_total = 2', 'claims_total = 2\nclaim_total = 3');
  pkg = edit(pkg, 'requirements_total = 2', 'requirements_total = 2\nrequirement_total = 9');
  pkg = edit(
    pkg,
    'statement = "slug(s) never returns a string containing whitespace"',
    'statement = 1979-05-27T07:32:00Z',
  );
  pkg = `${pkg}\n[bogus_table]\nx = 1\n`;
  const trio = rebind({ ...t, pkg });
  for (const args of [['acceptance', 'check', TRIO_PATHS.pkg], CHECK_PACKAGE]) {
    const { r, findings } = run(trio, args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    const F = TRIO_PATHS.pkg;
    assertError(findings, F, 'bogus_table', lineOf(pkg, '[bogus_table]'), /^the document: unknown key 'bogus_table'/);
    assertError(
      findings,
      F,
      'coverage.claim_total',
      lineOf(pkg, 'claim_total = 3'),
      /^\[coverage\]: unknown key 'claim_total': did you mean 'claims_total'\?/,
    );
    assertError(
      findings,
      F,
      'specification.requirement_total',
      lineOf(pkg, 'requirement_total = 9'),
      /^\[specification\]: unknown key 'requirement_total': did you mean 'requirements_total'\?/,
    );
    assertError(
      findings,
      F,
      'claim[1].statement',
      lineOf(pkg, 'statement = 1979-05-27T07:32:00Z'),
      /^claim\[1\]\.statement must be a string, not the TOML date\/time/,
    );
  }
});

test('decision: an unknown table and an unknown key in every table are errors at their lines', () => {
  const t = validTrio();
  let d = edit(t.decision, '[binds]\n', '[binds]\nsignature = 1\n');
  d = addAfter(d, '[document]', 'title');
  d = edit(d, 'role = "platform-lead" }', 'role = "platform-lead", email = "x" }');
  d = edit(d, 'package = { hash = "', 'package = { size = 1, hash = "');
  d = edit(d, 'specification = { id = "', 'specification = { version = 1, id = "');
  d = edit(d, /subject = \{ commit = "([0-9a-f]{40})" \}/, 'subject = { commit = "$1", tree = 1 }');
  d = addAfter(d, '[verification]', 'by');
  d = edit(d, 'result = "pass"\nat = "2026-09-01T09:00:00Z"', 'result = "pass"\nat = "2026-09-01T09:00:00Z"\nexit = 0');
  d = addAfter(d, 'basis = ["WT-1"]', 'note');
  d = addAfter(d, '[validity]', 'renew');
  d +=
    '\n[[condition]]\nid = "C1"\nrequirement = "R1"\nstatement = "x"\ndue = 2027-01-01\nowner = "producer"\nseverity = 1\n';
  d += '\n[bogus_table]\nx = 1\n';
  const { r, findings } = run({ ...t, decision: d }, CHECK_DECISION);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const F = TRIO_PATHS.decision;
  assertError(findings, F, 'bogus_table', lineOf(d, '[bogus_table]'), /^the document: unknown key 'bogus_table'/);
  assertError(findings, F, 'document.title', lineOf(d, 'title = 1'), /^\[document\]: unknown key 'title'/);
  assertError(
    findings,
    F,
    'document.issuer.email',
    lineOf(d, 'issuer = { name = "Example Consumer", role = "platform-lead", email = "x" }'),
    /^document\.issuer: unknown key 'email'/,
  );
  assertError(findings, F, 'binds.signature', lineOf(d, 'signature = 1'), /^\[binds\]: unknown key 'signature'/);
  assertError(
    findings,
    F,
    'binds.specification.version',
    lineOf(d, d.split('\n').find((l) => l.startsWith('specification = { version'))!),
    /^binds\.specification: unknown key 'version'/,
  );
  assertError(
    findings,
    F,
    'binds.package.size',
    lineOf(d, d.split('\n').find((l) => l.startsWith('package = { size'))!),
    /^binds\.package: unknown key 'size'/,
  );
  assertError(
    findings,
    F,
    'binds.subject.tree',
    lineOf(d, d.split('\n').find((l) => l.startsWith('subject = { commit'))!),
    /^binds\.subject: unknown key 'tree'/,
  );
  assertError(findings, F, 'verification.by', lineOf(d, 'by = 1'), /^\[verification\]: unknown key 'by'/);
  assertError(
    findings,
    F,
    'verification.run[0].exit',
    lineOf(d, 'exit = 0'),
    /^verification\.run\[0\]: unknown key 'exit'/,
  );
  assertError(findings, F, 'disposition[0].note', lineOf(d, 'note = 1'), /^disposition\[0\]: unknown key 'note'/);
  assertError(findings, F, 'validity.renew', lineOf(d, 'renew = 1'), /^\[validity\]: unknown key 'renew'/);
  assertError(
    findings,
    F,
    'condition[0].severity',
    lineOf(d, 'severity = 1'),
    /^condition\[0\]: unknown key 'severity'/,
  );
});

test('decision: a waiver key typo names the key it meant; a TOML date id is an error, a TOML date stale_after is not', () => {
  const t = validTrio();
  let d = edit(t.decision, 'id = "AD-TEST-0001"', 'id = 1979-05-27');
  d = edit(d, 'stale_after = "2027-02-01"', 'stale_after = 2027-02-01');
  d = edit(
    d,
    'status = "satisfied"\nbasis = ["WT-2"]',
    'status = "waived"\nbasis = ["WT-2"]\n\n  [disposition.waiver]\n  reason = "r"\n  code = "other"\n  authorty = "Example Consumer"',
  );
  const { r, findings } = run({ ...t, decision: d }, CHECK_DECISION);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const F = TRIO_PATHS.decision;
  assertError(
    findings,
    F,
    'document.id',
    lineOf(d, 'id = 1979-05-27'),
    /^document\.id must be a string, not the TOML date\/time 1979-05-27: quote it/,
  );
  assertError(
    findings,
    F,
    'disposition[1].waiver.authorty',
    lineOf(d, 'authorty = "Example Consumer"'),
    /^disposition\[1\]\.waiver: unknown key 'authorty': did you mean 'authority'\?/,
  );
  assert.ok(!findings.some((f) => f.path === 'validity.stale_after'), "a TOML date is a date field's own type");
});

test('did-you-mean: the nearest known key within a third of its length, never a guess between equals', () => {
  assert.equal(nearestKey('stale_afer', ['rule', 'stale_after']), 'stale_after');
  assert.equal(nearestKey('min_teir', ['min_tier', 'methods']), 'min_tier');
  assert.equal(nearestKey('Statement', ['statement']), 'statement');
  assert.equal(nearestKey('reviewer', ['id', 'clause', 'statement']), undefined);
  assert.equal(nearestKey('ab', ['ac', 'ad']), undefined, 'two equally near keys: no guess');
  assert.equal(nearestKey('k'.repeat(100_000), ['kind']), undefined, 'a huge key is never compared');
});
