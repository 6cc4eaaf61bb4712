/**
 * check-spec and check-package through the real CLI: the valid trio passes; each specification
 * rule and each package rule, broken by one edit, fails with its exact message, line and exit
 * code; a one-byte change to the specification makes the package's binding stale.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestsDiffer } from '../../../rules/accept/lib/digests.js';
import { tempRepo, vkit, type CliResult } from '../../_support/repo.js';
import {
  DEFAULTS,
  edit,
  m11,
  rebind,
  TREE_FLAG,
  validTrio,
  writeTrio,
  type Trio,
} from '../../_support/acceptance-docs.js';

const SPEC = 'acceptance-specification.toml';
const PKG = 'acceptance.toml';

/** Writes the trio into a fresh git repo and runs one verb there. */
function run(
  trio: Trio,
  verb: 'check-spec' | 'check-package' | 'coverage',
  extra: string[] = [],
): CliResult & { dir: string } {
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    const args =
      verb === 'check-spec' ? ['acceptance', verb, SPEC] : ['acceptance', verb, PKG, '--spec', SPEC, ...TREE_FLAG('.')];
    return { ...vkit([...args, '--root', repo.dir, ...extra]), dir: repo.dir };
  } finally {
    repo.cleanup();
  }
}

/** 1-based line of the `nth` (1-based) line containing `needle`. */
function lineOf(text: string, needle: string, nth = 1): number {
  const lines = text.split('\n');
  for (let i = 0, seen = 0; i < lines.length; i++) if (lines[i]!.includes(needle) && ++seen === nth) return i + 1;
  return 0;
}

test('the valid trio: check-spec, check-package and coverage all exit 0, with the documented lines', () => {
  const trio = validTrio();
  const s = run(trio, 'check-spec');
  assert.equal(s.code, 0, s.stdout + s.stderr);
  assert.equal(s.stdout, `VALID ${SPEC}: specification 'AS-TEST-0001', 2 requirements (1 mandatory), binding\n`);
  const p = run(trio, 'check-package');
  assert.equal(p.code, 0, p.stdout + p.stderr);
  assert.deepEqual(p.stdout.trim().split('\n').slice(-4), [
    "R1: satisfied [mandatory] basis=['WT-1']",
    "R2: satisfied [optional] basis=['WT-2']",
    'summary: mandatory 1/1, optional 1/1, acceptable=true',
    `VALID ${PKG} against ${SPEC}`,
  ]);
  const c = run(trio, 'coverage');
  assert.equal(c.code, 0, c.stdout + c.stderr);
  const j = run(trio, 'check-package', ['--json']).json();
  assert.equal(j.schema, 'vkit.acceptance-check-package/1');
  assert.equal(j.status, 'valid');
  assert.equal(j.binding, true);
  assert.deepEqual(j.coverage.mandatory, { met: 1, total: 1 });
  assert.deepEqual(
    j.coverage.requirements.map((r: { status: string }) => r.status),
    ['satisfied', 'satisfied'],
  );
  const sj = run(trio, 'check-spec', ['--json']).json();
  assert.deepEqual(
    sj.requirements.map((r: { id: string; mandatory: boolean }) => [r.id, r.mandatory]),
    [
      ['R1', true],
      ['R2', false],
    ],
  );
  assert.equal(sj.requirements[0].evidence.freshness, 'delivered-revision');
});

