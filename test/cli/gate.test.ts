/**
 * Exit codes of build and gate: a failing check is REJECTED (exit 1) and stays REJECTED for a gate
 * that runs nothing, because FAIL is cached evidence; `--only` narrows what runs and what is shown,
 * never the status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';

function failingRepo(): TempRepo {
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.manifest({
    checks: [
      {
        id: 'A',
        run: nodeCheck("console.log('line one'); console.error('assertion failed: 1 != 2'); process.exit(1)"),
        inputs: ['a.txt'],
      },
      { id: 'B', run: nodeCheck('0'), inputs: ['b.txt'] },
    ],
  });
  return repo;
}

test('a failing check: build REJECTED exit 1 with its output inline; gate afterwards still REJECTED exit 1', () => {
  const repo = failingRepo();
  try {
    const human = cli(repo, ['build']);
    assert.equal(human.code, 1, human.stderr);
    assert.match(human.stdout, /^failed\s+check:A/m);
    assert.match(human.stdout, /assertion failed: 1 != 2/, 'the failing output is shown inline');
    assert.match(human.stdout, /gate REJECTED/);

    const g = cli(repo, ['gate', '--json']);
    assert.equal(g.code, 1);
    const gate = g.json();
    assert.equal(gate.schema, 'vkit.gate/1');
    assert.equal(gate.status, 'REJECTED');
    const a = gate.items.find((i: { id: string }) => i.id === 'check:A');
    assert.equal(a.status, 'FAIL');
    assert.equal(a.required, true);
    assert.match(a.reason, /exit code 1, expected 0/);
    assert.match(a.run, /^run_/);

    // FAIL is evidence: a rebuild does not rerun it.
    const again = cli(repo, ['build', '--json']);
    assert.equal(again.code, 1);
    assert.deepEqual(
      again.json().actions.map((x: { status: string; outcome: string }) => `${x.status}/${x.outcome}`),
      ['cached/FAIL', 'cached/PASS'],
    );
  } finally {
    repo.cleanup();
  }
});

test('--only cannot hide a failure: exit 1 with FAIL evidence for A, exit 3 without evidence for A', () => {
  const withoutEvidence = failingRepo();
  const withEvidence = failingRepo();
  try {
    // No evidence for A yet: building only B cannot make the gate READY.
    const onlyB = cli(withoutEvidence, ['build', '--only', 'B', '--json']);
    assert.equal(onlyB.code, 3, onlyB.stderr);
    const r = onlyB.json();
    assert.equal(r.gate.status, 'BLOCKED');
    assert.match(r.gate.reason, /check:A/);
    assert.deepEqual(
      r.actions.map((x: { label: string }) => x.label),
      ['check:B'],
      'only B ran',
    );
    assert.deepEqual(
      r.gate.items.map((i: { id: string }) => i.id),
      ['check:B'],
      'only B is shown',
    );
    assert.equal(r.gate.items[0].status, 'PASS');
    const gateOnly = cli(withoutEvidence, ['gate', '--only', 'check:B', '--json']);
    assert.equal(gateOnly.code, 3);
    assert.equal(gateOnly.json().status, 'BLOCKED');

    // A's FAIL evidence exists: --only B is REJECTED.
    assert.equal(cli(withEvidence, ['build']).code, 1);
    const onlyB2 = cli(withEvidence, ['build', '--only', 'B', '--json']);
    assert.equal(onlyB2.code, 1);
    assert.equal(onlyB2.json().gate.status, 'REJECTED');
    assert.deepEqual(
      onlyB2.json().gate.items.map((i: { id: string }) => i.id),
      ['check:B'],
    );
    assert.equal(cli(withEvidence, ['gate', '--only', 'B']).code, 1);
  } finally {
    withoutEvidence.cleanup();
    withEvidence.cleanup();
  }
});

test('gate --format sarif and junit carry the same verdict and exit code', () => {
  const repo = failingRepo();
  try {
    assert.equal(cli(repo, ['build']).code, 1);
    const sarif = cli(repo, ['gate', '--format', 'sarif']);
    assert.equal(sarif.code, 1);
    const run = sarif.json().runs[0];
    assert.equal(run.invocations[0].properties.gate, 'REJECTED');
    assert.equal(run.results.find((x: { ruleId: string }) => x.ruleId === 'check:A').level, 'error');
    const junit = cli(repo, ['gate', '--format', 'junit']);
    assert.equal(junit.code, 1);
    assert.match(junit.stdout, /<testsuite name="vkit gate: REJECTED" tests="2" failures="1" errors="0">/);
  } finally {
    repo.cleanup();
  }
});
