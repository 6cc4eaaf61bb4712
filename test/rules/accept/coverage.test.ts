/**
 * Coverage: each status (satisfied, partial, deviation-declared, gap, missing) from one minimal
 * edit of the valid trio, through the real CLI; the floor reasons in their documented order
 * (status, weight, tier, methods, control, freshness, independence); independence judged from the
 * record's author against the parties; cross-cutting demands; chain requirements taking the
 * stack's result; ISO-8601 durations.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeCoverage, renderCoverage } from '../../../rules/accept/lib/coverage.js';
import { durationDays } from '../../../rules/accept/lib/durations.js';
import { checkSpecification } from '../../../rules/accept/lib/specification.js';
import { parseDoc } from '../../../rules/accept/lib/toml.js';
import { tempRepo, vkit, type CliResult } from '../../_support/repo.js';
import { DEFAULTS, edit, rebind, TREE_FLAG, validTrio, writeTrio, type Trio } from '../../_support/acceptance-docs.js';

const SPEC = 'acceptance-specification.toml';
const PKG = 'acceptance.toml';
const OTHER_COMMIT = 'ab'.repeat(20);

function coverage(trio: Trio): CliResult {
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    return vkit(['acceptance', 'coverage', PKG, '--spec', SPEC, ...TREE_FLAG('.'), '--root', repo.dir]);
  } finally {
    repo.cleanup();
  }
}

/** The coverage lines (from the first `R1:` line on). */
const covLines = (r: CliResult) =>
  r.stdout.split('\n').slice(r.stdout.split('\n').findIndex((l) => l.startsWith('R1:')));

/** Edits only inside one claim's block of the package (WT-1 is followed by WT-2). */
function inClaim(pkg: string, id: 'WT-1' | 'WT-2', from: string | RegExp, to: string): string {
  const start = pkg.indexOf(`[[claim]]\nid = "${id}"`);
  const next = pkg.indexOf('[[claim]]', start + 1);
  const end = next < 0 ? pkg.length : next;
  return pkg.slice(0, start) + edit(pkg.slice(start, end), from, to) + pkg.slice(end);
}

/** Edits only inside R1's block of the specification. */
function inR1(spec: string, from: string | RegExp, to: string): string {
  const start = spec.indexOf('id = "R1"');
  const end = spec.indexOf('id = "R2"');
  return spec.slice(0, start) + edit(spec.slice(start, end), from, to) + spec.slice(end);
}

const WATCHED_FAIL = /\n {4}\[claim\.self_verify\.watched_fail\]\n( {4}.*\n){4}/;

const GAP_CLAIM = `[[claim]]
id = "WT-1"
clause = "R1"
statement = "slug(s) never returns a string containing an uppercase ASCII letter"
status = "gap"
grade = "not-covered"
gap_reason = "nothing checks this yet"

`;

/** The package with WT-1 replaced by a gap claim (no evidence). */
function withGapClaim(pkg: string): string {
  const start = pkg.indexOf('[[claim]]\nid = "WT-1"');
  const end = pkg.indexOf('[[claim]]\nid = "WT-2"');
  return pkg.slice(0, start) + GAP_CLAIM + pkg.slice(end);
}

const DEVIATION = '\n[[deviation]]\nrequirement = "R1"\nkind = "unmet"\nreason = "the check is not written yet"\n';

test('satisfied: the valid trio; basis names the claim, the summary counts mandatory and optional apart', () => {
  const r = coverage(validTrio());
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(covLines(r), [
    "R1: satisfied [mandatory] basis=['WT-1']",
    "R2: satisfied [optional] basis=['WT-2']",
    'summary: mandatory 1/1, optional 1/1, acceptable=true',
    '',
  ]);
});

test('partial: an evidenced claim that falls short of the floor (weight refused) -> partial, exit 1, reason below it', () => {
  const t = validTrio();
  const r = coverage({ ...t, pkg: inClaim(t.pkg, 'WT-1', WATCHED_FAIL, '\n') });
  assert.equal(r.code, 1, r.stdout);
  assert.deepEqual(covLines(r).slice(0, 4), [
    'R1: partial [mandatory] basis=[]',
    '  WT-1: weight required but refused: no watched-fail witness',
    "R2: satisfied [optional] basis=['WT-2']",
    'summary: mandatory 0/1, optional 1/1, acceptable=false',
  ]);
});

