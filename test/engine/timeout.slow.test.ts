/**
 * Invariant 4 (slow case): a check that outlives its timeout is BLOCKED, its whole process group
 * is killed (a grandchild too), nothing is cached, and the next build runs it again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { cli, openOpts, openStoreOf } from '../_support/evidence.js';
import { processGone, waitFor } from '../_support/wait.js';
import { nodeCheck, tempRepo, WATCHED_FROM_OUTSIDE } from '../_support/repo.js';

test('timeout: BLOCKED, process group killed, not cached, rerun by the next build (exit 3)', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-pids-'));
  const pidFile = join(scratch, 'pids');
  const pids: number[] = [];
  try {
    repo.manifest({
      checks: [
        {
          id: 'hangs',
          // Starts a grandchild in the same process group, records both pids, then sleeps 5 s.
          run: nodeCheck(
            "const c = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' }); require('fs').writeFileSync(process.env.VKIT_TEST_PIDS, process.pid + ' ' + c.pid); setTimeout(() => {}, 5000)",
          ),
          inputs: ['a.txt'],
          timeout_s: 1,
          env: ['VKIT_TEST_PIDS'],
          sandbox: WATCHED_FROM_OUTSIDE,
        },
      ],
    });
    const env = { ...process.env, VKIT_TEST_PIDS: pidFile };
    const t0 = Date.now();
    const first = await build(openOpts(repo, { env }));
    const elapsed = Date.now() - t0;
    const a = first.actions[0]!;
    assert.equal(a.outcome, 'BLOCKED');
    assert.equal(a.status, 'blocked');
    assert.equal(a.reason, 'timeout after 1 s');
    assert.ok(elapsed < 4000, `the check was stopped at its timeout, not after its 5 s sleep (${elapsed} ms)`);
    assert.equal(first.gate.status, 'BLOCKED');
    pids.push(...readFileSync(pidFile, 'utf8').split(' ').map(Number));
    assert.equal(pids.length, 2);
    await waitFor(() => pids.every(processGone), 2000, 'the check and its grandchild to be gone');

    const store = openStoreOf(repo);
    try {
      assert.equal(store.actions.cacheGet(a.key!), undefined, 'a timeout is never cached');
    } finally {
      store.close();
    }

    const second = cli(repo, ['build', '--json'], env);
    assert.equal(second.code, 3, second.stderr);
    const again = second.json().actions[0];
    assert.equal(again.status, 'blocked', 'run again, not reported cached');
    assert.equal(again.reason, 'timeout after 1 s');
    assert.equal(again.key, a.key);
    assert.notEqual(again.run, a.run);
    assert.equal(second.json().gate.items[0].status, 'BLOCKED');
  } finally {
    for (const pid of pids) if (!processGone(pid)) process.kill(pid, 'SIGKILL');
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});
