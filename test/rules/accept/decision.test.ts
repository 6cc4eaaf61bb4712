/**
 * `vkit acceptance check-decision` and `decide` through the real CLI, on the shared valid trio
 * (test/_support/acceptance-docs.ts) written into temp git repositories. The subject commit is not in those
 * repositories, so every run passes `--tree COMMIT=.`; the trio's subject (`slug/`) is pinned by
 * its records' `inputs`, so the subject check stays valid with a NOTE saying so (the subject's own
 * rules are the subject and tree-unverified suites').
 * Hashes in expectations come from node:crypto (via acceptance-docs.ts), never from vkit.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { digestsDiffer } from '../../../rules/accept/lib/digests.js';
import {
  CHECK_DECISION,
  DEFAULTS,
  edit,
  m11,
  rebind,
  TRIO_PATHS,
  validTrio,
  writeTrio,
  type Trio,
} from '../../_support/acceptance-docs.js';
import { tempRepo, vkit as vkitRaw, type TempRepo } from '../../_support/repo.js';

const TREE = `${DEFAULTS.commit}=.`;

/** The real CLI; an internal error (exit 4) fails at once with its stderr, whatever the test expected. */
function vkit(args: string[]) {
  const r = vkitRaw(args);
  if (r.code === 4) assert.fail(`vkit ${args.join(' ')} crashed (exit 4):\n${r.stderr}`);
  return r;
}

function setup(trio: Trio): TempRepo {
  const repo = tempRepo();
  writeTrio(repo.dir, trio);
  return repo;
}

function check(repo: TempRepo, ...extra: string[]) {
  return vkit([...CHECK_DECISION, '--root', repo.dir, '--tree', TREE, ...extra]);
}

/** Runs `body` on a fresh repo holding `trio`, always cleaning up. */
function withTrio(trio: Trio, body: (repo: TempRepo) => void): void {
  const repo = setup(trio);
  try {
    body(repo);
  } finally {
    repo.cleanup();
  }
}

const errorLines = (out: string) => out.split('\n').filter((l) => l.startsWith('ERROR '));

/** Replaces the first occurrence only (for texts where a key repeats per claim); fails when absent. */
function first(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  assert.ok(at >= 0, `first: ${from} not found`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

test('the full valid trio passes check-decision via the real CLI; --json carries the schema and the verdict', () => {
  withTrio(validTrio(), (repo) => {
    const r = check(repo);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^DECISION VALID acceptance-decision\.toml: verdict accepted by Example Consumer \/ platform-lead at 2026-09-01T10:00:00Z \(0 errors, 0 warnings\)$/m,
    );
    assert.doesNotMatch(r.stdout, /self-acceptance/);
    const j = check(repo, '--json');
    assert.equal(j.code, 0);
    const json = j.json();
    assert.equal(json.schema, 'vkit.acceptance-decision-check/1');
    assert.equal(json.status, 'valid');
    assert.equal(json.verdict, 'accepted');
    assert.deepEqual(json.issuer, { name: 'Example Consumer', role: 'platform-lead' });
    assert.equal(json.effect, null);
  });
});

test('one byte of the package changed: stale (exit 1) naming the package; rebinding makes it valid again', () => {
  const t = validTrio();
  const changed = { ...t, pkg: edit(t.pkg, 'acceptance.toml for slug().', 'acceptance.toml for slug()!') };
  assert.equal(Buffer.byteLength(changed.pkg), Buffer.byteLength(t.pkg));
  withTrio(changed, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const stale = errorLines(r.stdout).filter((l) => l.includes('stale: renewed decision required'));
    assert.equal(stale.length, 1, r.stdout);
    assert.match(
      stale[0]!,
      /^ERROR acceptance-decision\.toml: stale: renewed decision required: the package acceptance\.toml changed since the decision \(bound and presented digests first differ at hex digit \d+ of 128: […0-9a-f ]+ vs […0-9a-f ]+\) \(line \d+\)$/,
    );
    assert.ok(
      stale[0]!.includes(digestsDiffer(m11('manifest', t.pkg), m11('manifest', changed.pkg))),
      'the presented digest is the one of the changed bytes',
    );
    assert.match(r.stdout, /^DECISION STALE acceptance-decision\.toml: stale: renewed decision required/m);
    assert.equal(check(repo, '--json').json().status, 'stale');
    // --effect on a stale decision: ineligible, exit 1.
    const e = check(repo, '--effect', '--now', '2026-10-01');
    assert.equal(e.code, 1);
    assert.match(e.stdout, /^EFFECT-INELIGIBLE: the decision is stale: renewed decision required$/m);
  });
  withTrio(rebind(changed), (repo) => assert.equal(check(repo).code, 0));
});

