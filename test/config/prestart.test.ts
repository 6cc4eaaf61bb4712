/**
 * The config thread the CLI boots ahead of need (isolate.ts `prestartConfigThread`, called by
 * bin/vkit.js through src/fast/hand-over.ts) must cost nothing when the guess is wrong: a process that
 * never loads a config still exits at once, and a thread that died before any config was sent to it
 * is not taken (the load starts another instead of waiting for an answer that cannot come).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { prestartConfigThread } from '../../src/config/isolate.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';

test('a prestarted thread nobody takes never keeps the process alive', () => {
  const isolate = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'config', 'isolate.js')).href;
  // A script file, not `-e`: a worker inherits node's flags, and `--input-type` would stop it at once.
  const dir = mkdtempSync(join(tmpdir(), 'vkit-prestart-'));
  const script = join(dir, 'prestart.mjs');
  writeFileSync(
    script,
    `const { prestartConfigThread } = await import(${JSON.stringify(isolate)});\nprestartConfigThread();\n`,
  );
  try {
    const started = Date.now();
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
    assert.equal(r.status, 0, `exit ${r.status} (null: still running after 20 s): ${r.stderr}`);
    assert.ok(Date.now() - started < 10_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a prestarted thread that died before it was taken is replaced, not waited on', async () => {
  const repo = tempRepo({
    'vkit.config.ts': `import { defineConfig } from 'vkit';\nexport default defineConfig({ checks: [{ id: 'a', run: ['true'], inputs: ['a.txt'] }] });\n`,
    'a.txt': 'a\n',
  });
  const memory = process.env.VKIT_CONFIG_MEMORY_MB;
  const timeout = process.env.VKIT_CONFIG_TIMEOUT_S;
  try {
    // A heap too small to start in: the thread ends while it waits to be taken.
    process.env.VKIT_CONFIG_MEMORY_MB = '1';
    prestartConfigThread();
    await new Promise((r) => setTimeout(r, 3000));
    process.env.VKIT_CONFIG_MEMORY_MB = '256';
    // Waiting on the dead thread could only end at this limit.
    process.env.VKIT_CONFIG_TIMEOUT_S = '20';
    const started = Date.now();
    const config = await loadConfig(repo.dir);
    await config.close();
    assert.deepEqual(
      (config.manifest.checks as { id: string }[]).map((c) => c.id),
      ['a'],
    );
    assert.ok(Date.now() - started < 15_000);
  } finally {
    if (memory === undefined) delete process.env.VKIT_CONFIG_MEMORY_MB;
    else process.env.VKIT_CONFIG_MEMORY_MB = memory;
    if (timeout === undefined) delete process.env.VKIT_CONFIG_TIMEOUT_S;
    else process.env.VKIT_CONFIG_TIMEOUT_S = timeout;
    repo.cleanup();
  }
});