test('gap and deviation-declared: a claim with no evidence is a gap; with a [[deviation]] it is deviation-declared', () => {
  const t = validTrio();
  const gap = coverage({ ...t, pkg: withGapClaim(t.pkg) });
  assert.equal(gap.code, 1, gap.stdout);
  assert.deepEqual(covLines(gap).slice(0, 2), [
    'R1: gap [mandatory] basis=[]',
    "  WT-1: status is 'gap', not 'evidenced'",
  ]);
  const declared = coverage({ ...t, pkg: withGapClaim(t.pkg) + DEVIATION });
  assert.equal(declared.code, 1, 'a declared deviation is still not acceptable');
  assert.deepEqual(covLines(declared).slice(0, 2), [
    'R1: deviation-declared [mandatory] basis=[]',
    "  WT-1: status is 'gap', not 'evidenced'",
  ]);
  assert.match(declared.stdout, /^summary: mandatory 0\/1, optional 1\/1, acceptable=false$/m);
  // The package itself is valid with the deviation (and invalid without it).
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, { ...t, pkg: withGapClaim(t.pkg) + DEVIATION });
    assert.equal(
      vkit(['acceptance', 'check-package', PKG, '--spec', SPEC, ...TREE_FLAG('.'), '--root', repo.dir]).code,
      0,
    );
  } finally {
    repo.cleanup();
  }
});

test('partial beats deviation-declared: an evidenced claim that falls short stays partial even with a deviation', () => {
  const t = validTrio();
  const r = coverage({ ...t, pkg: inClaim(t.pkg, 'WT-1', WATCHED_FAIL, '\n') + DEVIATION });
  assert.match(r.stdout, /^R1: partial \[mandatory\] basis=\[\]$/m);
});

test('missing: a requirement no claim answers; the package is then invalid, so coverage is not acceptable', () => {
  const t = validTrio();
  const pkg = edit(t.pkg.slice(0, t.pkg.indexOf('[[claim]]\nid = "WT-2"')), 'claims_total = 2', 'claims_total = 1');
  const r = coverage({ ...t, pkg });
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, /^R1: satisfied \[mandatory\] basis=\['WT-1'\]$/m);
  assert.match(r.stdout, /^R2: missing \[optional\] basis=\[\]$/m);
  assert.match(r.stdout, /^summary: mandatory 1\/1, optional 0\/1, acceptable=false$/m);
  assert.match(r.stdout, /^not acceptable: the package check is invalid \(see above\)$/m);
});

test('floor reasons come in the documented order: each added failure earlier in the order takes over the reported reason', () => {
  let t = validTrio();
  const reason = (trio: Trio) => {
    const r = coverage(rebind(trio));
    const lines = covLines(r);
    assert.equal(lines[0], 'R1: partial [mandatory] basis=[]', r.stdout);
    return lines[1];
  };
  // independence: the record's author is the producer.
  t = { ...t, spec: inR1(t.spec, 'independence = "none"', 'independence = "author-not-producer"') };
  assert.equal(
    reason(t),
    "  WT-1: independence author-not-producer but evidence[0] author 'Example Producer' is the producer",
  );
  // freshness: the record was captured at another commit.
  t = {
    ...t,
    pkg: inClaim(t.pkg, 'WT-1', `captured_at_commit = "${DEFAULTS.commit}"`, `captured_at_commit = "${OTHER_COMMIT}"`),
  };
  assert.equal(
    reason(t),
    `  WT-1: freshness delivered-revision but evidence[0] was captured at '${OTHER_COMMIT}', not the subject commit ${DEFAULTS.commit}`,
  );
  // control: required, and the watched-fail witness is gone (weight no longer required, so it is not what fails first).
  t = {
    ...t,
    spec: inR1(
      inR1(t.spec, 'control_required = false', 'control_required = true'),
      'weighted_required = true',
      'weighted_required = false',
    ),
    pkg: inClaim(t.pkg, 'WT-1', WATCHED_FAIL, '\n'),
  };
  assert.equal(reason(t), '  WT-1: control required but there is no observed-red control or watched-fail witness');
  // methods: no passing record of a listed kind.
  t = { ...t, spec: inR1(t.spec, 'methods = ["unit-test"]', 'methods = ["property-test", "fuzz"]') };
  assert.equal(reason(t), "  WT-1: no passing record's kind is in methods [property-test, fuzz]");
  // tier: T3 evidence under a T2 floor.
  t = { ...t, spec: inR1(t.spec, 'min_tier = "T3"', 'min_tier = "T2"') };
  assert.equal(reason(t), '  WT-1: tier T3 does not reach min_tier T2');
  // weight: required again, and refused (no witness).
  t = { ...t, spec: inR1(t.spec, 'weighted_required = false', 'weighted_required = true') };
  assert.equal(reason(t), '  WT-1: weight required but refused: no watched-fail witness');
  // status: not evidenced.
  t = { ...t, pkg: inClaim(t.pkg, 'WT-1', 'status = "evidenced"', 'status = "partial"') };
  assert.equal(reason(t), "  WT-1: status is 'partial', not 'evidenced'");
});