test('one byte of the specification changed (package re-bound to it, decision not): stale naming the specification', () => {
  const t = validTrio();
  const spec = edit(t.spec, 'what slug() must do.', 'what slug() must do!');
  const pkg = t.pkg.replace(m11('specification', t.spec), m11('specification', spec));
  withTrio({ ...t, spec, pkg }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /ERROR acceptance-decision\.toml: stale: renewed decision required: the specification acceptance-specification\.toml changed since the decision/,
    );
    assert.doesNotMatch(
      r.stdout,
      /ERROR acceptance\.toml/,
      'the package itself is valid against the new specification',
    );
  });
});

test('self-acceptance: valid with a NOTE; a requirement demanding more independence cannot be satisfied', () => {
  const solo = validTrio({ consumer: 'Solo Dev', producer: 'Solo Dev' });
  withTrio(solo, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 0, r.stdout);
    assert.match(
      r.stdout,
      /^NOTE acceptance-decision\.toml: self-acceptance: the issuer 'Solo Dev' is also the producer; the decision's independence is none/m,
    );
  });
  // R1 now demands author-not-producer; its record is authored by a lab, so coverage is satisfied,
  // but the decision itself is the producer's: R1 is not satisfied.
  let t = {
    ...solo,
    spec: edit(solo.spec, 'independence = "none"\n  methods', 'independence = "author-not-producer"\n  methods'),
  };
  t = rebind({ ...t, pkg: first(t.pkg, 'author = "Solo Dev"', 'author = "Lab X"') });
  withTrio(t, (repo) => {
    const cov = vkit([
      'acceptance',
      'coverage',
      TRIO_PATHS.pkg,
      '--spec',
      TRIO_PATHS.spec,
      '--root',
      repo.dir,
      '--tree',
      TREE,
    ]);
    assert.match(cov.stdout, /^R1: satisfied/m, 'coverage alone is satisfied');
    const r = check(repo);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /disposition 'R1': requirement 'R1' demands independence 'author-not-producer', but the issuer is also the producer \(decision independence none\): it is not satisfied/,
    );
    // Recording it unsatisfied (so rejected) is a valid decision.
    const rejected = rebind({
      ...t,
      decision: edit(
        edit(t.decision, 'requirement = "R1"\nstatus = "satisfied"', 'requirement = "R1"\nstatus = "unsatisfied"'),
        'verdict = "accepted"',
        'verdict = "rejected"',
      ),
    });
    writeTrio(repo.dir, rejected);
    const ok = check(repo);
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /DECISION VALID .*verdict rejected/);
  });
});

test('a dirty subject cannot be decided on', () => {
  const t = validTrio();
  withTrio(rebind({ ...t, pkg: edit(t.pkg, 'dirty = false', 'dirty = true') }), (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /ERROR acceptance-decision\.toml: the package subject is dirty \(dirty = true\): a dirty subject cannot be decided on/,
    );
  });
});

test('the recorded verdict must be the table verdict; optional dispositions never change it', () => {
  const t = validTrio();
  withTrio(rebind({ ...t, decision: edit(t.decision, 'verdict = "accepted"', 'verdict = "rejected"') }), (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /\[document\]\.verdict 'rejected' does not follow from the dispositions: the verdict table gives 'accepted' \(row 4/,
    );
  });
  // R2 is optional: unsatisfied there still gives accepted.
  withTrio(
    {
      ...t,
      decision: edit(
        t.decision,
        'requirement = "R2"\nstatus = "satisfied"',
        'requirement = "R2"\nstatus = "unsatisfied"',
      ),
    },
    (repo) => {
      const r = check(repo);
      assert.equal(r.code, 0, r.stdout);
      assert.match(r.stdout, /verdict accepted/);
    },
  );
  // A mandatory requirement without a disposition, and an issuer who is not the authority.
  withTrio(
    { ...t, decision: edit(t.decision, 'issuer = { name = "Example Consumer"', 'issuer = { name = "Someone Else"') },
    (repo) => {
      const r = check(repo);
      assert.equal(r.code, 1);
      assert.match(
        r.stdout,
        /\[document\]\.issuer\.name 'Someone Else' is not the specification's authority 'Example Consumer' \(line 7\)/,
      );
    },
  );
  withTrio(
    {
      ...t,
      decision: edit(t.decision, '[[disposition]]\nrequirement = "R1"\nstatus = "satisfied"\nbasis = ["WT-1"]\n', ''),
    },
    (repo) => {
      const r = check(repo);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /requirement 'R1' has no \[\[disposition\]\]/);
    },
  );
});

