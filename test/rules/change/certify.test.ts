/**
 * `vkit change certify` end to end, through the built CLI on real git repositories: the target commit
 * holds the basis and its registry, the candidate commit the changed crate. A proper strengthening
 * has every logic obligation hold and stays unknown (exit 3) because Kani is BLOCKED, naming its
 * assets; refutations exit 1 with their counterexample; a candidate editing the records is refused;
 * invalid requests and bases are exit 2 naming the JSON path.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import * as v from 'valibot';
import { ChangeCertificationSchema } from '../../../rules/change/schema.js';
import { type TempRepo, tempRepo, vkit } from '../../_support/repo.js';
import { CATALOGUE, HARD, n, op, v as ref } from './catalogue.js';
import { z3Skip } from './z3.js';

const DIR = 'verification/change-claims';

/** A repository whose first commit is the target (basis + registry) and second the candidate. */
function scenario(basis: Record<string, unknown>, name = 'f') {
  const text = `${JSON.stringify(basis, null, 2)}\n`;
  const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  const fn = basis.function as { crate: string; name: string };
  const registry = {
    schema: 'vkit.accepted-claim-bases/1',
    bases: [
      { digest, file: `${name}.delegation-basis.v1.json`, function: `${fn.crate}::${fn.name}`, since: 'initial' },
    ],
  };
  const repo = tempRepo({
    [`${DIR}/${name}.delegation-basis.v1.json`]: text,
    [`${DIR}/accepted-claim-bases.v1.json`]: `${JSON.stringify(registry, null, 2)}\n`,
    'crates/f/src/lib.rs': 'pub fn f() {}\n',
  });
  const target = repo.commitAll('target');
  repo.write('crates/f/src/lib.rs', 'pub fn f() { /* changed */ }\n');
  const candidate = repo.commitAll('candidate');
  return { repo, digest, target, candidate };
}

const repos: TempRepo[] = [];
after(() => {
  for (const r of repos) r.cleanup();
});

/** Runs the CLI in `repo` with the host's target its root commit (the scenario's target) unless `--target` is given. */
function run(repo: TempRepo, request: unknown, extra: string[] = []) {
  repo.write('request.json', typeof request === 'string' ? request : JSON.stringify(request));
  const target = extra.includes('--target') ? [] : ['--target', repo.git('rev-list', '--max-parents=0', 'HEAD').trim()];
  return vkit(['change', 'certify', '--request', 'request.json', ...target, ...extra], {
    cwd: repo.dir,
    env: { VKIT_KANI_IMAGE: '' },
  });
}

const requestOf = (
  s: ReturnType<typeof scenario>,
  claim: unknown,
  witness: unknown,
  more: Record<string, unknown> = {},
) => ({
  schema: 'vkit.change-request/1',
  candidate: s.candidate,
  basis: s.digest,
  claim,
  delegation: { witness },
  ...more,
});

