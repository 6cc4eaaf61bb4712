/**
 * Invariant 4 (fast cases): BLOCKED results are never cached. A missing tool blocks before anything
 * runs; a check killed by a signal is BLOCKED, not FAIL; each next build tries again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build } from '../../src/service/index.js';
import { cli, openOpts, openStoreOf } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('a missing tool is BLOCKED ("tool not found"), exit 3, and nothing is cached', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [
        { id: 'argv', run: ['no-such-tool-xyz', '--flag'], inputs: ['a.txt'] },
        { id: 'shell', run: 'no-such-tool-xyz --flag', inputs: ['a.txt'] },
        { id: 'ok', run: nodeCheck('0'), inputs: ['a.txt'] },
      ],
    });
    const r = cli(repo, ['build', '--json']);
    assert.equal(r.code, 3, r.stderr);
    const report = r.json();
    assert.equal(report.gate.status, 'BLOCKED');
    for (const label of ['check:argv', 'check:shell']) {
      const a = report.actions.find((x: { label: string }) => x.label === label);
      assert.equal(a.status, 'blocked', label);
      assert.equal(a.outcome, 'BLOCKED', label);
      assert.match(a.reason, /tool not found: `no-such-tool-xyz`/, label);
      const item = report.gate.items.find((i: { id: string }) => i.id === label);
      assert.equal(item.status, 'BLOCKED');
    }
    const again = cli(repo, ['build', '--json']);
    assert.equal(again.code, 3);
    assert.deepEqual(
      again
        .json()
        .actions.map((a: { label: string; status: string }) => `${a.label}=${a.status}`)
        .sort(),
      ['check:argv=blocked', 'check:ok=cached', 'check:shell=blocked'],
    );
    const g = cli(repo, ['gate']);
    assert.equal(g.code, 3);
  } finally {
    repo.cleanup();
  }
});

test('a check killed by a signal is BLOCKED, not FAIL, and is run again by the next build', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [
        {
          id: 'sig',
          run: nodeCheck("process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 5000)"),
          inputs: ['a.txt'],
        },
      ],
    });
    const first = await build(openOpts(repo));
    const a = first.actions[0]!;
    assert.equal(a.outcome, 'BLOCKED');
    assert.equal(a.status, 'blocked');
    assert.match(a.reason ?? '', /killed by SIGTERM/);
    assert.equal(first.gate.status, 'BLOCKED');
    const store = openStoreOf(repo);
    try {
      assert.equal(store.actions.cacheGet(a.key!), undefined);
    } finally {
      store.close();
    }
    const second = await build(openOpts(repo));
    assert.equal(second.actions[0]!.status, 'blocked', 'ran again, not cached');
    assert.equal(second.stats.ran, 1);
    assert.equal(second.stats.cached, 0);
    assert.notEqual(second.actions[0]!.run, a.run);
  } finally {
    repo.cleanup();
  }
});

test('a shell string that exits 127 (command not found inside the shell) is BLOCKED, not FAIL', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'sh', run: 'true && no-such-tool-xyz', inputs: ['a.txt'] }] });
    const report = await build(openOpts(repo));
    assert.equal(report.actions[0]!.outcome, 'BLOCKED');
    assert.match(report.actions[0]!.reason ?? '', /command not found/);
    assert.equal(report.gate.status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});

test('a tool a check of this build makes is found by a check after it, though another asked for it before it existed (D59)', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'tool.src': '#!/bin/sh\nexit 0\n' });
  try {
    const make =
      "const fs = require('fs'); fs.mkdirSync('bin', { recursive: true }); fs.copyFileSync('tool.src', 'bin/tool'); fs.chmodSync('bin/tool', 0o755);";
    repo.manifest({
      checks: [
        // Asked first (listed first, nothing before it): the tool is not there yet.
        { id: 'early', run: ['./bin/tool'], inputs: ['a.txt'] },
        { id: 'make', run: ['node', '-e', make], inputs: ['tool.src'], outputs: ['bin/tool'] },
        { id: 'late', run: ['./bin/tool'], inputs: ['a.txt'], after: ['make'] },
      ],
    });
    const report = await build(openOpts(repo));
    const status = Object.fromEntries(report.actions.map((a) => [a.label, `${a.status} ${a.reason ?? ''}`.trim()]));
    assert.match(status['check:early']!, /^blocked tool not found/);
    assert.equal(status['check:make'], 'ran');
    assert.equal(status['check:late'], 'ran', 'the tool not found for an earlier check is looked for again');
  } finally {
    repo.cleanup();
  }
});