test('a failing run on a basis claim forces the requirement unsatisfied; under re-execute-all each basis claim needs a passing run', () => {
  const t = validTrio();
  const failed = edit(
    t.decision,
    'observed = "SLUG PASS: 5 cases"\nresult = "pass"\nat = "2026-09-01T09:00:00Z"',
    'observed = "SLUG FAILED: 2/5 cases"\nresult = "fail"\nat = "2026-09-01T09:00:00Z"',
  );
  withTrio({ ...t, decision: failed }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /disposition 'R1': a failing run on basis claim 'WT-1' forces requirement 'R1' unsatisfied, not 'satisfied' \(line \d+\)/,
    );
  });
  withTrio(
    {
      ...t,
      decision: edit(
        edit(failed, 'requirement = "R1"\nstatus = "satisfied"', 'requirement = "R1"\nstatus = "unsatisfied"'),
        'verdict = "accepted"',
        'verdict = "rejected"',
      ),
    },
    (repo) => {
      const r = check(repo);
      assert.equal(r.code, 0, 'a valid rejection exits 0: the verdict does not set the exit code');
      assert.match(r.stdout, /DECISION VALID .*verdict rejected/);
    },
  );
  const notRun = edit(
    t.decision,
    'result = "pass"\nat = "2026-09-01T09:00:00Z"',
    'result = "not-run"\nat = "2026-09-01T09:00:00Z"',
  );
  withTrio({ ...t, decision: notRun }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /under re-execute-all basis claim 'WT-1' \(not-run\) did not pass/);
  });
  const noRun = edit(
    t.decision,
    '[[verification.run]]\nclaim = "WT-1"\ncommand = "node test/slug-test.js"\nobserved = "SLUG PASS: 5 cases"\nresult = "pass"\nat = "2026-09-01T09:00:00Z"\n',
    '',
  );
  withTrio({ ...t, decision: noRun }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /basis claim 'WT-1' has no \[\[verification\.run\]\]; under re-execute-all every basis claim needs its own passing run/,
    );
  });
});

test('satisfied where coverage does not support it is invalid', () => {
  const t = validTrio();
  // R1 now needs T2; the unit-test record is T3, so coverage is partial. The package declares it.
  const spec = edit(
    t.spec,
    'min_tier = "T3"\n  weighted_required = true\n  control_required = false\n  freshness = "delivered-revision"',
    'min_tier = "T2"\n  weighted_required = true\n  control_required = false\n  freshness = "delivered-revision"',
  );
  const pkg = `${t.pkg}\n[[deviation]]\nrequirement = "R1"\nkind = "partial"\nreason = "only sampled tests"\n`;
  withTrio(rebind({ ...t, spec, pkg }), (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /disposition 'R1': 'satisfied' but coverage computes partial: a disposition cannot claim more than the computed coverage/,
    );
    assert.doesNotMatch(r.stdout, /ERROR acceptance\.toml/, 'the package itself is valid');
  });
});