test('a weaker floor is met by stronger evidence; freshness any ignores the capture commit; the weight requirement can be waived by the floor', () => {
  const t = validTrio();
  const spec = inR1(
    inR1(t.spec, 'min_tier = "T3"', 'min_tier = "T5"'),
    'weighted_required = true',
    'weighted_required = false',
  );
  const pkg = inClaim(inClaim(t.pkg, 'WT-1', WATCHED_FAIL, '\n'), 'WT-1', 'weight = "weighted"\n', '');
  const stale = inClaim(
    pkg,
    'WT-2',
    `captured_at_commit = "${DEFAULTS.commit}"`,
    `captured_at_commit = "${OTHER_COMMIT}"`,
  );
  const r = coverage(rebind({ ...t, spec, pkg: stale }));
  assert.equal(r.code, 0, r.stdout);
  assert.deepEqual(covLines(r).slice(0, 3), [
    "R1: satisfied [mandatory] basis=['WT-1']",
    "R2: satisfied [optional] basis=['WT-2']",
    'summary: mandatory 1/1, optional 1/1, acceptable=true',
  ]);
});

test('independence is judged from each record author against the parties', () => {
  const t = validTrio();
  const cases: [string, string | null, string][] = [
    ['consumer-run', 'Example Consumer', "R1: satisfied [mandatory] basis=['WT-1']"],
    [
      'consumer-run',
      'Example Producer',
      "  WT-1: independence consumer-run but evidence[0] author 'Example Producer' is the producer",
    ],
    ['third-party', 'Independent Lab', "R1: satisfied [mandatory] basis=['WT-1']"],
    [
      'third-party',
      'Example Consumer',
      "  WT-1: independence third-party but evidence[0] author 'Example Consumer' is the consumer",
    ],
    ['author-not-producer', 'Example Consumer', "R1: satisfied [mandatory] basis=['WT-1']"],
    ['author-not-producer', null, '  WT-1: independence author-not-producer but evidence[0] names no author'],
  ];
  for (const [level, author, want] of cases) {
    const spec = inR1(t.spec, 'independence = "none"', `independence = "${level}"`);
    const pkg = inClaim(
      t.pkg,
      'WT-1',
      `author = "${DEFAULTS.producer}"\n`,
      author === null ? '' : `author = "${author}"\n`,
    );
    const r = coverage(rebind({ ...t, spec, pkg }));
    assert.ok(covLines(r).slice(0, 2).includes(want), `${level}/${author}: expected ${want}\n${r.stdout}`);
  }
});

test('cross-cutting demands: every evidenced claim of the covered requirements must meet them; never vacuously satisfied', () => {
  const t = validTrio();
  const xc = (token: string, over = '["R1"]') => `
[[requirement]]
id = "R3"
statement = "every covering claim of R1 is unbounded"
mandatory = false
waivable = true
domain = "correctness"
clause_source = "consumer-statement"
kind = "cross-cutting"
over = ${over}

  [requirement.demands]
  weighted_required = true

  [requirement.demands.fields]
  bounds = "${token}"
`;
  const build = (token: string, over?: string) =>
    rebind({
      ...t,
      spec: t.spec + xc(token, over),
      pkg: edit(t.pkg, 'requirements_total = 2', 'requirements_total = 3'),
    });
  const unbounded = coverage(build('unbounded'));
  assert.deepEqual(covLines(unbounded).slice(2, 4), [
    'R3: partial [optional] basis=[]',
    "  WT-1: field bounds must start with 'unbounded', got 'bounded: 5 concrete input strings'",
  ]);
  const bounded = coverage(build('bounded'));
  assert.equal(bounded.code, 0, bounded.stdout);
  assert.ok(bounded.stdout.includes("R3: satisfied [optional] basis=['WT-1']\n"), bounded.stdout);
  const all = coverage(build('bounded', '"all"'));
  assert.ok(all.stdout.includes("R3: satisfied [optional] basis=['WT-1', 'WT-2']\n"), all.stdout);
});

