import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { registry } from '../../rules/index.js';
import { jsonSchemaText, published } from '../../src/schemas.js';
import { REPO_ROOT } from '../_support/repo.js';

for (const [name, schema] of Object.entries(await published(registry))) {
  test(`schema/${name} matches the valibot schema it is generated from`, () => {
    const committed = readFileSync(join(REPO_ROOT, 'schema', name), 'utf8');
    assert.equal(committed, jsonSchemaText(schema, name), `schema/${name} is out of date: run \`npm run schemas\``);
  });
}

test('the manifest schema rejects unknown keys and lists the check fields', () => {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'vkit.manifest-3.schema.json'), 'utf8'));
  assert.equal(manifest.additionalProperties, false);
  const check = manifest.properties.checks.items;
  assert.deepEqual(Object.keys(check.properties).sort(), [
    'after',
    'cwd',
    'deps',
    'env',
    'expect',
    'id',
    'inputs',
    'line_endings',
    'outputs',
    'run',
    'sandbox',
    'timeout_s',
  ]);
  assert.deepEqual(check.required.sort(), ['id', 'inputs', 'run']);
});
