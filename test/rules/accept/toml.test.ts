/** The TOML reader: parse errors are exit-2 errors with a line; the locator finds fields by path. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidInputError } from '../../../src/errors.js';
import { locate, parseDoc, pathText } from '../../../rules/accept/lib/toml.js';

const TEXT = `[format]
id = "acceptance/0.4"

[[claim]]
id = "A"
statement = """
several
lines = 3
"""

[[claim]]
id = "B"

  [claim.self_verify]
  command = "node t.js"

    [claim.self_verify.watched_fail]
    date = 2026-08-28

  [[claim.evidence]]
  kind = "unit-test"

  [[claim.evidence]]
  kind = "lint"
`;

test('locate finds keys inside arrays of tables, nested tables and their headers', () => {
  assert.equal(locate(TEXT, ['format', 'id']), 2);
  assert.equal(locate(TEXT, ['claim', 0, 'id']), 5);
  assert.equal(locate(TEXT, ['claim', 1, 'id']), 12);
  assert.equal(locate(TEXT, ['claim', 1, 'self_verify', 'command']), 15);
  assert.equal(locate(TEXT, ['claim', 1, 'self_verify', 'watched_fail', 'date']), 18);
  assert.equal(locate(TEXT, ['claim', 1, 'evidence', 1, 'kind']), 24);
  assert.equal(locate(TEXT, ['claim', 1, 'evidence', 1, 'missing']), 23, 'a missing key points at its table');
  assert.equal(locate(TEXT, ['claim', 0, 'bounds']), 4, 'the claim header');
  assert.equal(pathText(['claim', 1, 'self_verify', 'command']), 'claim[1].self_verify.command');
});

test('parseDoc normalises dates to their TOML text; a syntax error is exit 2 with the line', () => {
  const doc = parseDoc(Buffer.from(TEXT), 'acceptance.toml');
  const claims = doc.data.claim as { self_verify?: { watched_fail: { date: unknown } } }[];
  assert.equal(claims[1]!.self_verify!.watched_fail.date, '2026-08-28');
  assert.throws(
    () => parseDoc(Buffer.from('a = 1\nb = [\n'), 'bad.toml'),
    (e: unknown) =>
      e instanceof InvalidInputError && e.exitCode === 2 && e.issues[0]!.line === 3 && e.issues[0]!.file === 'bad.toml',
  );
});