/** Specification rules: one edit each -> exit 1 and the exact ERROR line (with its line number). */
const SPEC_CASES: { name: string; from: string | RegExp; to: string; message: string; at: string; nth?: number }[] = [
  {
    name: 'protocol',
    from: 'protocol = "acceptance-protocol/0.4"',
    to: 'protocol = "acceptance-protocol/0.5"',
    message: "[document].protocol must be 'acceptance-protocol/0.4', got 'acceptance-protocol/0.5'",
    at: 'protocol =',
  },
  {
    name: 'kind',
    from: 'kind = "specification"',
    to: 'kind = "decision"',
    message: "[document].kind must be 'specification', got 'decision'",
    at: 'kind = "decision"',
  },
  {
    name: 'id',
    from: 'id = "AS-TEST-0001"',
    to: 'id = ""',
    message: '[document].id must be a non-empty string',
    at: 'id = ""',
  },
  {
    name: 'version',
    from: 'version = 1',
    to: 'version = "1"',
    message: "[document].version must be an integer, got '1'",
    at: 'version =',
  },
  {
    name: 'issued_at',
    from: 'issued_at = "2026-08-01T10:00:00Z"',
    to: 'issued_at = "2026-08-01"',
    message:
      "[document].issued_at must be an RFC 3339 date-time with an offset (2026-08-01T10:00:00Z), got '2026-08-01'",
    at: 'issued_at =',
  },
  {
    name: 'issued_by',
    from: 'issued_by = "consumer"',
    to: 'issued_by = "vendor"',
    message: "[document].issued_by must be one of consumer, producer, got 'vendor'",
    at: 'issued_by =',
  },
  {
    name: 'status',
    from: 'status = "issued"',
    to: 'status = "final"',
    message: "[document].status must be one of draft, issued, ratified, superseded, withdrawn, got 'final'",
    at: 'status =',
  },
  {
    name: 'party role',
    from: 'consumer = { name = "Example Consumer", role = "platform-lead" }',
    to: 'consumer = { name = "Example Consumer" }',
    message: '[parties].consumer.role must be a non-empty string',
    at: 'consumer = {',
  },
  {
    name: 'rule',
    from: 'rule = "all-mandatory-satisfied"',
    to: 'rule = "majority"',
    message: "[acceptance].rule must be 'all-mandatory-satisfied', got 'majority'",
    at: 'rule =',
  },
  {
    name: 'authority',
    from: 'authority = "Example Consumer"',
    to: 'authority = "Somebody Else"',
    message: "[acceptance].authority 'Somebody Else' is not a party name ('Example Consumer', 'Example Producer')",
    at: 'authority =',
  },
  {
    name: 'consumer_verification',
    from: 'consumer_verification = "re-execute-all"',
    to: 'consumer_verification = "trust-me"',
    message:
      "[acceptance].consumer_verification must be one of package-trusted, spot-check, re-execute-all, got 'trust-me'",
    at: 'consumer_verification =',
  },
  {
    name: 'profiles_required',
    from: 'profiles_required = ["acceptance/verification"]',
    to: 'profiles_required = "acceptance/verification"',
    message: '[acceptance].profiles_required must be a list of non-empty strings',
    at: 'profiles_required =',
  },
  {
    name: 'stale_after',
    from: 'stale_after = "P180D"',
    to: 'stale_after = "180 days"',
    message: "[acceptance].stale_after must be an ISO-8601 duration such as P180D, got '180 days'",
    at: 'stale_after =',
  },
  {
    name: 'duplicate id',
    from: 'id = "R2"',
    to: 'id = "R1"',
    message: "requirement 'R1': duplicate requirement id",
    at: 'id = "R1"',
    nth: 2,
  },
  {
    name: 'requirement kind',
    from: 'id = "R2"\n',
    to: 'id = "R2"\nkind = "bundle"\n',
    message: "requirement 'R2': kind must be one of item, cross-cutting, chain, got 'bundle'",
    at: 'kind = "bundle"',
  },
  {
    name: 'mandatory',
    from: 'mandatory = false',
    to: 'mandatory = "no"',
    message: "requirement 'R2': mandatory must be true or false",
    at: 'mandatory = "no"',
  },
  {
    name: 'domain',
    from: 'domain = "correctness"\nclause_source = "consumer-statement"\n\n  [requirement.evidence]\n  min_tier = "T3"\n  weighted_required = true\n  control_required = false\n  freshness = "any"',
    to: 'domain = "vibes"\nclause_source = "consumer-statement"\n\n  [requirement.evidence]\n  min_tier = "T3"\n  weighted_required = true\n  control_required = false\n  freshness = "any"',
    message:
      "requirement 'R2': domain must be one of correctness, safety, security, performance, compatibility, documentation, packaging, process, legal, information-flow, availability, other, got 'vibes'",
    at: 'domain = "vibes"',
  },
  {
    name: 'min_tier',
    from: /min_tier = "T3"(?=\n {2}weighted_required = true\n {2}control_required = false\n {2}freshness = "delivered)/,
    to: 'min_tier = "T6"',
    message: "requirement 'R1': evidence.min_tier must be one of T1, T2, T3, T4, T5, got 'T6'",
    at: 'min_tier = "T6"',
  },
  {
    name: 'freshness',
    from: 'freshness = "delivered-revision"',
    to: 'freshness = "latest"',
    message: "requirement 'R1': evidence.freshness must be one of delivered-revision, any, got 'latest'",
    at: 'freshness = "latest"',
  },
  {
    name: 'independence',
    from: /independence = "none"\n {2}methods/,
    to: 'independence = "paranoid"\n  methods',
    message:
      "requirement 'R1': evidence.independence must be one of none, author-not-producer, consumer-run, third-party, got 'paranoid'",
    at: 'independence = "paranoid"',
  },
  {
    name: 'methods',
    from: 'methods = ["unit-test"]',
    to: 'methods = []',
    message: "requirement 'R1': evidence.methods must be a non-empty list of evidence kinds",
    at: 'methods = []',
  },
  {
    name: 'no evidence floor',
    from: /\n {2}\[requirement\.evidence\]\n {2}min_tier = "T3"\n {2}weighted_required = true\n {2}control_required = false\n {2}freshness = "any"\n {2}independence = "none"\n/,
    to: '\n',
    message: "requirement 'R2': an item requirement needs [requirement.evidence]",
    at: '[[requirement]]',
    nth: 2,
  },
  {
    name: 'no mandatory requirement',
    from: 'mandatory = true',
    to: 'mandatory = false',
    message: 'a specification needs at least one mandatory requirement: with none, acceptance would be vacuous',
    at: '[[requirement]]',
  },
  {
    name: 'chain fields',
    from: 'id = "R2"\n',
    to: 'id = "R3"\nstatement = "deps accepted"\nmandatory = false\nwaivable = false\ndomain = "correctness"\nclause_source = "consumer-statement"\nkind = "chain"\n\n  [requirement.chain]\n  relations = ["runtime"]\n  depth = "all"\n  level = "C3"\n  completeness = "verified"\n  binds = "consumed"\n  acceptors = ["a"]\n  allow_conditions = false\n  unaccepted = "refuse"\n  max_elements = 10\n\n[[requirement]]\nid = "R2"\n',
    message: "requirement 'R3': chain.level must be C1 or C2, got 'C3'",
    at: 'level = "C3"',
  },
];

for (const c of SPEC_CASES) {
  test(`check-spec rule: ${c.name}`, () => {
    const trio = validTrio();
    const spec = edit(trio.spec, c.from, c.to);
    const r = run({ ...trio, spec }, 'check-spec');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const line = lineOf(spec, c.at, c.nth);
    assert.ok(
      r.stdout.includes(`ERROR ${SPEC}: ${c.message} (line ${line})\n`),
      `expected\nERROR ${SPEC}: ${c.message} (line ${line})\ngot\n${r.stdout}`,
    );
    assert.match(r.stdout, new RegExp(`^INVALID ${SPEC} \\(\\d+ errors?, \\d+ warnings?\\)$`, 'm'));
  });
}

test('check-spec: a floor vkit cannot evaluate, or an assurance class, is indeterminate (exit 3), never ignored', () => {
  const trio = validTrio();
  const r = run(
    {
      ...trio,
      spec: edit(
        trio.spec,
        'methods = ["unit-test"]',
        'methods = ["unit-test"]\n  coverage_min = { metric = "branch", value = 0.9 }',
      ),
    },
    'check-spec',
  );
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /WARN acceptance-specification\.toml: INDETERMINATE: requirement 'R1': evidence\.coverage_min is a floor this vkit cannot evaluate \(line \d+\)/,
  );
  assert.match(r.stdout, /^INDETERMINATE acceptance-specification\.toml/m);
  const a = run(
    {
      ...trio,
      spec: edit(trio.spec, 'stale_after = "P180D"', 'stale_after = "P180D"\nassurance_class = "vkit-class/3"'),
    },
    'check-spec',
  );
  assert.equal(a.code, 3, a.stdout);
  assert.match(a.stdout, /assurance_class 'vkit-class\/3' cannot be evaluated/);
});

