/**
 * Invariant 3 covers edits to captured files, but a file that starts to match the inputs while the
 * check runs is not in the capture: the check reads it, and its result is recorded (and cached)
 * under the key of a selection without it. Removing the file again then gets a cached PASS the
 * check would not give: a false green.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { openOpts } from '../_support/evidence.js';
import { waitFor } from '../_support/wait.js';
import { tempRepo, WATCHED_FROM_OUTSIDE } from '../_support/repo.js';

test('a file added to the inputs during the run makes the attempt BLOCKED, never a PASS cached for the selection without it', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-added-'));
  const marker = join(scratch, 'started');
  // Passes only if src/flag.txt shows up within 5 s of starting.
  const code = `const fs=require('fs');fs.writeFileSync(${JSON.stringify(marker)},'');const t0=Date.now();const i=setInterval(()=>{if(fs.existsSync('src/flag.txt'))process.exit(0);if(Date.now()-t0>5000)process.exit(1)},20);`;
  const repo = tempRepo({ 'src/a.txt': 'a\n' });
  repo.age('src/a.txt');
  repo.manifest({
    checks: [{ id: 'unit', run: ['node', '-e', code], inputs: ['src/**'], sandbox: WATCHED_FROM_OUTSIDE }],
  });
  try {
    const running = build(openOpts(repo));
    await waitFor(() => existsSync(marker), 10_000, 'the check to start');
    writeFileSync(join(repo.dir, 'src', 'flag.txt'), 'x\n');
    const first = await running;
    const action = first.actions.find((a) => a.label === 'check:unit')!;
    assert.notEqual(action.outcome, 'PASS', `the run saw an input outside its capture: ${action.reason}`);

    rmSync(join(repo.dir, 'src', 'flag.txt'));
    const second = await build(openOpts(repo));
    assert.notEqual(
      second.gate.status,
      'READY',
      'the selection without flag.txt must not be READY from the run that read it',
    );
  } finally {
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
});
