/**
 * The gate fold (pure): no requirement -> BLOCKED; any required FAIL -> REJECTED (it outranks
 * everything open); any other required non-PASS -> BLOCKED; otherwise READY. Items that are not
 * required are shown but never change the status. Display filters never narrow the status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateGate, gateExitCode, showOnly } from '../../src/gate/evaluate.js';
import type { GateItem, GateStatus, ItemStatus } from '../../src/gate/schema.js';

type Spec = `${ItemStatus}` | `${ItemStatus}?`;

/** `'FAIL'` is a required FAIL item; `'FAIL?'` one with `required: false`. */
function items(specs: Spec[]): GateItem[] {
  return specs.map((s, i) => ({
    id: `check:i${i}`,
    required: !s.endsWith('?'),
    status: s.replace('?', '') as ItemStatus,
    reason: 'r',
    run: null,
  }));
}

function check(specs: Spec[], expected: GateStatus) {
  test(`[${specs.join(', ')}] -> ${expected}`, () => {
    const gate = evaluateGate(items(specs));
    assert.equal(gate.status, expected);
    assert.equal(gate.schema, 'vkit.gate/1');
    assert.equal(gate.items.length, specs.length, 'every item is shown');
  });
}

check([], 'BLOCKED');
check(['PASS?'], 'BLOCKED');
check(['FAIL?', 'PASS?'], 'BLOCKED');
check(['PASS'], 'READY');
check(['PASS', 'PASS', 'PASS'], 'READY');
check(['PASS', 'FAIL?'], 'READY');
check(['PASS', 'BLOCKED?'], 'READY');
check(['PASS', 'MISSING?'], 'READY');
check(['FAIL'], 'REJECTED');
check(['PASS', 'FAIL'], 'REJECTED');
check(['FAIL', 'BLOCKED'], 'REJECTED');
check(['MISSING', 'STALE', 'FAIL'], 'REJECTED');
check(['BLOCKED'], 'BLOCKED');
check(['MISSING'], 'BLOCKED');
check(['STALE'], 'BLOCKED');
check(['PASS', 'STALE'], 'BLOCKED');
check(['PASS', 'MISSING', 'BLOCKED'], 'BLOCKED');
check(['BLOCKED', 'FAIL?'], 'BLOCKED');

test('no requirements says so', () => {
  assert.match(evaluateGate([]).reason, /no requirements/);
  assert.match(evaluateGate(items(['PASS?'])).reason, /no requirements/);
});

test('reasons name the failing and the open items', () => {
  const rejected = evaluateGate(items(['PASS', 'FAIL', 'STALE']));
  assert.match(rejected.reason, /check:i1/);
  const blocked = evaluateGate(items(['PASS', 'MISSING', 'STALE']));
  assert.match(blocked.reason, /2 required item\(s\).*check:i1, check:i2/);
});

test('items come out sorted by id whatever order they came in', () => {
  const gate = evaluateGate([
    { id: 'check:b', required: true, status: 'PASS', reason: '', run: null },
    { id: 'check:a', required: true, status: 'PASS', reason: '', run: null },
    { id: 'formal:a', required: false, status: 'BLOCKED', reason: '', run: null },
  ]);
  assert.deepEqual(
    gate.items.map((i) => i.id),
    ['check:a', 'check:b', 'formal:a'],
  );
});

test('exit codes: READY 0, REJECTED 1, BLOCKED 3', () => {
  assert.equal(gateExitCode('READY'), 0);
  assert.equal(gateExitCode('REJECTED'), 1);
  assert.equal(gateExitCode('BLOCKED'), 3);
});

test('showOnly filters the items shown, never the status', () => {
  const gate = evaluateGate([
    { id: 'check:a', required: true, status: 'FAIL', reason: '', run: null },
    { id: 'check:b', required: true, status: 'PASS', reason: '', run: null },
  ]);
  const shown = showOnly(gate, ['b']);
  assert.equal(shown.status, 'REJECTED');
  assert.deepEqual(
    shown.items.map((i) => i.id),
    ['check:b'],
  );
  assert.deepEqual(
    showOnly(gate, ['check:a']).items.map((i) => i.id),
    ['check:a'],
  );
  assert.equal(showOnly(gate, undefined).items.length, 2);
});
