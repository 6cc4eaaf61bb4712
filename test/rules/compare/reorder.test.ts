/**
 * Array order never matters: shuffling every array of both models (and adding repeats to the
 * set-valued ones) gives the same digests and the same report, byte for byte.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../../src/hash/index.js';
import {
  compareRequest,
  compareRequestText,
  modelDigest,
  normaliseModel,
  type CompareReport,
} from '../../../rules/compare/lib/index.js';
import { assumptionText, ruleText } from '../../../rules/compare/lib/normalise.js';
import { model, prng, request, scrambled, stuckToggle, toggle } from '../../_support/models.js';

function report(req: Record<string, unknown>): CompareReport {
  const out = compareRequest(req);
  assert.ok(out.ok, JSON.stringify(out));
  return out.report;
}

const spec = {
  states: ['a', 'b', 'c', '\u{1F600}', '\uFFFF'],
  inputs: ['x', 'y'],
  actions: ['go', 'stop'],
  observations: ['o1', 'o2'],
  assumptions: [
    ['go', 'x'],
    ['go', 'y'],
    ['stop', 'x'],
  ] as Array<[string, string]>,
  obs: { c: 'o2', '\uFFFF': 'o2' },
};
const before = model({
  ...spec,
  rules: [
    ['a', 'go', ['x', 'y'], ['b', '\uFFFF']],
    ['b', 'stop', ['x'], ['a', '\u{1F600}']],
    ['c', 'go', ['x'], ['a']],
  ],
});
const after = model({
  ...spec,
  rules: [
    ['a', 'go', ['y', 'x'], ['\uFFFF', 'b']],
    ['b', 'go', ['x'], ['c', '\u{1F600}']],
    ['\u{1F600}', 'stop', ['x'], ['\uFFFF']],
  ],
});

test('shuffled arrays: same digests, same report', () => {
  const rand = prng(42);
  for (const [b, a] of [
    [before, after],
    [toggle(), stuckToggle()],
  ] as const) {
    const expected = report(request(b, a));
    assert.equal(expected.result, 'different');
    for (let k = 0; k < 25; k++) {
      const sb = scrambled(b, rand);
      const sa = scrambled(a, rand);
      assert.equal(modelDigest(sb), modelDigest(b));
      assert.equal(modelDigest(sa), modelDigest(a));
      assert.deepEqual(normaliseModel(sb), normaliseModel(b));
      const got = report(request(sb, sa));
      assert.equal(canonicalJson(got), canonicalJson(expected));
      assert.deepEqual(got, expected);
      const text = compareRequestText(JSON.stringify(request(sb, sa)));
      assert.ok(text.ok);
      assert.deepEqual(text.report, expected);
    }
  }
});

test('a scrambled model is equivalent to itself', () => {
  const rand = prng(3);
  const out = report(request(before, scrambled(before, rand)));
  assert.equal(out.result, 'equivalent');
  assert.equal(out.models.before.sha256, out.models.after.sha256);
});

test('the digest changes when the model does', () => {
  const changed = structuredClone(before);
  changed.state_observations.a = 'o2';
  assert.notEqual(modelDigest(changed), modelDigest(before));
  const renamedInput = structuredClone(toggle());
  (renamedInput.rules[0] as { inputs: string[] }).inputs = ['tap'];
  assert.equal(modelDigest(renamedInput), modelDigest(toggle()));
});

test('the sort keys of rules and assumptions are their RFC 8785 texts', () => {
  const tricky = [
    'a',
    'A',
    '"',
    '\\',
    '\n',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u2028',
    '\u00e9',
    'e\u0301',
    '\uFFFF',
    '\u{1F600}',
    '</script>',
    '\u{10FFFF}',
  ];
  const rand = prng(5);
  const pick = () => tricky[Math.floor(rand() * tricky.length)] as string;
  for (let k = 0; k < 300; k++) {
    const rule = { action: pick(), inputs: [pick(), pick()], source: pick(), targets: [pick()] };
    assert.equal(ruleText(rule), canonicalJson(rule));
    const a = { action: pick(), input: pick() };
    assert.equal(assumptionText(a), canonicalJson(a));
  }
});
