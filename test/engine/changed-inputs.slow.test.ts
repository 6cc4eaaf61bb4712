/**
 * Invariant 3 with a real race: the test edits the input from outside while the check process is
 * still running, and restores the original bytes before the check ends.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { build, gate } from '../../src/service/index.js';
import { openOpts } from '../_support/evidence.js';
import { sleep, waitFor } from '../_support/wait.js';
import { nodeCheck, tempRepo, WATCHED_FROM_OUTSIDE } from '../_support/repo.js';

test('an input edited and restored by someone else while the check sleeps: BLOCKED, then rerun and PASS', async () => {
  const repo = tempRepo({ 'in.txt': 'original\n' });
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-mark-'));
  try {
    repo.age('in.txt');
    // The check sleeps 1.5 s on its first attempt only (the marker records that it started).
    repo.manifest({
      checks: [
        {
          id: 'slow',
          run: nodeCheck(
            "const fs = require('fs'); fs.readFileSync('in.txt'); const m = process.env.VKIT_TEST_MARK; if (!fs.existsSync(m)) { fs.writeFileSync(m, 'started'); setTimeout(() => {}, 1500); }",
          ),
          inputs: ['in.txt'],
          env: ['VKIT_TEST_MARK'],
          sandbox: WATCHED_FROM_OUTSIDE,
        },
      ],
    });
    const mark = join(scratch, 'mark');
    const env = { ...process.env, VKIT_TEST_MARK: mark };
    const running = build(openOpts(repo, { env }));
    await waitFor(() => existsSync(mark), 10_000, 'the check to start');
    const original = readFileSync(join(repo.dir, 'in.txt'));
    repo.write('in.txt', 'edited mid-run\n');
    await sleep(100);
    repo.write('in.txt', original);
    const first = await running;
    assert.ok(first.actions[0]!.ms >= 1000, `the check was still running when edited (${first.actions[0]!.ms} ms)`);
    assert.equal(first.actions[0]!.outcome, 'BLOCKED');
    assert.match(first.actions[0]!.reason ?? '', /inputs changed during the run: in\.txt/);
    assert.equal(first.gate.status, 'BLOCKED');
    assert.equal((await gate(openOpts(repo, { env }))).gate.status, 'BLOCKED');

    const second = await build(openOpts(repo, { env }));
    assert.equal(second.actions[0]!.key, first.actions[0]!.key, 'the bytes are the original ones');
    assert.equal(second.actions[0]!.status, 'ran');
    assert.equal(second.actions[0]!.outcome, 'PASS');
    assert.equal(second.gate.status, 'READY');
  } finally {
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});
