/** Where an item is declared: the line of its config entry, in a TS or JSON config. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entryLines } from '../../src/gate/locations.js';

test('an entry is found by its id key first, by its name written as a string else, never by a substring', () => {
  const ts = [
    "import { defineConfig } from 'vkit';",
    'export default defineConfig({',
    "  checks: [{ id: 'test', run: 'npm test', after: ['lint'] },",
    '    {',
    "      id: 'lint',",
    "      run: 'npm run lint',",
    '    },',
    "    { id: 'lint-extra', run: 'x' }],",
    '  formal: [{ name: "proofs" }],',
    '});',
  ].join('\n');
  assert.deepEqual(entryLines(ts, ['check:test', 'check:lint', 'check:lint-extra', 'formal:proofs', 'check:gone']), {
    'check:test': 3,
    'check:lint': 5,
    'check:lint-extra': 8,
    'formal:proofs': 9,
  });
  const json = '{\n  "checks": [\n    {\n      "id": "a.b"\n    }\n  ]\n}';
  assert.deepEqual(entryLines(json, ['check:a.b', 'check:axb']), { 'check:a.b': 4 });
});
