/**
 * Loading `vkit.config.ts` as vite does: bundled by esbuild into a temp module beside the config,
 * imported, then deleted. Run in-process through `loadConfig`, from temp dirs outside this repository
 * (so a bare `vkit` import can only resolve through the loader's alias).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { InvalidInputError } from '../../src/errors.js';
import { sections, tempRepo, vkit } from '../_support/repo.js';

/** A plain temp dir (no git) holding the given files; realpath'd so path comparisons hold. */
function tempDir(files: Record<string, string>): { dir: string; cleanup(): void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vkit-config-')));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.includes('.timestamp-'));

const CONFIG_WITH_HELPER = `
import { defineConfig } from 'vkit';
import { checks } from './checks.ts';
export default defineConfig({ checks });
`;
const HELPER = `
import { ids } from './ids.ts';
export const checks = ids.map((id) => ({ id, run: ['node', '-e', '0'], inputs: ['a.txt'], timeout_s: 30 }));
`;
const IDS = `export const ids = ['lint', 'unit'];\n`;

test('vkit.config.ts outside the repo: `vkit` import resolves, local imports are listed in sources, temp module removed', async () => {
  const t = tempDir({ 'vkit.config.ts': CONFIG_WITH_HELPER, 'checks.ts': HELPER, 'ids.ts': IDS, 'a.txt': 'a\n' });
  try {
    const loaded = await loadConfig(t.dir);
    assert.equal(loaded.file, join(t.dir, 'vkit.config.ts'));
    assert.deepEqual(
      sections(loaded.manifest).checks.map((c) => [c.id, c.timeout_s, c.cwd]),
      [
        ['lint', 30, '.'],
        ['unit', 30, '.'],
      ],
    );
    // The config and every local module it imports, transitively: what watch reloads on.
    assert.deepEqual(loaded.sources, [join(t.dir, 'checks.ts'), join(t.dir, 'ids.ts'), join(t.dir, 'vkit.config.ts')]);
    assert.deepEqual(leftovers(t.dir), []);
  } finally {
    t.cleanup();
  }
});

test('a config module that throws while loading: ERR_CONFIG_THREW (exit 2) and the temp module is still removed', async () => {
  const t = tempDir({ 'vkit.config.ts': `throw new Error('boom from config');\nexport default {};\n` });
  try {
    await assert.rejects(loadConfig(t.dir), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.equal(error.code, 'ERR_CONFIG_THREW');
      assert.equal(error.exitCode, 2);
      assert.match(error.message, /boom from config/);
      return true;
    });
    assert.deepEqual(leftovers(t.dir), []);
  } finally {
    t.cleanup();
  }
});

test('a default export that is a function is called; its result is the config', async () => {
  const t = tempDir({
    'vkit.config.ts': `import { defineConfig } from 'vkit';\nexport default defineConfig(async () => ({ checks: [{ id: 'fn', run: 'true', inputs: ['a.txt'] }] }));\n`,
  });
  try {
    const loaded = await loadConfig(t.dir);
    assert.deepEqual(
      sections(loaded.manifest).checks.map((c) => c.id),
      ['fn'],
    );
  } finally {
    t.cleanup();
  }
});

test('vkit.config.ts and the equivalent vkit.manifest.json give the same policy digest; a changed field changes it', async () => {
  const ts = tempDir({
    'vkit.config.ts': `import { defineConfig } from 'vkit';
export default defineConfig({
  checks: [
    { id: 'a', run: ['node', '-e', '0'], inputs: ['a.txt'] },
    { id: 'b', run: 'echo hi', inputs: ['*.txt'], after: ['a'], env: ['CI'] },
  ],
});
`,
  });
  // The same policy spelled out with every default, in another key order, with an editor `$schema` hint.
  const manifest = {
    $schema: './node_modules/vkit/schema/manifest.json',
    schema_version: 3,
    formal: { components: [] },
    checks: [
      {
        inputs: ['a.txt'],
        id: 'a',
        run: ['node', '-e', '0'],
        cwd: '.',
        after: [],
        outputs: [],
        timeout_s: 600,
        env: [],
        expect: { exit_code: 0 },
      },
      { id: 'b', run: 'echo hi', inputs: ['*.txt'], after: ['a'], env: ['CI'], timeout_s: 600 },
    ],
  };
  const json = tempDir({ 'vkit.manifest.json': JSON.stringify(manifest, null, 2) });
  const changed = tempDir({
    'vkit.manifest.json': JSON.stringify({
      ...manifest,
      checks: [manifest.checks[0], { ...manifest.checks[1], timeout_s: 601 }],
    }),
  });
  try {
    const [a, b, c] = await Promise.all([loadConfig(ts.dir), loadConfig(json.dir), loadConfig(changed.dir)]);
    assert.match(a.policyDigest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(a.manifest, b.manifest);
    assert.equal(a.policyDigest, b.policyDigest);
    assert.notEqual(c.policyDigest, b.policyDigest);
    assert.deepEqual(b.sources, [join(json.dir, 'vkit.manifest.json')]);
  } finally {
    ts.cleanup();
    json.cleanup();
    changed.cleanup();
  }
});

test('CLI: `import { defineConfig } from "vkit"` in a temp repo outside this checkout builds READY', () => {
  const repo = tempRepo({
    'vkit.config.ts': `import { defineConfig } from 'vkit';\nexport default defineConfig({ checks: [{ id: 'a', run: ['node', '-e', '0'], inputs: ['a.txt'] }] });\n`,
    'a.txt': 'a\n',
  });
  try {
    const r = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = r.json();
    assert.deepEqual(
      report.actions.map((a: { label: string; status: string }) => [a.label, a.status]),
      [['check:a', 'ran']],
    );
    assert.equal(report.gate.status, 'READY');
    assert.deepEqual(leftovers(repo.dir), []);
  } finally {
    repo.cleanup();
  }
});
