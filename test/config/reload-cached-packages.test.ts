/**
 * A long-lived process (`vkit watch`, `vkit mcp`) loads the config again on every change. Packages
 * the config imports by name stay in node's module cache, so the second load would run their first
 * code: a workspace package that now declares one more check would go on declaring the old list, and
 * the gate would be READY without the new requirement. Such a reload is refused instead.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { VkitError } from '../../src/errors.js';
import { sections, tempRepo } from '../_support/repo.js';

const CHECKS = (ids: string[]) =>
  `export const checks = ${JSON.stringify(ids.map((id) => ({ id, run: ['node', '-e', '0'], inputs: ['a.txt'] })))};\n`;

/** A repo whose config takes its checks from package `name`, whose files live in `dir`. */
const packageRepo = (dir: string, name: string) =>
  tempRepo({
    '.gitignore': 'node_modules\n',
    'a.txt': 'a\n',
    [`${dir}/package.json`]: JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'index.js' }),
    [`${dir}/index.js`]: CHECKS(['one']),
    'vkit.config.ts': `import { defineConfig } from 'vkit';\nimport { checks } from '${name}';\nexport default defineConfig({ checks });\n`,
  });

const checkIds = async (root: string) => sections((await loadConfig(root)).manifest).checks.map((c) => c.id);

test('reloading a config whose imported workspace package changed is refused, not served from the module cache', async () => {
  const repo = packageRepo('packages/checks', '@acme/checks');
  mkdirSync(join(repo.dir, 'node_modules', '@acme'), { recursive: true });
  symlinkSync(join('..', '..', 'packages', 'checks'), join(repo.dir, 'node_modules', '@acme', 'checks'));
  try {
    assert.deepEqual(await checkIds(repo.dir), ['one']);
    // Unchanged code reloads fine (watch reloads on every cycle).
    assert.deepEqual(await checkIds(repo.dir), ['one']);

    repo.write('packages/checks/index.js', CHECKS(['one', 'two']));
    await assert.rejects(loadConfig(repo.dir), (error: unknown) => {
      assert.ok(error instanceof VkitError);
      assert.equal(error.code, 'ERR_CONFIG_RELOAD');
      assert.equal(error.exitCode, 2);
      assert.match(error.hint ?? '', /Restart `vkit watch`/);
      return true;
    });
  } finally {
    repo.cleanup();
  }
});

test('an installed package edited in node_modules is refused on reload; an untouched one reloads', async () => {
  const repo = packageRepo('node_modules/plain-checks', 'plain-checks');
  try {
    assert.deepEqual(await checkIds(repo.dir), ['one']);
    assert.deepEqual(await checkIds(repo.dir), ['one']);
    repo.write('node_modules/plain-checks/index.js', CHECKS(['one', 'two']));
    await assert.rejects(loadConfig(repo.dir), /plain-checks\/index\.js changed/);
  } finally {
    repo.cleanup();
  }
});

// Last in this file: once a config that loads modules at run time was loaded, this process refuses every later one.
test('a config that loads modules esbuild cannot see (createRequire) is never reloaded in the same process', async () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'checks.cjs': `module.exports = ${JSON.stringify([{ id: 'one', run: ['node', '-e', '0'], inputs: ['a.txt'] }])};\n`,
    'vkit.config.ts':
      "import { createRequire } from 'node:module';\nimport { defineConfig } from 'vkit';\nconst load = createRequire(import.meta.url);\nexport default defineConfig({ checks: load('./checks.cjs') });\n",
  });
  try {
    assert.deepEqual(await checkIds(repo.dir), ['one']);
    // node's require cache would answer the old list even after checks.cjs gains a check.
    repo.write(
      'checks.cjs',
      `module.exports = ${JSON.stringify(['one', 'two'].map((id) => ({ id, run: ['node', '-e', '0'], inputs: ['a.txt'] })))};\n`,
    );
    await assert.rejects(
      loadConfig(repo.dir),
      (error: unknown) =>
        error instanceof VkitError && error.code === 'ERR_CONFIG_RELOAD' && /cannot identify/.test(error.message),
    );
  } finally {
    repo.cleanup();
  }
});
