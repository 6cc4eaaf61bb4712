/**
 * A retried run re-executes a frozen job whose key holds the checker identity computed when it was
 * planned. If the tool on PATH has changed since, the worker must not run the new tool under the old
 * identity: that PASS would be cached under the old key, and the old (failing) tool would then get a
 * cached PASS: a false green.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

test('run retry after the tool changed is BLOCKED, and the old tool never gets a cached PASS', () => {
  const bin = mkdtempSync(join(tmpdir(), 'vkit-tool-'));
  const tool = join(bin, 'vkit-review-tool');
  const setTool = (exit: number) => {
    writeFileSync(tool, `#!/bin/sh\n# variant ${exit}\nexit ${exit}\n`);
    chmodSync(tool, 0o755);
  };
  const env = { PATH: `${bin}${delimiter}${process.env.PATH}` };
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({ checks: [{ id: 'unit', run: ['vkit-review-tool'], inputs: ['a.txt'] }] });
  try {
    setTool(1); // the tool fails
    const first = cli(repo, ['build', '--json'], env);
    assert.equal(first.code, 1, first.stdout + first.stderr);
    const failedRun = first.json().actions.find((a: { label: string }) => a.label === 'check:unit').run as string;

    setTool(0); // a different tool, which passes
    const retried = cli(repo, ['run', 'retry', '--run', failedRun, '--json'], env);
    assert.notEqual(retried.code, 0, `a retry under another tool identity must not PASS: ${retried.stdout}`);
    assert.notEqual(retried.json().summary.outcome, 'PASS');

    setTool(1); // back to the original, failing tool: its key is the failed run's key again
    const again = cli(repo, ['build', '--json'], env);
    assert.equal(again.code, 1, `the failing tool must fail again, not be a cached PASS: ${again.stdout}`);
    const action = again.json().actions.find((a: { label: string }) => a.label === 'check:unit');
    assert.notEqual(action.outcome, 'PASS');
  } finally {
    repo.cleanup();
    rmSync(bin, { recursive: true, force: true });
  }
});
