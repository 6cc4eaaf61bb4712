import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';

test('build then no-op build: second run reports everything cached, same gate', () => {
  const repo = tempRepo({ 'a.txt': 'hello\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("require('fs').readFileSync('a.txt')"), inputs: ['a.txt'] }] });
    const first = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json().actions[0].status, 'ran');
    const second = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(second.code, 0, second.stderr);
    const report = second.json();
    assert.deepEqual(
      report.actions.map((a: { status: string }) => a.status),
      ['cached'],
    );
    assert.equal(report.gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});