test('binding: a producer-issued specification is valid but binds only once ratified; check-package refuses it until then', () => {
  const trio = validTrio();
  const proposal = rebind({ ...trio, spec: edit(trio.spec, 'issued_by = "consumer"', 'issued_by = "producer"') });
  const s = run(proposal, 'check-spec');
  assert.equal(s.code, 0, s.stdout);
  assert.match(s.stdout, /^NOTE acceptance-specification\.toml: not binding: status 'issued', issued_by 'producer'/m);
  assert.match(s.stdout, /, not binding$/m);
  const p = run(proposal, 'check-package');
  assert.equal(p.code, 1, p.stdout);
  assert.ok(
    p.stdout.includes(
      `ERROR ${PKG}: the specification ${SPEC} is not binding (status 'issued', issued_by 'producer': a producer-issued specification binds only once ratified by the consumer): a package binds only a binding specification (line ${lineOf(proposal.pkg, '[specification]')})`,
    ),
    p.stdout,
  );

  const unratified = rebind({
    ...trio,
    spec: edit(
      edit(trio.spec, 'issued_by = "consumer"', 'issued_by = "producer"'),
      'status = "issued"',
      'status = "ratified"',
    ),
  });
  const u = run(unratified, 'check-spec');
  assert.equal(u.code, 1, u.stdout);
  assert.match(u.stdout, /\[ratification\] \{by, at\} is required when issued_by = 'producer' and status = 'ratified'/);

  const wrongBy = rebind({
    ...unratified,
    spec: `${unratified.spec}\n[ratification]\nby = "Example Producer"\nat = "2026-08-02T09:00:00Z"\n`,
  });
  const w = run(wrongBy, 'check-spec');
  assert.equal(w.code, 1, w.stdout);
  assert.match(w.stdout, /\[ratification\]\.by must be the consumer 'Example Consumer', got 'Example Producer'/);

  const ratified = rebind({
    ...unratified,
    spec: `${unratified.spec}\n[ratification]\nby = "Example Consumer"\nat = "2026-08-02T09:00:00Z"\n`,
  });
  assert.equal(run(ratified, 'check-spec').code, 0);
  const ok = run(ratified, 'check-package');
  assert.equal(ok.code, 0, ok.stdout);

  const draft = rebind({ ...trio, spec: edit(trio.spec, 'status = "issued"', 'status = "draft"') });
  const d = run(draft, 'check-package');
  assert.equal(d.code, 1);
  assert.match(
    d.stdout,
    /is not binding \(status 'draft': only an issued \(consumer\) or ratified specification binds\)/,
  );
});