test('a waived requirement with a producer condition: accepted-with-conditions; effect needs --allow-conditions and lapses after due', () => {
  const t = validTrio();
  const spec = edit(t.spec, 'mandatory = true\nwaivable = false', 'mandatory = true\nwaivable = true');
  let decision = edit(
    t.decision,
    'requirement = "R1"\nstatus = "satisfied"\nbasis = ["WT-1"]',
    'requirement = "R1"\nstatus = "waived"\nbasis = []\nconditions = ["C1"]\nwaiver = { reason = "sampled tests accepted for now", code = "deferred", authority = "Example Consumer" }',
  );
  decision = edit(decision, 'verdict = "accepted"', 'verdict = "accepted-with-conditions"');
  decision +=
    '\n[[condition]]\nid = "C1"\nrequirement = "R1"\nstatement = "deliver an exhaustive test"\ndue = 2026-11-30\nowner = "producer"\n';
  withTrio(rebind({ ...t, spec, decision }), (repo) => {
    const r = check(repo);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /verdict accepted-with-conditions/);
    const noFlag = check(repo, '--effect', '--now', '2026-10-01');
    assert.equal(noFlag.code, 1);
    assert.match(noFlag.stdout, /^EFFECT-INELIGIBLE: verdict accepted-with-conditions needs --allow-conditions$/m);
    const ok = check(repo, '--effect', '--now', '2026-11-30', '--allow-conditions');
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(
      ok.stdout,
      /^EFFECT-ELIGIBLE: verdict accepted-with-conditions with 1 open condition, valid through 2027-02-01 \(now 2026-11-30\)$/m,
    );
    const lapsed = check(repo, '--effect', '--now', '2026-12-01', '--allow-conditions');
    assert.equal(lapsed.code, 1);
    assert.match(lapsed.stdout, /^EFFECT-INELIGIBLE: condition 'C1' lapsed: due 2026-11-30 is before 2026-12-01$/m);
  });
  // The same waiver on a non-waivable requirement is invalid.
  withTrio(rebind({ ...t, decision }), (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /disposition 'R1': 'waived' but requirement 'R1' is not waivable/);
  });
});

test('--effect dates through the CLI: the stale_after day passes, the next fails; a malformed --now is exit 2', () => {
  withTrio(validTrio(), (repo) => {
    const onDay = check(repo, '--effect', '--now', '2027-02-01');
    assert.equal(onDay.code, 0, onDay.stdout);
    assert.match(onDay.stdout, /^EFFECT-ELIGIBLE: verdict accepted, valid through 2027-02-01 \(now 2027-02-01\)$/m);
    const j = check(repo, '--effect', '--now', '2027-02-01', '--json').json();
    assert.equal(j.effect.eligible, true);
    assert.equal(j.effect.now, '2027-02-01');
    const after = check(repo, '--effect', '--now', '2027-02-02');
    assert.equal(after.code, 1);
    assert.match(
      after.stdout,
      /^EFFECT-INELIGIBLE: expired: \[validity\] stale_after 2027-02-01 is before 2027-02-02$/m,
    );
    for (const bad of ['2027-2-1', '2027-02-30', 'tomorrow']) {
      const r = check(repo, '--effect', '--now', bad);
      assert.equal(r.code, 2, bad);
      assert.match(r.stderr, /--now/);
    }
    assert.equal(check(repo, '--now', '2027-02-01').code, 2, '--now without --effect is a usage error');
  });
  // The spec's P180D caps stale_after at 2027-02-28 (issued 2026-09-01).
  withTrio(validTrio({ validUntil: '2027-03-01' }), (repo) => {
    const r = check(repo, '--effect', '--now', '2026-10-01');
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /stale_after 2027-03-01 is later than issued_at 2026-09-01 \+ the specification's stale_after P180D \(2027-02-28\)/,
    );
  });
  withTrio(validTrio({ validUntil: null }), (repo) => {
    assert.equal(check(repo).code, 0, 'valid as a record without an expiry date');
    const r = check(repo, '--effect', '--now', '2026-10-01');
    assert.equal(r.code, 1);
    assert.match(r.stdout, /no \[validity\] stale_after date/);
  });
});

test('unreadable, unparsable and 0.3 decisions are exit 2 with the file, never a crash', () => {
  const t = validTrio();
  withTrio({ ...t, decision: t.decision.replace('[binds]', '[binds') }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /acceptance-decision\.toml/);
  });
  withTrio(
    {
      ...t,
      decision: t.decision.replace('protocol = "acceptance-protocol/0.4"', 'protocol = "acceptance-protocol/0"'),
    },
    (repo) => {
      const r = check(repo);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /vkit acceptance migrate/);
    },
  );
  withTrio(t, (repo) => {
    const r = vkit([
      'acceptance',
      'check-decision',
      'missing.toml',
      '--spec',
      TRIO_PATHS.spec,
      '--package',
      TRIO_PATHS.pkg,
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 2);
    assert.equal(
      vkit(['acceptance', 'check-decision', TRIO_PATHS.decision, '--root', repo.dir]).code,
      2,
      'missing --spec/--package',
    );
    // Field-level mistakes are findings with lines, exit 1.
    writeFileSync(
      join(repo.dir, TRIO_PATHS.decision),
      t.decision
        .replace('kind = "decision"', 'kind = "verdict"')
        .replace('at = "2026-09-01T09:01:00Z"', 'at = "yesterday"'),
    );
    const bad = check(repo);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stdout,
      /ERROR acceptance-decision\.toml: \[document\]\.kind must be 'decision', got 'verdict' \(line 4\)/,
    );
    assert.match(
      bad.stdout,
      /\[\[verification\.run\]\]\.at must be an RFC 3339 date-time, got 'yesterday' \(line \d+\)/,
    );
  });
});

