/**
 * SARIF points a failing formal item at the line its verifier rejected, when that line is in the
 * work tree: a diagnostic's place comes first, the config entry after it; a place inside a package
 * or the worker, a line that is not a positive integer, or a diagnostic without a file is no place.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toSarif } from '../../src/gate/formats.js';
import type { Gate } from '../../src/gate/schema.js';
import { sourcePlaces } from '../../src/service/runs.js';
import { sarifErrors } from '../_support/sarif.js';

const TREE = new Set(['proofs/Ledger.v', 'proofs/Util.v']);
const inTree = (file: string) => TREE.has(file);

test('diagnostic places: tree files with a positive line only, errors first, at most ten, columns kept', () => {
  const places = sourcePlaces(
    [
      { severity: 'warning', message: 'unused', file: 'proofs/Util.v', line: 3 },
      { severity: 'error', message: 'in the package', file: 'packages/ledger/Spec.v', line: 9 },
      { severity: 'error', message: 'no line', file: 'proofs/Ledger.v' },
      { severity: 'error', message: 'line 0', file: 'proofs/Ledger.v', line: 0 },
      { severity: 'error', message: 'a string line', file: 'proofs/Ledger.v', line: '12' },
      { severity: 'error', message: 'the failing step', file: 'proofs/Ledger.v', line: 42, column: 7 },
      { severity: 'error', message: 'no file', line: 5 },
      null,
      'text',
    ],
    inTree,
  );
  assert.deepEqual(places, [
    { file: 'proofs/Ledger.v', line: 42, column: 7 },
    { file: 'proofs/Util.v', line: 3 },
  ]);
  const many = Array.from({ length: 25 }, (_, k) => ({ severity: 'error', file: 'proofs/Util.v', line: k + 1 }));
  assert.equal(sourcePlaces(many, inTree).length, 10);
});

test('SARIF: the rejected line first, then the config entry; the document still validates', () => {
  const gate: Gate = {
    schema: 'vkit.gate/1',
    status: 'REJECTED',
    reason: '1 required item failed',
    items: [
      { id: 'formal:ledger', required: true, status: 'FAIL', reason: 'an obligation failed', run: 'run_1' },
      { id: 'check:lint', required: true, status: 'PASS', reason: 'passed', run: 'run_2' },
    ],
  };
  const doc = toSarif(gate, '0.1.0', {
    configFile: 'vkit.config.ts',
    entryLines: { 'formal:ledger': 12, 'check:lint': 4 },
    tails: {},
    sourceLines: { 'formal:ledger': [{ file: 'proofs/Ledger.v', line: 42, column: 7 }] },
  }) as { runs: { results: { ruleId: string; locations: { physicalLocation: any }[] }[] }[] };
  assert.equal(sarifErrors(doc), undefined);
  const ledger = doc.runs[0]!.results.find((r) => r.ruleId === 'formal:ledger')!;
  assert.deepEqual(
    ledger.locations.map((l) => [l.physicalLocation.artifactLocation.uri, l.physicalLocation.region]),
    [
      ['proofs/Ledger.v', { startLine: 42, startColumn: 7 }],
      ['vkit.config.ts', { startLine: 12 }],
    ],
  );
  const lint = doc.runs[0]!.results.find((r) => r.ruleId === 'check:lint')!;
  assert.deepEqual(
    lint.locations.map((l) => l.physicalLocation.artifactLocation.uri),
    ['vkit.config.ts'],
    'an item without diagnostics points at its entry only',
  );
});