describe('vkit change certify', z3Skip(), () => {
  const c = CATALOGUE.clamp!;
  const s = scenario(c.basis, 'clamp');
  repos.push(s.repo);

  test('a proper strengthening: every logic obligation holds, Kani BLOCKED naming its assets, unknown (exit 3)', () => {
    const r = run(s.repo, requestOf(s, c.claim, c.witness, { samples: [{ inputs: { x: 3 }, result: 3 }] }), ['--json']);
    assert.equal(r.code, 3, r.stderr + r.stdout);
    const report = r.json();
    assert.ok(v.safeParse(ChangeCertificationSchema, report).success);
    assert.equal(report.acceptance, 'unknown');
    assert.equal(report.target, s.target);
    assert.equal(report.candidate, s.candidate);
    const status = Object.fromEntries(report.obligations.map((o: { id: string; status: string }) => [o.id, o.status]));
    for (const id of [
      'basis.registered',
      'basis.preserved',
      'logic.entailed',
      'logic.strengthens',
      'logic.keeps_legal_inputs',
      'witness.legal',
      'witness.baseline_permits',
      'witness.intent_forbids',
      'witness.claim_forbids',
    ])
      assert.equal(status[id], 'holds', id);
    for (const id of ['code.claim_satisfied', 'code.near_miss_rejected']) assert.equal(status[id], 'unknown', id);
    const code = report.obligations.find((o: { id: string }) => o.id === 'code.claim_satisfied');
    assert.match(code.reason, /BLOCKED/);
    assert.match(code.reason, /VKIT_KANI_IMAGE not set/);
    assert.match(code.reason, /pin digest not recorded: kani .*pin digest not recorded: cbmc/);
    assert.deepEqual(
      report.shadow.obligations.map((o: { id: string; status: string }) => [o.id, o.status]),
      [['shadow.baseline_kept', 'unknown']],
    );
    assert.match(report.run.solver.version, /^Z3 version/);
    assert.equal(report.samples.length, 1);
  });

  test('the text report shows the delegated claim and the shadow result apart', () => {
    const r = run(s.repo, requestOf(s, c.claim, c.witness));
    assert.equal(r.code, 3);
    assert.match(
      r.stdout,
      /Delegated claim \(decides acceptance\):[\s\S]*HOLDS {3}logic\.entailed[\s\S]*UNKNOWN code\.claim_satisfied[\s\S]*Shadow change result[\s\S]*UNKNOWN shadow\.baseline_kept/,
    );
  });

  test('a claim weaker than the baseline is refuted (exit 1), its counterexample shown', () => {
    const r = run(s.repo, requestOf(s, c.weakens, c.witness));
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /REFUTED logic\.strengthens[^\n]*\n\s+counterexample: x = -?\d+, result = \d+/);
  });

  test('a candidate that edits the basis records is refused, naming each file', () => {
    s.repo.write(`${DIR}/clamp.delegation-basis.v1.json`, '{}\n');
    s.repo.write(`${DIR}/extra.json`, '{}\n');
    const edited = s.repo.commitAll('edit the records');
    const r = run(s.repo, requestOf(s, c.claim, c.witness, { candidate: edited }), ['--target', s.target, '--json']);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    const preserved = r.json().obligations.find((o: { id: string }) => o.id === 'basis.preserved');
    assert.equal(preserved.status, 'refuted');
    assert.match(preserved.reason, /extra\.json: added/);
    s.repo.git('reset', '-q', '--hard', s.candidate);
  });

  test('a record changed only in its mode is refused too', () => {
    s.repo.git('update-index', '--chmod=+x', `${DIR}/accepted-claim-bases.v1.json`);
    s.repo.git('commit', '-q', '-m', 'chmod');
    const edited = s.repo.git('rev-parse', 'HEAD').trim();
    const r = run(s.repo, requestOf(s, c.claim, c.witness, { candidate: edited }), ['--target', s.target, '--json']);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(
      r.json().obligations.find((o: { id: string }) => o.id === 'basis.preserved').reason,
      /accepted-claim-bases\.v1\.json: changed/,
    );
    s.repo.git('reset', '-q', '--hard', s.candidate);
  });

  test('an ill-typed claim is exit 2 naming its JSON path', () => {
    const r = run(s.repo, requestOf(s, op('and', op('<=', n(0), ref('result')), n(3)), c.witness));
    assert.equal(r.code, 2, r.stderr + r.stdout);
    assert.match(r.stderr, /request\.json claim\.args\[1\]: `and` expects a boolean here, got an integer/);
  });

  test('a witness outside its type is exit 2 naming its JSON path', () => {
    const r = run(s.repo, requestOf(s, c.claim, { inputs: { x: 2 ** 31 }, result: 0 }));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /delegation\.witness\.inputs\.x: 2147483648 is not a value of type i32/);
  });

  test('an unregistered basis digest is exit 2', () => {
    const r = run(s.repo, { ...requestOf(s, c.claim, c.witness), basis: `sha256:${'1'.repeat(64)}` });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is not in the target's registry/);
  });

  test("a request naming a target other than the host's is exit 2", () => {
    const r = run(s.repo, requestOf(s, c.claim, c.witness, { target: s.candidate }));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /the target is the host's choice, never the request's/);
  });

  test('a request with an unknown key or a duplicate key is exit 2', () => {
    const r = run(s.repo, { ...requestOf(s, c.claim, c.witness), claims: 1 });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /claims: Unknown key `claims` \(did you mean `claim`\?\)/);
    const d = run(s.repo, `{"schema":"vkit.change-request/1","schema":"x"}`);
    assert.equal(d.code, 2);
    assert.match(d.stderr, /Duplicate key `schema`/);
  });

  test('an ill-typed basis in the target is exit 2 naming the record and path', () => {
    const bad = scenario({ ...c.basis, baseline: op('+', ref('x'), n(1)) }, 'bad');
    repos.push(bad.repo);
    const r = run(bad.repo, requestOf(bad, c.claim, c.witness));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /bad\.delegation-basis\.v1\.json baseline: Expected the baseline to be a predicate/);
  });

  test('a solver timeout leaves acceptance unknown (exit 3), never accepted', () => {
    const h = scenario(HARD.basis, 'cubes');
    repos.push(h.repo);
    const r = run(h.repo, requestOf(h, HARD.claim, HARD.witness), ['--json', '--solver-timeout', '300']);
    assert.equal(r.code, 3, r.stderr);
    const entailed = r.json().obligations.find((o: { id: string }) => o.id === 'logic.entailed');
    assert.equal(entailed.status, 'unknown');
    assert.match(entailed.reason, /timeout|unknown/);
  });
});