test('decide writes a draft that passes check-decision (spot-check); under re-execute-all it passes once the runs are recorded', () => {
  const t = validTrio();
  const spot = rebind({
    ...t,
    spec: edit(t.spec, 'consumer_verification = "re-execute-all"', 'consumer_verification = "spot-check"'),
  });
  withTrio(spot, (repo) => {
    const decide = (...extra: string[]) =>
      vkit([
        'acceptance',
        'decide',
        TRIO_PATHS.pkg,
        '--spec',
        TRIO_PATHS.spec,
        '--issuer',
        'Example Consumer',
        '--out',
        'drafted.toml',
        '--root',
        repo.dir,
        '--tree',
        TREE,
        ...extra,
      ]);
    const r = decide();
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^DRAFT drafted\.toml: verdict accepted \(R1 satisfied, R2 satisfied\)$/m);
    const text = readFileSync(join(repo.dir, 'drafted.toml'), 'utf8');
    assert.ok(text.includes(`hash = "${m11('manifest', spot.pkg)}"`), 'binds the current package hash');
    assert.ok(text.includes(`hash = "${m11('specification', spot.spec)}"`), 'binds the current specification hash');
    assert.ok(text.includes(`subject = { commit = "${DEFAULTS.commit}" }`));
    assert.equal(text.match(/result = "not-run"/g)?.length, 2, 'every run is not-run');
    assert.doesNotMatch(text, /result = "pass"/);
    const issued = /issued_at = "(\d{4}-\d{2}-\d{2})T/.exec(text)![1]!;
    const expected = new Date(Date.parse(issued) + 180 * 86_400_000).toISOString().slice(0, 10);
    assert.ok(text.includes(`stale_after = "${expected}"`), `stale_after = issued + P180D (${expected})`);
    const c = vkit([
      'acceptance',
      'check-decision',
      'drafted.toml',
      '--spec',
      TRIO_PATHS.spec,
      '--package',
      TRIO_PATHS.pkg,
      '--root',
      repo.dir,
      '--tree',
      TREE,
    ]);
    assert.equal(c.code, 0, c.stdout);
    assert.match(c.stdout, /DECISION VALID drafted\.toml: verdict accepted by Example Consumer \/ platform-lead/);
    // Never overwritten without --force.
    writeFileSync(join(repo.dir, 'drafted.toml'), 'keep me\n');
    const again = decide();
    assert.equal(again.code, 2);
    assert.match(again.stderr, /Refusing to overwrite `drafted\.toml`/);
    assert.equal(readFileSync(join(repo.dir, 'drafted.toml'), 'utf8'), 'keep me\n');
    assert.equal(decide('--force').code, 0);
    assert.notEqual(readFileSync(join(repo.dir, 'drafted.toml'), 'utf8'), 'keep me\n');
    // The issuer must be the authority.
    const other = vkit([
      'acceptance',
      'decide',
      TRIO_PATHS.pkg,
      '--spec',
      TRIO_PATHS.spec,
      '--issuer',
      'Example Producer',
      '--out',
      'other.toml',
      '--root',
      repo.dir,
      '--tree',
      TREE,
    ]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /is not the specification's authority/);
  });
  withTrio(t, (repo) => {
    const r = vkit([
      'acceptance',
      'decide',
      TRIO_PATHS.pkg,
      '--spec',
      TRIO_PATHS.spec,
      '--issuer',
      'Example Consumer',
      '--out',
      'drafted.toml',
      '--root',
      repo.dir,
      '--tree',
      TREE,
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /NOTE drafted\.toml: draft: every run is not-run; under re-execute-all/);
    const c = () =>
      vkit([
        'acceptance',
        'check-decision',
        'drafted.toml',
        '--spec',
        TRIO_PATHS.spec,
        '--package',
        TRIO_PATHS.pkg,
        '--root',
        repo.dir,
        '--tree',
        TREE,
      ]);
    const refused = c();
    assert.equal(refused.code, 1, 'not-run runs cannot satisfy re-execute-all');
    assert.match(refused.stdout, /under re-execute-all basis claim 'WT-1' \(not-run\) did not pass/);
    const path = join(repo.dir, 'drafted.toml');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replaceAll(
        'observed = ""\nresult = "not-run"',
        'observed = "SLUG PASS: 5 cases"\nresult = "pass"',
      ),
    );
    const ok = c();
    assert.equal(ok.code, 0, ok.stdout);
  });
});