test('unreadable input is exit 2: a 0.3 specification names the migrate verb, bad TOML names its line, usage errors', () => {
  const trio = validTrio();
  const old = run(
    { ...trio, spec: edit(trio.spec, 'protocol = "acceptance-protocol/0.4"', 'protocol = "acceptance-protocol/0"') },
    'check-spec',
  );
  assert.equal(old.code, 2, old.stdout + old.stderr);
  assert.match(old.stderr, /acceptance 0\.3 document/);
  assert.match(old.stderr, /vkit acceptance migrate/);
  const oldPkg = run(
    { ...trio, pkg: edit(trio.pkg, 'id = "acceptance/0.4"', 'id = "acceptance/0.3"') },
    'check-package',
  );
  assert.equal(oldPkg.code, 2, oldPkg.stdout + oldPkg.stderr);
  const bad = run({ ...trio, spec: edit(trio.spec, 'version = 1', 'version = = 1') }, 'check-spec');
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, new RegExp(`${SPEC}:${lineOf(trio.spec, 'version = 1')}`));
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    for (const args of [
      ['acceptance', 'check-package', PKG, '--root', repo.dir],
      ['acceptance', 'check-package', '--spec', SPEC, '--root', repo.dir],
      ['acceptance', 'check-package', PKG, '--spec', 'missing.toml', '--root', repo.dir],
      ['acceptance', 'coverage', PKG, '--spec', SPEC, '--store', 'noequals', '--root', repo.dir],
      ['acceptance', 'check-spec', '--root', repo.dir],
      ['acceptance', 'check-spec', SPEC, '--bogus', '--root', repo.dir],
    ]) {
      const r = vkit(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    }
    for (const verb of ['check-spec', 'check-package', 'coverage'])
      assert.equal(vkit(['acceptance', verb, '--help']).code, 0);
  } finally {
    repo.cleanup();
  }
});

