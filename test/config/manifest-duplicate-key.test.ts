/**
 * `JSON.parse` keeps the last of two members with the same name. A `vkit.manifest.json` with a second
 * `checks` (a bad merge, or a hostile edit) would then drop every check of the first list, which is
 * the one a reader sees first: the gate would be READY without them. A repeated key is a config error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

test('a manifest that repeats a key is a config error (exit 2), not a gate over the last copy', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.write(
    'vkit.manifest.json',
    `{
  "checks": [
    { "id": "unit", "run": ["false"], "inputs": ["a.txt"] },
    { "id": "lint", "run": ["true"], "inputs": ["a.txt"] }
  ],
  "checks": [
    { "id": "lint", "run": ["true"], "inputs": ["a.txt"] }
  ]
}
`,
  );
  try {
    for (const verb of ['build', 'gate']) {
      const r = cli(repo, [verb]);
      assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /Duplicate key `checks`/);
      assert.match(r.stderr, /vkit\.manifest\.json:6/, 'the repeat is named by its line');
    }
    // Nested too: a check whose second `run` would replace the one a reader sees.
    repo.write(
      'vkit.manifest.json',
      '{ "checks": [ { "id": "unit", "run": ["false"], "inputs": ["a.txt"], "run": ["true"] } ] }\n',
    );
    const nested = cli(repo, ['build']);
    assert.equal(nested.code, 2, nested.stdout + nested.stderr);
    assert.match(nested.stderr, /checks\[0\]\.run/);
  } finally {
    repo.cleanup();
  }
});

test('a vkit.config.ts object literal that repeats a key is a config error too', () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'vkit.config.ts': `import { defineConfig } from 'vkit';
export default defineConfig({
  checks: [{ id: 'unit', run: ['false'], inputs: ['a.txt'] }, { id: 'lint', run: ['true'], inputs: ['a.txt'] }],
  checks: [{ id: 'lint', run: ['true'], inputs: ['a.txt'] }],
});
`,
  });
  repo.age('a.txt');
  try {
    for (const verb of ['build', 'gate']) {
      const r = cli(repo, [verb]);
      assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /vkit\.config\.ts:4.*Duplicate key "checks"/);
    }
  } finally {
    repo.cleanup();
  }
});