test('decide refuses an invalid package and a dirty subject (nothing written)', () => {
  const t = validTrio();
  withTrio(rebind({ ...t, pkg: edit(t.pkg, 'dirty = false', 'dirty = true') }), (repo) => {
    const r = vkit([
      'acceptance',
      'decide',
      TRIO_PATHS.pkg,
      '--spec',
      TRIO_PATHS.spec,
      '--issuer',
      'Example Consumer',
      '--out',
      'drafted.toml',
      '--root',
      repo.dir,
      '--tree',
      TREE,
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /DECIDE REFUSED acceptance\.toml: .*dirty/);
    assert.throws(() => readFileSync(join(repo.dir, 'drafted.toml')));
  });
  withTrio({ ...t, pkg: edit(t.pkg, 'requirements_total = 2', 'requirements_total = 3') }, (repo) => {
    const r = vkit([
      'acceptance',
      'decide',
      TRIO_PATHS.pkg,
      '--spec',
      TRIO_PATHS.spec,
      '--issuer',
      'Example Consumer',
      '--out',
      'drafted.toml',
      '--root',
      repo.dir,
      '--tree',
      TREE,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /DECIDE REFUSED acceptance\.toml: the package is invalid/);
    assert.throws(() => readFileSync(join(repo.dir, 'drafted.toml')));
  });
});

test('evidence-requested needs a producer-owned condition; conditions on a satisfied requirement make no verdict; bare hashes are refused', () => {
  const t = validTrio();
  const ie = edit(
    edit(
      t.decision,
      'requirement = "R1"\nstatus = "satisfied"\nbasis = ["WT-1"]',
      'requirement = "R1"\nstatus = "insufficient-evidence"\nbasis = ["WT-1"]\nconditions = ["C1"]',
    ),
    'verdict = "accepted"',
    'verdict = "evidence-requested"',
  );
  const cond = (owner: string) =>
    `\n[[condition]]\nid = "C1"\nrequirement = "R1"\nstatement = "run the exhaustive test"\ndue = 2026-10-15\nowner = "${owner}"\n`;
  withTrio({ ...t, decision: ie + cond('producer') }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /DECISION VALID .*verdict evidence-requested/);
    const e = check(repo, '--effect', '--now', '2026-10-01');
    assert.equal(e.code, 1);
    assert.match(e.stdout, /EFFECT-INELIGIBLE: verdict evidence-requested is not an acceptance/);
  });
  withTrio({ ...t, decision: ie + cond('consumer') }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /invalid decision: a mandatory requirement has insufficient evidence but no condition is owned by the producer/,
    );
  });
  withTrio({ ...t, decision: t.decision + cond('producer') }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /condition 'C1' is on requirement 'R1', dispositioned 'satisfied'/);
    assert.match(
      r.stdout,
      /invalid decision: every mandatory requirement is satisfied but the decision records conditions/,
    );
  });
  const bare = t.decision.replace(/hash = "manifest:(sha-512:[0-9a-f]{128})"/, 'hash = "$1"');
  assert.notEqual(bare, t.decision);
  withTrio({ ...t, decision: bare }, (repo) => {
    const r = check(repo);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /binds\.package\.hash uses the retired bare form 'sha-512:<hex>': write 'manifest:sha-512:<hex>'/,
    );
  });
  withTrio(
    {
      ...t,
      decision: t.decision.replace(
        `subject = { commit = "${DEFAULTS.commit}" }`,
        `subject = { commit = "${'a'.repeat(40)}" }`,
      ),
    },
    (repo) => {
      const r = check(repo);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /\[binds\]\.subject\.commit 'a{40}' is not the package subject's commit '1c65772c/);
    },
  );
});
