/**
 * run_cancel over MCP stops a sleeping check's run in its detached worker: the run ends
 * `interrupted`, reason `cancelled`, outcome BLOCKED, and the gate is BLOCKED, never READY.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeCheck, tempRepo } from '../_support/repo.js';
import { connect } from '../_support/mcp-client.js';
import { sleep } from '../_support/wait.js';

test('run_cancel of a sleeping check ends it interrupted (cancelled); the gate is BLOCKED', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({
    checks: [{ id: 'sleepy', run: nodeCheck('setTimeout(() => {}, 60000)'), inputs: ['a.txt'], timeout_s: 120 }],
  });
  const mcp = await connect(repo);
  try {
    const v = await mcp.call('verify', { check: 'sleepy' });
    assert.equal(v.isError, false, JSON.stringify(v.json));
    assert.equal(v.json.state, 'running');
    const run = v.json.run;
    // Let the worker claim it, so the cancel goes through the running path (flag, SIGUSR2, kill).
    const deadline = Date.now() + 15_000;
    for (;;) {
      const s = await mcp.call('run_show', { run });
      if (s.json.summary.state === 'running') break;
      assert.ok(Date.now() < deadline, `the run never started: ${JSON.stringify(s.json.summary)}`);
      await sleep(50);
    }
    const t0 = Date.now();
    const cancelled = await mcp.call('run_cancel', { run });
    assert.equal(cancelled.isError, false, JSON.stringify(cancelled.json));
    assert.equal(cancelled.json.summary.run, run);
    assert.equal(cancelled.json.summary.state, 'interrupted');
    assert.equal(cancelled.json.summary.reason, 'cancelled');
    assert.equal(cancelled.json.summary.outcome, 'BLOCKED');
    assert.ok(Date.now() - t0 < 10_000, 'cancelled well before the check would have ended');

    const waited = await mcp.call('run_wait', { run, timeout_s: 5 });
    assert.equal(waited.json.summary.state, 'interrupted');
    const gate = await mcp.call('gate', {});
    assert.equal(gate.json.status, 'BLOCKED');
    assert.equal(gate.json.items[0].status === 'PASS', false);

    // Cancelling an ended run changes nothing.
    const again = await mcp.call('run_cancel', { run });
    assert.equal(again.json.summary.state, 'interrupted');
    assert.equal(again.json.summary.reason, 'cancelled');
  } finally {
    await mcp.close();
    repo.cleanup();
  }
});
