/**
 * A floor vkit cannot evaluate (an unknown `[requirement.evidence]` key, or an `[acceptance]
 * assurance_class`) makes the specification indeterminate. Every verb reads the same coverage,
 * and none may show such a requirement `satisfied` or the record `acceptable=true`: render,
 * check-package, coverage, check-decision and decide, through the real CLI.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { draftDecision } from '../../../rules/accept/lib/decide.js';
import { checkPackage } from '../../../rules/accept/lib/recursive-checks.js';
import { readDoc } from '../../../rules/accept/lib/toml.js';
import { DEFAULTS, edit, rebind, TRIO_PATHS, type Trio, committedRepo } from '../../_support/acceptance-docs.js';

const { spec: SPEC, pkg: PKG, decision: DECISION } = TRIO_PATHS;

/** R1's floor gains `coverage_min`, a floor key vkit cannot evaluate; every binding stays current. */
const unevaluatedFloor = (t: Trio): Trio =>
  rebind({ ...t, spec: edit(t.spec, 'methods = ["unit-test"]', 'methods = ["unit-test"]\n  coverage_min = 80') });

/** `[acceptance] assurance_class`: vkit has no class table, so no requirement's floor is evaluated in full. */
const assuranceClass = (t: Trio): Trio =>
  rebind({
    ...t,
    spec: edit(t.spec, 'stale_after = "P180D"', 'stale_after = "P180D"\nassurance_class = "iec-61508/3"'),
  });

const RENDER = ['render', SPEC, PKG];
const RENDER_D = ['render', SPEC, PKG, DECISION];
const CHECK_PACKAGE = ['check-package', PKG, '--spec', SPEC];
const COVERAGE = ['coverage', PKG, '--spec', SPEC];
const CHECK_DECISION = ['check-decision', DECISION, '--spec', SPEC, '--package', PKG];

const row = (markdown: string, id: string) => markdown.split('\n').find((l) => l.startsWith(`| ${id} |`)) ?? '';

test('an unevaluated floor key: R1 is indeterminate, never satisfied, and no verb says acceptable=true', () => {
  const repo = committedRepo(unevaluatedFloor);
  try {
    const [render, renderD, pkg, cov, decision] = [RENDER, RENDER_D, CHECK_PACKAGE, COVERAGE, CHECK_DECISION].map(
      (args) => repo.run(...args),
    );
    for (const r of [render!, renderD!, pkg!, cov!, decision!])
      assert.doesNotMatch(r.stdout, /acceptable=true/, r.stdout);

    assert.equal(pkg!.code, 3, pkg!.stdout);
    assert.deepEqual(pkg!.stdout.trim().split('\n').slice(-6), [
      'R1: indeterminate [mandatory] basis=[]',
      '  (floor): not evaluated: evidence.coverage_min (this vkit cannot evaluate it); WT-1 meets the rest',
      "R2: satisfied [optional] basis=['WT-2']",
      'summary: mandatory 0/1 (1 indeterminate), optional 1/1, acceptable=false',
      'not acceptable: the package check is indeterminate (see above)',
      `INDETERMINATE ${PKG} against ${SPEC} (0 errors, 1 warning)`,
    ]);
    // coverage prints the same computation (its own findings and exit code aside).
    assert.equal(cov!.code, 1, cov!.stdout);
    assert.deepEqual(cov!.stdout.trim().split('\n').slice(-5), pkg!.stdout.trim().split('\n').slice(-6, -1));

    for (const r of [render!, renderD!]) {
      assert.equal(r.code, 3, r.stdout + r.stderr);
      const r1 = row(r.stdout, 'R1');
      assert.doesNotMatch(r1, /satisfied \(WT-1\)/, r1);
      assert.match(
        r1,
        /^\| R1 \| yes \| T3, weighted, fresh, methods unit-test; not evaluated: evidence\.coverage_min \| WT-1 \(evidenced T3 weighted\) \| indeterminate: not evaluated: evidence\.coverage_min \(this vkit cannot evaluate it\); WT-1 meets the rest \|/,
        r1,
      );
      assert.match(r.stdout, /^coverage: mandatory 0\/1 \(1 indeterminate\), optional 1\/1, acceptable=false$/m);
    }
    // The decision records R1 satisfied; the view never repeats that bare.
    assert.match(
      row(renderD!.stdout, 'R1'),
      /\| satisfied as recorded, not confirmed: coverage is indeterminate \| - \|$/,
    );
    // The decision dispositions R1 satisfied: that cannot be judged, so the decision is indeterminate, neither valid nor invalid.
    assert.equal(decision!.code, 3, decision!.stdout);
    assert.match(decision!.stdout, /^DECISION INDETERMINATE /m);
    assert.doesNotMatch(decision!.stdout, /^ERROR/m);
  } finally {
    repo.cleanup();
  }
});