test('a stale [specification] hash: one changed byte of the specification fails check-package (exit 1), naming the hash', () => {
  const trio = validTrio();
  const spec = edit(trio.spec, 'slug(s) never returns whitespace', 'slug(s) never returns Whitespace');
  const r = run({ ...trio, spec }, 'check-package');
  assert.equal(r.code, 1, r.stdout);
  const recorded = m11('specification', trio.spec);
  const computed = m11('specification', spec);
  assert.ok(
    r.stdout.includes(
      `ERROR ${PKG}: [specification].hash does not match ${SPEC}: recorded and computed digests ${digestsDiffer(recorded, computed)} (the specification changed since the package bound it;`,
    ),
    r.stdout,
  );
  assert.ok(r.stdout.includes(`(line ${lineOf(trio.pkg, 'hash = "specification:')})`), r.stdout);
  assert.equal(run({ ...trio, spec }, 'coverage').code, 1, 'coverage over a stale binding is never acceptable');
  // Rebinding (what the producer does after re-reading the specification) makes it valid again.
  assert.equal(run(rebind({ ...trio, spec }), 'check-package').code, 0);
});

/** Package rules: one edit each -> exit 1 and the exact ERROR message. */
const PKG_CASES: { name: string; change: (t: Trio) => Trio; message: string; at?: string }[] = [
  {
    name: 'bare hash form',
    change: (t) => ({ ...t, pkg: t.pkg.replace(/hash = "specification:(sha-512:[0-9a-f]{128})"/, 'hash = "$1"') }),
    message: "[specification].hash uses the retired bare form 'sha-512:<hex>'; write 'specification:sha-512:<128 hex>'",
    at: 'hash = "sha-512:',
  },
  {
    name: 'specification id',
    change: (t) => ({ ...t, pkg: edit(t.pkg, 'id = "AS-TEST-0001"', 'id = "AS-OTHER"') }),
    message: "[specification].id 'AS-OTHER' does not match the specification's [document].id 'AS-TEST-0001'",
    at: 'id = "AS-OTHER"',
  },
  {
    name: 'requirements_total',
    change: (t) => ({ ...t, pkg: edit(t.pkg, 'requirements_total = 2', 'requirements_total = 3') }),
    message: "[specification].requirements_total 3 does not equal the specification's 2 requirements",
    at: 'requirements_total',
  },
  {
    name: 'missing [specification]',
    change: (t) => ({
      ...t,
      pkg: edit(t.pkg, /\[specification\]\nid = "AS-TEST-0001"\nhash = "[^"]+"\nrequirements_total = 2\n/, ''),
    }),
    message: '[specification] {id, hash, requirements_total} is missing: a package binds the specification it answers',
  },
  {
    name: 'unresolved clause',
    change: (t) => ({ ...t, pkg: edit(t.pkg, 'clause = "R2"', 'clause = "R9"') }),
    message: "claim 'WT-2': clause 'R9' is not a requirement of specification 'AS-TEST-0001'",
    at: 'clause = "R9"',
  },
  {
    name: 'item requirement without a claim',
    change: (t) => ({ ...t, pkg: edit(t.pkg, 'clause = "R2"', 'clause = "R1"') }),
    message:
      "requirement 'R2': no [[claim]] answers it; every item requirement needs at least one claim (a gap claim when nothing checks it yet)",
  },
  {
    name: 'deviation kind, reason and requirement',
    change: (t) => ({ ...t, pkg: `${t.pkg}\n[[deviation]]\nrequirement = "R7"\nkind = "oops"\n` }),
    message:
      "deviation[0] (requirement 'R7'): kind must be one of unmet, partial, alternative, not-applicable, requirement-defect, got 'oops'",
    at: 'kind = "oops"',
  },
  {
    name: 'deviation reason',
    change: (t) => ({ ...t, pkg: `${t.pkg}\n[[deviation]]\nrequirement = "R2"\nkind = "partial"\n` }),
    message: "deviation[0] (requirement 'R2'): reason must be a non-empty string",
    at: '[[deviation]]',
  },
  {
    name: 'required profile',
    change: (t) =>
      rebind({
        ...t,
        spec: edit(
          t.spec,
          'profiles_required = ["acceptance/verification"]',
          'profiles_required = ["acceptance/verification/code/rust"]',
        ),
      }),
    message:
      "required profile 'acceptance/verification/code/rust' is not the package's [format].profile ('acceptance/verification')",
    at: 'profile =',
  },
  {
    name: 'two subject identities',
    change: (t) => ({
      ...t,
      pkg: edit(t.pkg, 'dirty = false\n', `dirty = false\ndigest = "${m11('subject', 'x')}"\n`),
    }),
    message:
      '[subject] must carry exactly one certified identity (commit + dirty, digest, or components + digest) to answer a specification; it carries more than one',
    at: '[subject]',
  },
  {
    name: 'the format validator fails',
    change: (t) => ({ ...t, files: { ...t.files, 'evidence/wt1-run.txt': 'tampered\n' } }),
    message: 'the format validator fails (',
  },
];

