/**
 * `vkit gate --format sarif|junit` is read by tools that never look at vkit's exit code or at a
 * property bag: a JUnit view is green when no testcase fails or errors, a code-scanning upload is
 * clean when no result is an error. `--only` narrows what is shown (never the status), and a gate
 * with no requirements shows no item at all: either way the document must still not read as a pass
 * when the gate is not READY.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const junitCounts = (xml: string) => {
  const m = /<testsuite [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)"/.exec(xml);
  assert.ok(m, xml);
  return { tests: Number(m[1]), failures: Number(m[2]), errors: Number(m[3]) };
};
const sarifErrors = (doc: any) => doc.runs[0].results.filter((r: { level: string }) => r.level === 'error');

test('gate --only PASSING --format junit|sarif still fails when another required item fails or is missing', () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.age('a.txt');
  repo.age('b.txt');
  repo.manifest({
    checks: [
      { id: 'ok', run: nodeCheck('0'), inputs: ['a.txt'] },
      { id: 'bad', run: nodeCheck('process.exit(1)'), inputs: ['b.txt'] },
    ],
  });
  try {
    assert.equal(cli(repo, ['build']).code, 1);
    const junit = cli(repo, ['gate', '--only', 'ok', '--format', 'junit']);
    assert.equal(junit.code, 1);
    const j = junitCounts(junit.stdout);
    assert.ok(j.failures + j.errors > 0, `a REJECTED gate must not read as a passing suite:\n${junit.stdout}`);
    assert.match(junit.stdout, /<testcase classname="vkit\.gate" name="gate"><failure /);

    const sarif = cli(repo, ['gate', '--only', 'ok', '--format', 'sarif']);
    assert.equal(sarif.code, 1);
    assert.ok(sarifErrors(sarif.json()).length > 0, `a REJECTED gate must carry an error result:\n${sarif.stdout}`);

    // A requirement without evidence (MISSING): BLOCKED, shown as errors too.
    repo.manifest({
      checks: [
        { id: 'ok', run: nodeCheck('0'), inputs: ['a.txt'] },
        { id: 'new', run: nodeCheck('0'), inputs: ['b.txt'] },
      ],
    });
    const blocked = cli(repo, ['gate', '--only', 'ok', '--format', 'junit']);
    assert.equal(blocked.code, 3);
    const b = junitCounts(blocked.stdout);
    assert.ok(b.errors > 0, blocked.stdout);
    const blockedSarif = cli(repo, ['gate', '--only', 'ok', '--format', 'sarif']);
    assert.equal(blockedSarif.code, 3);
    assert.ok(sarifErrors(blockedSarif.json()).length > 0, blockedSarif.stdout);
  } finally {
    repo.cleanup();
  }
});

test('a gate with no requirements (BLOCKED) is not an empty, passing JUnit suite or a clean SARIF run', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [] });
  try {
    const junit = cli(repo, ['gate', '--format', 'junit']);
    assert.equal(junit.code, 3);
    const j = junitCounts(junit.stdout);
    assert.ok(j.tests > 0 && j.errors > 0, junit.stdout);
    const sarif = cli(repo, ['gate', '--format', 'sarif']);
    assert.equal(sarif.code, 3);
    assert.ok(sarifErrors(sarif.json()).length > 0, sarif.stdout);
  } finally {
    repo.cleanup();
  }
});

test('a READY gate stays a passing suite with no error results', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({ checks: [{ id: 'ok', run: nodeCheck('0'), inputs: ['a.txt'] }] });
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    const junit = cli(repo, ['gate', '--format', 'junit']);
    assert.equal(junit.code, 0);
    const j = junitCounts(junit.stdout);
    assert.equal(j.failures + j.errors, 0, junit.stdout);
    const sarif = cli(repo, ['gate', '--format', 'sarif']);
    assert.equal(sarif.code, 0);
    assert.equal(sarifErrors(sarif.json()).length, 0, sarif.stdout);
  } finally {
    repo.cleanup();
  }
});
