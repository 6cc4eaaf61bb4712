/**
 * The compiled-config cache (bundle-cache.ts) with real esbuild and real files: a kept bundle is
 * used only while every module, the listing of each module's directory and every package.json /
 * tsconfig.json on the way up are as they were. Each test first proves the entry is in use (its
 * kept text is rewritten to name another check, and an unchanged load shows that check), then makes
 * one change and expects the real config again: a stale bundle would keep the rewritten check.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { keptConfigs } from '../../src/fast/kept-configs.js';
import { sections } from '../_support/repo.js';

const base = mkdtempSync(join(tmpdir(), 'vkit-bundle-cache-'));
process.once('exit', () => rmSync(base, { recursive: true, force: true }));
const past = new Date(Date.now() - 60_000);

/** A project whose config imports `./lib` (lib/index.ts: the check's id), its files dated a minute ago. */
function project(): { root: string; cache: string } {
  const root = mkdtempSync(join(base, 'p-'));
  mkdirSync(join(root, 'lib'));
  writeFileSync(join(root, 'lib', 'index.ts'), "export const id = 'from-index';\n");
  writeFileSync(
    join(root, 'vkit.config.ts'),
    "import { defineConfig } from 'vkit';\nimport { id } from './lib';\nexport default defineConfig({ checks: [{ id, run: ['true'], inputs: ['vkit.config.ts'] }] });\n",
  );
  for (const f of ['lib/index.ts', 'vkit.config.ts', 'lib', '.']) utimesSync(join(root, f), past, past);
  // Outside the project, like the store under .git: a directory appearing in the root is a change.
  return { root, cache: mkdtempSync(join(base, 'cache-')) };
}

const entries = (p: { cache: string }) => (existsSync(p.cache) ? readdirSync(p.cache) : []);

async function ids(p: { root: string; cache: string }): Promise<string[]> {
  const config = await loadConfig(p.root, { kept: keptConfigs({ bundles: p.cache }) });
  await config.close();
  return (sections(config.manifest).checks ?? []).map((c) => c.id);
}

/** Loads once (keeping the bundle), rewrites the kept text to say `kept`, and shows it is used. */
async function kept(p: { root: string; cache: string }): Promise<void> {
  assert.deepEqual(await ids(p), ['from-index']);
  const files = readdirSync(p.cache);
  assert.equal(files.length, 1, 'one entry kept');
  const file = join(p.cache, files[0]!);
  const entry = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(entry.text.includes('from-index'));
  entry.text = entry.text.replace('from-index', 'kept');
  writeFileSync(file, JSON.stringify(entry));
  assert.deepEqual(await ids(p), ['kept'], 'an unchanged config loads the kept bundle');
}

test('an edited module is bundled again', async () => {
  const p = project();
  await kept(p);
  writeFileSync(join(p.root, 'lib', 'index.ts'), "export const id = 'edited';\n");
  assert.deepEqual(await ids(p), ['edited']);
});

test('a file that changes what an import resolves to is bundled again (./lib.ts before ./lib/index.ts)', async () => {
  const p = project();
  await kept(p);
  writeFileSync(join(p.root, 'lib.ts'), "export const id = 'from-lib-ts';\n");
  assert.deepEqual(await ids(p), ['from-lib-ts']);
});

test('a tsconfig.json appearing on the way up is bundled again; one with extends is never kept', async () => {
  const p = project();
  await kept(p);
  writeFileSync(join(p.root, 'tsconfig.json'), '{ "compilerOptions": {} }\n');
  assert.deepEqual(await ids(p), ['from-index']);
  rmSync(p.cache, { recursive: true, force: true });
  writeFileSync(join(p.root, 'tsconfig.json'), '{ "extends": "./base.json" }\n');
  writeFileSync(join(p.root, 'base.json'), '{}\n');
  utimesSync(join(p.root, 'tsconfig.json'), past, past);
  assert.deepEqual(await ids(p), ['from-index']);
  assert.equal(entries(p).length, 0, 'nothing kept');
});

test('a bundle of files changed since its build started is not kept; a damaged entry is a miss', async () => {
  const p = project();
  // Dated in the future: as if written while esbuild was reading it.
  const soon = new Date(Date.now() + 60_000);
  utimesSync(join(p.root, 'lib', 'index.ts'), soon, soon);
  assert.deepEqual(await ids(p), ['from-index']);
  assert.equal(entries(p).length, 0, 'a racy module: nothing kept');
  utimesSync(join(p.root, 'lib', 'index.ts'), past, past);
  await kept(p);
  const file = join(p.cache, readdirSync(p.cache)[0]!);
  writeFileSync(file, '{ not json');
  assert.deepEqual(await ids(p), ['from-index']);
  assert.ok(JSON.parse(readFileSync(file, 'utf8')).text.includes('from-index'), 'written again');
});

test('a config importing a package is never kept', async () => {
  const p = project();
  mkdirSync(join(p.root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(p.root, 'node_modules', 'dep', 'package.json'), '{ "name": "dep", "main": "index.js" }\n');
  writeFileSync(join(p.root, 'node_modules', 'dep', 'index.js'), "exports.id = 'from-dep';\n");
  writeFileSync(
    join(p.root, 'vkit.config.ts'),
    "import { defineConfig } from 'vkit';\nimport dep from 'dep';\nexport default defineConfig({ checks: [{ id: dep.id, run: ['true'], inputs: ['vkit.config.ts'] }] });\n",
  );
  utimesSync(join(p.root, 'vkit.config.ts'), past, past);
  assert.deepEqual(await ids(p), ['from-dep']);
  assert.equal(entries(p).length, 0);
});