for (const c of PKG_CASES) {
  test(`check-package rule: ${c.name}`, () => {
    const trio = c.change(validTrio());
    const r = run(trio, 'check-package');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const want = `ERROR ${PKG}: ${c.message}`;
    const line = r.stdout.split('\n').find((l) => l.startsWith(want));
    assert.ok(line, `expected a line starting\n${want}\ngot\n${r.stdout}`);
    if (c.at)
      assert.ok(
        line.endsWith(` (line ${lineOf(trio.pkg, c.at)})`),
        `${line} should point at line ${lineOf(trio.pkg, c.at)}`,
      );
    assert.match(r.stdout, new RegExp(`^INVALID ${PKG} against ${SPEC} \\(\\d+ errors?`, 'm'));
  });
}

test('an unmet mandatory requirement needs a [[deviation]]; declaring one makes the package valid, and coverage still says not acceptable', () => {
  const trio = validTrio();
  // WT-1 loses its watched-fail witness: weight refused, so R1 (weighted_required) is partial.
  const pkg = edit(
    trio.pkg,
    /\n {4}\[claim\.self_verify\.watched_fail\]\n {4}of_command = "node test\/slug-test\.js"\n( {4}.*\n){3}/,
    '\n',
  );
  const r = run({ ...trio, pkg }, 'check-package');
  assert.equal(r.code, 1, r.stdout);
  assert.ok(
    r.stdout.includes(
      `ERROR ${PKG}: requirement 'R1' is mandatory and coverage is 'partial', but no [[deviation]] names it`,
    ),
    r.stdout,
  );
  const declared =
    pkg +
    '\n[[deviation]]\nrequirement = "R1"\nkind = "partial"\nreason = "the watched-fail run is scheduled for the next release"\n';
  const ok = run({ ...trio, pkg: declared }, 'check-package');
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /^R1: partial \[mandatory\] basis=\[\]$/m);
  const cov = run({ ...trio, pkg: declared }, 'coverage');
  assert.equal(cov.code, 1, cov.stdout);
  assert.match(cov.stdout, /^summary: mandatory 0\/1, optional 1\/1, acceptable=false$/m);
});

test('subject identity is verified: without --tree the fake commit cannot be tied to the bytes (exit 1); a real commit verifies', () => {
  const trio = validTrio();
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    const r = vkit(['acceptance', 'check-package', PKG, '--spec', SPEC, '--root', repo.dir]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /ERROR acceptance\.toml: subject commit 1c65772c4f07 is not in the git repository at --root/,
    );
  } finally {
    repo.cleanup();
  }
  // A real commit of the subject directory, with the documents written afterwards outside it.
  const real = tempRepo({ 'app/slug.js': 'export const slug = (s) => s.toLowerCase();\n' });
  try {
    const commit = real.commitAll();
    const t = validTrio({ commit, subjectRoot: 'app' });
    writeTrio(real.dir, t);
    const ok = vkit(['acceptance', 'check-package', PKG, '--spec', SPEC, '--root', real.dir]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    real.write('app/slug.js', 'export const slug = (s) => s;\n');
    const changed = vkit(['acceptance', 'check-package', PKG, '--spec', SPEC, '--root', real.dir]);
    assert.equal(changed.code, 1, changed.stdout);
    assert.match(changed.stdout, /app\/slug\.js` differs from commit/);
  } finally {
    real.cleanup();
  }
  assert.equal(DEFAULTS.commit.length, 40);
});
