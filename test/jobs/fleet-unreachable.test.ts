/**
 * NATS unreachable when a build submits its jobs: without a fallback each job ends BLOCKED naming
 * the server and how to run locally instead; with `fallback: 'local'` the build says so once and
 * runs them on this machine. Never a pass without a run. (No server is started: the port is free.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../_support/nginx.js';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';

const ENV = { VKIT_REMOTE_TIMEOUT_MS: '200', VKIT_SIGNING_KEY: '' };

test('NATS unreachable at submit: BLOCKED naming the server, or run here with fallback: local (said once)', async () => {
  const url = `nats://127.0.0.1:${await freePort()}`;
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const checks = ['one', 'two'].map((id) => ({ id, run: nodeCheck('0'), inputs: ['a.txt'] }));
    const remote = { url: 'http://127.0.0.1:1' };
    repo.manifest({ checks, remote, executor: { kind: 'nats', url } });
    const blocked = vkit(['build', '--json'], { cwd: repo.dir, env: ENV });
    assert.equal(blocked.code, 3, blocked.stderr);
    const items = blocked.json().gate.items as { id: string; status: string; reason: string }[];
    assert.deepEqual(
      items.map((i) => i.status),
      ['BLOCKED', 'BLOCKED'],
    );
    for (const i of items) {
      assert.match(i.reason, new RegExp(`NATS at ${url} is unreachable`));
      assert.match(i.reason, /set `fallback: 'local'` to run here instead/);
    }
    repo.manifest({ checks, remote, executor: { kind: 'nats', url, fallback: 'local' } });
    const here = vkit(['build', '--json'], { cwd: repo.dir, env: ENV });
    assert.equal(here.code, 0, here.stderr);
    assert.equal(here.json().gate.status, 'READY');
    assert.equal(here.json().stats.ran, 2);
    assert.equal(here.stderr.split("executor fallback: 'local'").length - 1, 1, here.stderr);
  } finally {
    repo.cleanup();
  }
});
