/**
 * A variable the dynamic loader reads (`LD_PRELOAD`) reaches the check, and no program of the
 * sandbox that runs before the capabilities are dropped: each backend. A preload naming a missing
 * library makes ld.so complain once per program started with it, so the count of complaints says
 * how many programs saw it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runProcess, STATUS_FD } from '../../src/checkers/process.js';
import { confine } from '../../src/checkers/sandbox-backend.js';
import { sandboxBackends } from '../_support/sandboxes.js';

for (const backend of await sandboxBackends('sandbox-env')) {
  test(`[${backend.name}] LD_PRELOAD and friends reach the check, not the sandbox's own programs`, {
    skip: backend.skip,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-sandbox-env-'));
    try {
      const layout = { mode: 'isolated' as const, root: dir, cwd: dir, protect: [], keep: [] };
      const wrap = confine(layout, STATUS_FD, { ...process.env, ...backend.env });
      assert.notEqual(typeof wrap, 'string', String(wrap));
      if (typeof wrap === 'string') return;
      const preload = join(dir, 'vkit-missing-preload.so');
      const result = await runProcess(
        {
          argv: ['/bin/sh', '-c', 'printf "%s|%s|%s" "$LD_PRELOAD" "$TZDIR" "${VKIT_HIDDEN_LD_PRELOAD-unset}"'],
          cwd: dir,
          env: { PATH: '/usr/bin:/bin', LD_PRELOAD: preload, TZDIR: '/zone info', PLAIN: 'x' },
          timeoutMs: 20_000,
          signal: new AbortController().signal,
        },
        join(dir, 'out'),
        join(dir, 'err'),
        wrap,
      ).finally(() => wrap.cleanup());
      assert.equal(result.spawnError, undefined);
      assert.equal(result.exitCode, 0);
      assert.equal(readFileSync(join(dir, 'out'), 'utf8'), `${preload}|/zone info|unset`);
      const complaints = readFileSync(join(dir, 'err'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('vkit-missing-preload.so'));
      assert.equal(complaints.length, 1, `programs started with the preload:\n${complaints.join('\n')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
