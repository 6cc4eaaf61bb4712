import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initialState, reduce, sortItems, stateFromGate, visibleItems, type TuiState } from '../../src/tui/state.js';
import type { VkitEvent } from '../../src/engine/events.js';
import { cached, finished, invalidConfig, item, queued, running, settled, started } from './events.js';

const fold = (events: VkitEvent[], from: TuiState = initialState('/repo', '/repo/.vkit')) =>
  events.reduce(reduce, from);

test('initial state: no gate, no items, no progress', () => {
  const s = initialState('/repo', '/store');
  assert.equal(s.gate, null);
  assert.deepEqual(s.items, []);
  assert.equal(s.progress, null);
  assert.equal(s.configInvalid, null);
  assert.equal(s.root, '/repo');
  assert.equal(s.store, '/store');
});

test('queued and started actions show live status and a progress count', () => {
  const s = fold([started(1), queued('check:a'), queued('check:b'), running('check:a'), cached('check:c')]);
  assert.equal(s.cycle, 1);
  assert.deepEqual(
    s.items.map((i) => [i.id, i.kind, i.status]),
    [
      ['check:a', 'check', 'running'],
      ['check:b', 'check', 'queued'],
      ['check:c', 'check', 'PASS'],
    ],
  );
  assert.deepEqual(s.progress, { done: 1, total: 3 });
  const t = fold(
    [
      finished('check:a', 'FAIL', { reason: 'exit 1', explain: ['input src/a.ts changed'], tail: ['boom'] }),
      finished('check:b', 'PASS'),
    ],
    s,
  );
  assert.equal(t.progress, null, 'no progress once nothing runs');
  const a = t.items.find((i) => i.id === 'check:a')!;
  assert.equal(a.status, 'FAIL');
  assert.equal(a.reason, 'exit 1');
  assert.equal(a.run, 'run-a');
  assert.equal(a.ms, 120);
  assert.deepEqual(a.explain, ['input src/a.ts changed']);
  assert.deepEqual(a.tail, ['boom']);
  assert.deepEqual(
    t.log.map((l) => [l.word, l.text]),
    [
      ['cached', 'check:c'],
      ['failed', 'check:a 120ms  exit 1'],
      ['ran', 'check:b 120ms'],
    ],
  );
});

test('progress counts a label once even when queued, started and finished', () => {
  const s = fold([started(2), queued('check:a'), running('check:a'), queued('check:b')]);
  assert.deepEqual(s.progress, { done: 0, total: 2 });
  const t = fold([finished('check:a', 'PASS')], s);
  assert.deepEqual(t.progress, { done: 1, total: 2 });
});

test('settle with a gate: header fields and items come from the gate, keeping explain lines', () => {
  const s = fold([
    started(3),
    running('check:a'),
    finished('check:a', 'FAIL', { explain: ['why'] }),
    settled(
      'REJECTED',
      [item('check:a', 'FAIL'), item('check:b', 'PASS'), item('formal:c', 'MISSING', false)],
      3,
      1500,
    ),
  ]);
  assert.equal(s.gate, 'REJECTED');
  assert.equal(s.gateReason, 'gate says REJECTED');
  assert.equal(s.cycle, 3);
  assert.equal(s.settleMs, 1500);
  assert.equal(s.settledAt, '2025-01-01T12:00:00.000Z');
  assert.deepEqual(
    s.items.map((i) => [i.id, i.status, i.required, i.kind]),
    [
      ['check:a', 'FAIL', true, 'check'],
      ['formal:c', 'MISSING', false, 'formal'],
      ['check:b', 'PASS', true, 'check'],
    ],
  );
  assert.deepEqual(s.items[0]!.explain, ['why']);
  assert.equal(s.log.at(-1)!.text, 'cycle 3 settled: REJECTED in 1.5s (1 ran, 1 cached)');
});

test('the gate replaces live items: an item the config dropped disappears', () => {
  const s = fold([queued('check:gone'), settled('READY', [item('check:a', 'PASS')], 1)]);
  assert.deepEqual(
    s.items.map((i) => i.id),
    ['check:a'],
  );
});

