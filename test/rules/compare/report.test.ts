/**
 * Exit codes and the human rendering's safety: tokens that could pass for structure are quoted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compareExitCode,
  compareRequest,
  compareRequestText,
  renderCompareReport,
} from '../../../rules/compare/lib/index.js';
import { tok } from '../../../rules/compare/lib/report.js';
import { model, request } from '../../_support/models.js';

test('exit codes: equivalent 0, different 1, invalid 2, incomparable and unknown 3', () => {
  assert.equal(compareExitCode('equivalent'), 0);
  assert.equal(compareExitCode('different'), 1);
  assert.equal(compareExitCode('invalid'), 2);
  assert.equal(compareExitCode('incomparable'), 3);
  assert.equal(compareExitCode('unknown'), 3);
  assert.equal(compareRequestText('nope').exitCode, 2);
  assert.equal(compareRequest({}).exitCode, 2);
});

test('tokens are shown bare only when they cannot be mistaken for structure', () => {
  assert.equal(tok('closed'), 'closed');
  assert.equal(tok('half-open'), 'half-open');
  assert.equal(tok('caf\u00e9'), 'caf\u00e9');
  assert.equal(tok('\u{1F600}'), '"\u{1F600}"');
  assert.equal(tok('half open'), '"half open"');
  assert.equal(tok('a/b'), '"a/b"');
  assert.equal(tok('x-->y'), '"x-->y"');
  assert.equal(tok('say "hi"'), '"say \\"hi\\""');
  assert.equal(tok('evil\u202Etxt'), '"evil\\u{202e}txt"');
  assert.equal(tok('tab\there'), '"tab\\u{9}here"');
});

test('human output of a path through awkward tokens keeps its arrows unambiguous', () => {
  const spec = { states: ['a b', 'x-->y'], assumptions: [['go', 'x']] as Array<[string, string]> };
  const before = model({ ...spec, rules: [['a b', 'go', ['x'], ['x-->y']]] });
  const after = model({
    ...spec,
    observations: ['o', 'p'],
    obs: { 'x-->y': 'p' },
    rules: [['a b', 'go', ['x'], ['x-->y']]],
  });
  before.observations = ['o', 'p'];
  const out = compareRequest(request(before, after));
  assert.ok(out.ok);
  assert.match(renderCompareReport(out.report), /witness path in before: "a b" --go\/x--> "x-->y"\n/);
});
