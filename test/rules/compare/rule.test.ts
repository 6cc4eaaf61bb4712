import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build, gate } from '../../../src/service/index.js';
import { REPO_ROOT, tempRepo, vkit } from '../../_support/repo.js';

const TOGGLE = readFileSync(join(REPO_ROOT, 'examples', 'model-comparison', 'request.json'), 'utf8');
const request = JSON.parse(TOGGLE) as { before: unknown; after: unknown };
const SAME = JSON.stringify({ schema_version: 1, before: request.before, after: request.before });
const RENAMED = JSON.stringify({
  schema_version: 1,
  before: request.before,
  after: JSON.parse(JSON.stringify(request.before).replaceAll('"open"', '"opened"')),
});

function receiptOf(store: string, id: string): Record<string, any> {
  return JSON.parse(readFileSync(join(store, 'cas', id.slice(7, 9), id.slice(9)), 'utf8'));
}

test('compare items: expect met -> PASS (finite_model, both digests), the other answer -> FAIL, cached until the request changes', async () => {
  const repo = tempRepo({ 'toggle.json': TOGGLE, 'same.json': SAME });
  const store = join(repo.dir, '.store');
  try {
    repo.manifest({
      compare: [
        { id: 'toggle', request: 'toggle.json', expect: 'different' },
        { id: 'same', request: 'same.json', expect: 'different' },
      ],
    });
    const first = await build({ root: repo.dir, store });
    const byLabel = new Map(first.actions.map((a) => [a.label, a]));
    assert.equal(byLabel.get('compare:toggle')!.outcome, 'PASS');
    assert.equal(byLabel.get('compare:same')!.outcome, 'FAIL');
    assert.match(byLabel.get('compare:same')!.reason!, /models are equivalent, expected different/);
    assert.equal(first.gate.status, 'REJECTED');

    const receipt = receiptOf(store, byLabel.get('compare:toggle')!.receipt!);
    assert.equal(receipt.assurance, 'finite_model');
    assert.match(receipt.subject.before, /^sha256:[0-9a-f]{64}$/);
    assert.match(receipt.subject.after, /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(receipt.subject.before, receipt.subject.after);
    assert.ok(receipt.artifacts.some((a: { name: string }) => a.name === 'report.json'));

    const second = await build({ root: repo.dir, store });
    assert.deepEqual(
      second.actions.map((a) => a.status),
      ['cached', 'cached'],
    );

    repo.write('same.json', TOGGLE);
    const third = await build({ root: repo.dir, store });
    assert.deepEqual(third.actions.map((a) => [a.label, a.status]).sort(), [
      ['compare:same', 'ran'],
      ['compare:toggle', 'cached'],
    ]);
    assert.equal(third.gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});

test('an incomparable comparison is BLOCKED, never cached, never a pass', async () => {
  const repo = tempRepo({ 'renamed.json': RENAMED });
  const store = join(repo.dir, '.store');
  try {
    repo.manifest({ compare: [{ id: 'renamed', request: 'renamed.json', expect: 'equivalent' }] });
    const first = await build({ root: repo.dir, store });
    assert.equal(first.actions[0]!.outcome, 'BLOCKED');
    assert.match(first.actions[0]!.reason!, /incomparable/);
    assert.equal(first.gate.status, 'BLOCKED');
    const again = await build({ root: repo.dir, store });
    assert.equal(again.actions[0]!.status, 'blocked');
    assert.notEqual(again.actions[0]!.run, first.actions[0]!.run);
    assert.equal((await gate({ root: repo.dir, store })).gate.status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});

test('an exhausted budget is unknown: BLOCKED whatever `expect` says, never FAIL or PASS', async () => {
  const exhausted = JSON.stringify({ ...request, max_contexts: 1 });
  const repo = tempRepo({ 'tight.json': exhausted });
  const store = join(repo.dir, '.store');
  try {
    repo.manifest({
      compare: [
        { id: 'tight-different', request: 'tight.json', expect: 'different' },
        { id: 'tight-equivalent', request: 'tight.json', expect: 'equivalent' },
      ],
    });
    const result = await build({ root: repo.dir, store });
    for (const action of result.actions) {
      assert.equal(action.outcome, 'BLOCKED', action.label);
      assert.match(action.reason!, /^comparison unknown: budget exhausted: max_contexts \(1\)/, action.label);
    }
    assert.equal(result.gate.status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});

test('an invalid request file is a config error naming the file and JSON path (exit 2)', () => {
  const broken = JSON.parse(TOGGLE);
  broken.after.rules[0].targets = ['nowhere'];
  const repo = tempRepo({ 'bad.json': JSON.stringify(broken, null, 2) });
  try {
    repo.manifest({ compare: [{ id: 'bad', request: 'bad.json', expect: 'different' }] });
    const r = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(r.code, 2, r.stderr);
    const issue = r.json().error.issues[0];
    assert.match(issue.file, /bad\.json$/);
    assert.equal(issue.path, '$.after.rules[0].targets[0]');
  } finally {
    repo.cleanup();
  }
});

test('vkit model compare: exit codes 1 different, 0 equivalent, 3 incomparable, 2 invalid; JSON report', () => {
  const repo = tempRepo({
    'toggle.json': TOGGLE,
    'same.json': SAME,
    'renamed.json': RENAMED,
    'dup.json': '{"schema_version": 1, "schema_version": 1}',
  });
  try {
    const diff = vkit(['model', 'compare', '--request', join(repo.dir, 'toggle.json'), '--json']);
    assert.equal(diff.code, 1);
    const report = diff.json();
    assert.equal(report.result, 'different');
    assert.equal(report.categories.transitions.count, 1);
    assert.equal(report.categories.transitions.witness.path.length, 2);
    const human = vkit(['model', 'compare', '--request', join(repo.dir, 'toggle.json')]);
    assert.match(human.stdout, /closed --click\/tap--> open/);
    assert.match(human.stdout, /witness path in before/);
    assert.equal(vkit(['model', 'compare', '--request', join(repo.dir, 'same.json')]).code, 0);
    assert.equal(vkit(['model', 'compare', '--request', join(repo.dir, 'renamed.json')]).code, 3);
    const dup = vkit(['model', 'compare', '--request', join(repo.dir, 'dup.json'), '--json']);
    assert.equal(dup.code, 2);
    assert.equal(dup.json().error.code, 'ERR_REQUEST_INVALID');
    assert.equal(vkit(['model', 'compare', '--request', join(repo.dir, 'missing.json')]).code, 2);

    // Invalid: the human message names the first problem in document order; --json lists every one.
    const twice = JSON.parse(TOGGLE);
    twice.before.states.push('closed');
    twice.after.rules[0].targets = ['nowhere'];
    repo.write('twice.json', JSON.stringify(twice, null, 2));
    const human2 = vkit(['model', 'compare', '--request', join(repo.dir, 'twice.json')]);
    assert.equal(human2.code, 2);
    assert.match(human2.stderr, /twice\.json \$\.before\.states\[2\]: Duplicate token "closed"/);
    assert.match(human2.stderr, /\(and 1 more problem; --json lists every one\)/);
    assert.doesNotMatch(human2.stderr, /after\.rules/);
    const all = vkit(['model', 'compare', '--request', join(repo.dir, 'twice.json'), '--json']);
    assert.equal(all.code, 2);
    assert.deepEqual(
      all.json().error.issues.map((i: { path: string }) => i.path),
      ['$.before.states[2]', '$.after.rules[0].targets[0]'],
    );
    assert.equal(vkit(['model', 'compare', '--help']).code, 0);
  } finally {
    repo.cleanup();
  }
});