const CHAIN_SPEC = `[document]
protocol = "acceptance-protocol/0.4"
kind = "specification"
id = "AS-CHAIN"
version = 1
issued_at = "2026-08-01T10:00:00Z"
issued_by = "consumer"
status = "issued"

[parties]
consumer = { name = "App", role = "lead" }
producer = { name = "App", role = "lead" }

[acceptance]
rule = "all-mandatory-satisfied"
authority = "App"
consumer_verification = "spot-check"
profiles_required = ["acceptance/verification"]

[[requirement]]
id = "runtime"
statement = "All dependencies are accepted."
mandatory = true
waivable = false
domain = "correctness"
clause_source = "consumer-statement"
kind = "chain"

  [requirement.chain]
  relations = ["runtime"]
  depth = "all"
  level = "C2"
  completeness = "verified"
  binds = "consumed"
  acceptors = ["ochre"]
  allow_conditions = false
  unaccepted = "refuse"
  max_elements = 500
`;

test('chain requirements take the stack result: pass satisfied, fail gap, undecidable indeterminate, unchecked missing, deviation declared', () => {
  const specDoc = parseDoc(Buffer.from(CHAIN_SPEC), 'spec.toml');
  const spec = checkSpecification(specDoc);
  assert.equal(spec.findings.errors, 0, JSON.stringify(spec.findings.list));
  const pkg = parseDoc(Buffer.from('[format]\nid = "acceptance/0.4"\n'), 'p.toml');
  const status = (chain?: Record<string, 'pass' | 'fail' | 'indeterminate'>, p = pkg) =>
    computeCoverage(spec, [], p, { chain }).requirements[0]!;
  assert.equal(status({ runtime: 'pass' }).status, 'satisfied');
  assert.equal(computeCoverage(spec, [], pkg, { chain: { runtime: 'pass' } }).acceptable, true);
  assert.equal(status({ runtime: 'fail' }).status, 'gap');
  assert.deepEqual(status({ runtime: 'fail' }).failures, [{ claim: '(stack)', reason: 'the stack check fails' }]);
  assert.equal(status({ runtime: 'indeterminate' }).status, 'indeterminate');
  assert.equal(status().status, 'missing');
  assert.equal(computeCoverage(spec, [], pkg, {}).acceptable, false);
  const withDeviation = parseDoc(
    Buffer.from('[[deviation]]\nrequirement = "runtime"\nkind = "unmet"\nreason = "x"\n'),
    'p.toml',
  );
  assert.equal(status({ runtime: 'fail' }, withDeviation).status, 'deviation-declared');
  // A declared deviation does not settle what the stack check cannot decide.
  assert.equal(status({ runtime: 'indeterminate' }, withDeviation).status, 'indeterminate');
  assert.deepEqual(renderCoverage(computeCoverage(spec, [], pkg, { chain: { runtime: 'fail' } })), [
    'runtime: gap [mandatory] basis=[]',
    '  (stack): the stack check fails',
    'summary: mandatory 0/1, optional 0/0, acceptable=false',
  ]);
});

test('durations: Y = 365 days, M = 30, W = 7, time parts ignored; anything else is not a duration', () => {
  const good: [string, number][] = [
    ['P180D', 180],
    ['P1Y', 365],
    ['P6M', 180],
    ['P2W', 14],
    ['P1Y2M10DT2H', 435],
    ['PT2H', 0],
    ['P0D', 0],
    ['P1W3D', 10],
    ['P1DT30M', 1],
  ];
  for (const [text, days] of good) assert.equal(durationDays(text), days, text);
  for (const bad of ['P', 'PT', 'P1DT', '180D', 'P-1D', 'P1.5D', 'p180d', 'P1D ', '', 'P1H', 180, undefined, null])
    assert.equal(durationDays(bad), undefined, String(bad));
});