test('check-package --json and coverage --json carry the same coverage object', () => {
  const repo = committedRepo(unevaluatedFloor);
  try {
    const p = repo.run(...CHECK_PACKAGE, '--json').json();
    const c = repo.run(...COVERAGE, '--json').json();
    assert.deepEqual(p.coverage, c.coverage);
    assert.equal(p.coverage.acceptable, false);
    assert.equal(p.coverage.blockedBy, 'the package check is indeterminate');
    assert.deepEqual(
      p.coverage.requirements.map((r: { status: string }) => r.status),
      ['indeterminate', 'satisfied'],
    );
    assert.deepEqual(p.coverage.mandatory, { met: 0, total: 1, indeterminate: 1 });
  } finally {
    repo.cleanup();
  }
});

test('an assurance_class leaves every requirement indeterminate; render shows the class in each floor', () => {
  const repo = committedRepo(assuranceClass);
  try {
    const pkg = repo.run(...CHECK_PACKAGE);
    const render = repo.run(...RENDER);
    assert.equal(pkg.code, 3, pkg.stdout);
    assert.match(pkg.stdout, /^R1: indeterminate \[mandatory\] basis=\[\]$/m);
    assert.match(pkg.stdout, /^R2: indeterminate \[optional\] basis=\[\]$/m);
    assert.match(
      pkg.stdout,
      /^ {2}\(floor\): not evaluated: \[acceptance\]\.assurance_class 'iec-61508\/3' \(this vkit cannot evaluate it\); WT-1 meets the rest$/m,
    );
    assert.match(
      pkg.stdout,
      /^summary: mandatory 0\/1 \(1 indeterminate\), optional 0\/1 \(1 indeterminate\), acceptable=false$/m,
    );
    for (const id of ['R1', 'R2'])
      assert.match(
        row(render.stdout, id),
        /not evaluated: \[acceptance\]\.assurance_class 'iec-61508\/3' \|.*\| indeterminate: /,
      );
    assert.doesNotMatch(render.stdout, /satisfied|acceptable=true/);
  } finally {
    repo.cleanup();
  }
});

test('decide on an indeterminate package: refused (exit 3), nothing written; the pure draft never writes satisfied for it', async () => {
  const repo = committedRepo(unevaluatedFloor);
  try {
    const r = repo.run('decide', PKG, '--spec', SPEC, '--issuer', DEFAULTS.consumer, '--out', 'draft.toml');
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^DECIDE REFUSED acceptance\.toml: the package check is indeterminate \(requirement 'R1': evidence\.coverage_min is a floor this vkit cannot evaluate\); no draft written$/m,
    );
    assert.equal(existsSync(join(repo.root, 'draft.toml')), false);

    const specDoc = await readDoc(join(repo.root, SPEC), SPEC);
    const pkgDoc = await readDoc(join(repo.root, PKG), PKG);
    const pkg = await checkPackage(pkgDoc, specDoc, { root: repo.root, stores: {}, trees: {} });
    assert.equal(pkg.status, 'indeterminate');
    const draft = draftDecision({
      specDoc,
      pkgDoc,
      pkg,
      issuer: { name: DEFAULTS.consumer, role: DEFAULTS.consumerRole },
      id: 'AD-X',
      issuedAt: '2026-09-01T10:00:00Z',
    });
    assert.deepEqual(
      draft.dispositions.map((d) => [d.requirement, d.status]),
      [
        ['R1', 'unsatisfied'],
        ['R2', 'satisfied'],
      ],
    );
    assert.match(draft.text, /^# coverage: indeterminate$/m);
  } finally {
    repo.cleanup();
  }
});
