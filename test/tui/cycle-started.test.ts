/**
 * After an edit starts cycle 2, the TUI must not show cycle 1's READY as cycle 2's status (the header
 * read "vkit gate READY  cycle 2" before cycle 2 settled), nor a row as fresh PASS while its inputs
 * may just have changed; cycle 2's settle restores both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initialState, reduce } from '../../src/tui/state.js';
import { item, settled, started } from './events.js';

test('a started cycle never shows the previous gate as its own', () => {
  const s = [settled('READY', [item('check:a', 'PASS')], 1), started(2, ['a.txt'])].reduce(
    reduce,
    initialState('/r', '/s'),
  );
  assert.ok(!(s.gate === 'READY' && s.cycle === 2), `header would read "READY cycle 2" before cycle 2 settled`);
  const row = s.items.find((i) => i.id === 'check:a')!;
  assert.ok(
    !(row.status === 'PASS' && row.freshness === 'fresh'),
    'the row of an item whose inputs just changed is not fresh PASS',
  );
});

test("the started cycle's settle shows its own gate, rows fresh again", () => {
  const s = [
    settled('READY', [item('check:a', 'PASS')], 1),
    started(2, ['a.txt']),
    settled('REJECTED', [item('check:a', 'FAIL')], 2),
  ].reduce(reduce, initialState('/r', '/s'));
  assert.equal(s.gate, 'REJECTED');
  assert.equal(s.cycle, 2);
  const row = s.items.find((i) => i.id === 'check:a')!;
  assert.equal(row.status, 'FAIL');
  assert.equal(row.freshness, 'fresh');
});