test('settle without a gate ends live statuses', () => {
  const s = fold([queued('check:a'), settled('BLOCKED', null)]);
  assert.equal(s.items[0]!.status, 'MISSING');
  assert.equal(s.progress, null);
  assert.equal(s.log.at(-1)!.text.startsWith('build settled: BLOCKED'), true);
});

test('config.invalid blocks the gate with the message until the next settle', () => {
  const s = fold([
    settled('READY', [item('check:a', 'PASS')], 1),
    started(2, ['vkit.config.ts']),
    invalidConfig('vkit.config.ts:3: unexpected token'),
  ]);
  assert.equal(s.gate, 'BLOCKED');
  assert.equal(s.gateReason, 'config invalid');
  assert.equal(s.configInvalid, 'vkit.config.ts:3: unexpected token');
  const t = fold([started(3), settled('READY', [item('check:a', 'PASS')], 3)], s);
  assert.equal(t.configInvalid, null);
  assert.equal(t.gate, 'READY');
});

test('sort: FAIL, then BLOCKED/STALE/MISSING, then running/queued, then PASS; then id', () => {
  const base = { kind: 'check', required: true, reason: '', run: null, ms: null, explain: [], tail: [] };
  const ids = sortItems(
    (
      [
        ['check:p', 'PASS'],
        ['check:q', 'queued'],
        ['check:s', 'STALE'],
        ['check:b', 'BLOCKED'],
        ['check:f2', 'FAIL'],
        ['check:r', 'running'],
        ['check:f1', 'FAIL'],
        ['check:m', 'MISSING'],
      ] as const
    ).map(([id, status]) => ({ ...base, id, status })),
  ).map((i) => i.id);
  assert.deepEqual(ids, ['check:f1', 'check:f2', 'check:b', 'check:m', 'check:s', 'check:q', 'check:r', 'check:p']);
});

test('reduce is pure: the input state is not mutated', () => {
  const s = fold([queued('check:a')]);
  const snapshot = JSON.stringify(s);
  reduce(s, finished('check:a', 'PASS'));
  assert.equal(JSON.stringify(s), snapshot);
});

test('filters change the visible items only', () => {
  const s = stateFromGate(
    {
      schema: 'vkit.gate/1',
      status: 'REJECTED',
      reason: 'r',
      items: [item('check:a', 'FAIL'), item('check:b', 'PASS'), item('formal:c', 'MISSING', false)],
    },
    '/r',
    '/s',
  );
  assert.deepEqual(
    visibleItems(s.items, 'all').map((i) => i.id),
    ['check:a', 'formal:c', 'check:b'],
  );
  assert.deepEqual(
    visibleItems(s.items, 'failing').map((i) => i.id),
    ['check:a', 'formal:c'],
  );
  assert.deepEqual(
    visibleItems(s.items, 'required').map((i) => i.id),
    ['check:a', 'check:b'],
  );
  assert.equal(s.gate, 'REJECTED');
  assert.equal(s.fromEvidence, true);
  assert.equal(
    reduce(s, settled('REJECTED', [item('check:a', 'FAIL')], 1)).fromEvidence,
    false,
    'a settle replaces retained evidence',
  );
});

test('settled gate items carry assurance, freshness and the evidence age at settle time (no clock read)', () => {
  const ev = settled(
    'BLOCKED',
    [
      { ...item('compare:toggle', 'PASS'), assurance: 'finite_model', ended_at: '2026-11-30T10:00:00.000Z' },
      { ...item('check:old', 'STALE') },
      { ...item('check:none', 'MISSING') },
    ],
    3,
  );
  const s = reduce(initialState('/r', '/s'), { ...ev, ts: '2026-11-30T10:05:30.000Z' } as VkitEvent);
  const byId = new Map(s.items.map((i) => [i.id, i]));
  assert.equal(byId.get('compare:toggle')!.assurance, 'finite_model');
  assert.equal(byId.get('compare:toggle')!.freshness, 'fresh');
  assert.equal(byId.get('compare:toggle')!.ageS, 330);
  assert.equal(byId.get('check:old')!.freshness, 'stale');
  assert.equal(byId.get('check:none')!.freshness, undefined);
  assert.equal(byId.get('check:none')!.ageS, null);
});
