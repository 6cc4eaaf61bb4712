/**
 * Validated JSON manifests kept between processes (src/fast/manifest-cache.ts), with real files
 * and the real validator. An entry is proved in use first (its kept manifest is rewritten to name
 * another check, digest and all, and an unchanged load shows that check); then one thing changes
 * (the text by one byte, the code identity, the entry's bytes) and the real manifest must come back.
 * Generated manifests, valid and not, load the same with and without the cache.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { keptConfigs } from '../../src/fast/kept-configs.js';
import { sha256Id } from '../../src/hash/index.js';
import { generateManifest } from '../_support/fuzz-manifests.js';
import { caseRng } from '../_support/random.js';
import { sections, tempRepo, VKIT_BIN } from '../_support/repo.js';

const base = mkdtempSync(join(tmpdir(), 'vkit-manifest-cache-'));
after(() => {
  installCodeIdentity(undefined);
  rmSync(base, { recursive: true, force: true });
});

const MANIFEST = { checks: [{ id: 'real', run: ['true'], inputs: ['vkit.manifest.json'] }] };

function project(data: unknown = MANIFEST): { root: string; cache: string } {
  const root = mkdtempSync(join(base, 'p-'));
  writeFileSync(join(root, 'vkit.manifest.json'), `${JSON.stringify(data, null, 2)}\n`);
  return { root, cache: join(root, '.kept') };
}

/** The running code's identity, as bin/vkit.js gives it to the speed layer. */
let code: string | undefined;
const installCodeIdentity = (identity: string | undefined) => void (code = identity);
const load = (root: string, cache?: string) => loadConfig(root, { kept: keptConfigs({ manifests: cache }, code) });
const ids = (c: LoadedConfig) => sections(c.manifest).checks.map((k) => k.id);

function entries(cache: string): string[] {
  try {
    return readdirSync(cache).map((f) => join(cache, f));
  } catch {
    return [];
  }
}

/** Rewrites the kept manifest to name `id`, keeping the entry self-consistent (its digest follows). */
function forge(cache: string, id: string): void {
  const [file] = entries(cache);
  assert.ok(file, 'an entry was kept');
  const entry = JSON.parse(readFileSync(file, 'utf8'));
  entry.manifest = entry.manifest.replace('"real"', JSON.stringify(id));
  entry.manifest_sha256 = sha256Id(entry.manifest);
  writeFileSync(file, JSON.stringify(entry));
}

test('without a code identity nothing is kept', async () => {
  installCodeIdentity(undefined);
  const { root, cache } = project();
  assert.deepEqual(ids(await load(root, cache)), ['real']);
  assert.deepEqual(entries(cache), []);
});

test('a kept manifest is used for the same text, and one changed byte validates it anew', async () => {
  installCodeIdentity('code-a');
  const { root, cache } = project();
  const fresh = await load(root, cache);
  forge(cache, 'forged');
  const kept = await load(root, cache);
  assert.deepEqual(ids(kept), ['forged'], 'the entry is in use');
  assert.equal(kept.policyDigest, fresh.policyDigest);
  // A trailing space: the same manifest, other bytes.
  writeFileSync(join(root, 'vkit.manifest.json'), `${readFileSync(join(root, 'vkit.manifest.json'), 'utf8')} `);
  assert.deepEqual(ids(await load(root, cache)), ['real']);
  assert.equal(entries(cache).length, 1, 'one slot per config file: the edit replaced the entry');
});

test('another code identity does not read what this one kept', async () => {
  installCodeIdentity('code-a');
  const { root, cache } = project();
  await load(root, cache);
  forge(cache, 'forged');
  assert.deepEqual(ids(await load(root, cache)), ['forged']);
  installCodeIdentity('code-b');
  assert.deepEqual(ids(await load(root, cache)), ['real']);
});

test('a damaged entry is a miss and is written again', async () => {
  installCodeIdentity('code-a');
  const { root, cache } = project();
  await load(root, cache);
  const [file] = entries(cache);
  const entry = JSON.parse(readFileSync(file!, 'utf8'));
  // The kept text altered without its digest: a damaged entry, never a different manifest.
  writeFileSync(file!, JSON.stringify({ ...entry, manifest: entry.manifest.replace('"real"', '"forged"') }));
  assert.deepEqual(ids(await load(root, cache)), ['real']);
  writeFileSync(file!, readFileSync(file!, 'utf8').slice(0, 40));
  assert.deepEqual(ids(await load(root, cache)), ['real']);
  forge(cache, 'forged');
  assert.deepEqual(ids(await load(root, cache)), ['forged'], 'written again, and in use');
});

test('generated manifests, valid or not, load the same with and without the cache', async () => {
  installCodeIdentity('code-a');
  const marks = mkdtempSync(join(base, 'marks-'));
  const outcome = async (root: string, cache?: string) => {
    try {
      const c = await load(root, cache);
      return { manifest: c.manifest, policy: c.policyDigest };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message} ${JSON.stringify(error)}` };
    }
  };
  let valid = 0;
  for (let i = 0; i < 60; i++) {
    const c = generateManifest(caseRng(0x6d63, i), marks);
    const root = mkdtempSync(join(base, 'g-'));
    writeFileSync(join(root, 'vkit.manifest.json'), c.bytes);
    const cache = join(root, '.kept');
    const plain = await outcome(root);
    const first = await outcome(root, cache);
    const second = await outcome(root, cache);
    assert.deepEqual(first, plain, `case ${i} (${c.generator}): first load`);
    assert.deepEqual(second, plain, `case ${i} (${c.generator}): kept load`);
    if ('manifest' in plain) valid++;
    else assert.equal(entries(cache).length, 0, `case ${i}: nothing kept for an invalid manifest`);
  }
  assert.ok(valid >= 10, `enough valid cases (${valid})`);
});

test('the bundled CLI keeps the manifest it validated in the store', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: ['true'], inputs: ['a.txt'] }] });
    const store = join(repo.dir, '.store');
    const run = () =>
      spawnSync(process.execPath, [VKIT_BIN, 'build', '--store', store], {
        cwd: repo.dir,
        env: { ...process.env, VKIT_DAEMON: '0', NO_COLOR: '1' },
        encoding: 'utf8',
      });
    const first = run();
    assert.equal(first.status, 0, first.stdout + first.stderr);
    assert.equal(entries(join(store, 'config-manifests')).length, 1, 'kept by the first build');
    // A hostile edit after the entry was kept: the text decides, so the error is the edit's.
    writeFileSync(join(repo.dir, 'vkit.manifest.json'), '{"checks": [], "checks": []}');
    const edited = run();
    assert.equal(edited.status, 2, edited.stdout + edited.stderr);
    assert.match(edited.stderr, /Duplicate key `checks`/);
  } finally {
    repo.cleanup();
  }
});
