/**
 * A replay is PASS only when the fresh check would be a PASS gate item. An
 * acceptance decision's effect is judged at gate time (rule.judge): its action outcome stays PASS
 * after the decision expires, so a replay that reads only the fresh receipt's outcome would say
 * PASS for a decision the gate calls STALE.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { acceptanceRepo } from '../_support/acceptance-docs.js';

test('an expired acceptance decision never replays PASS', () => {
  // Issued and expired well before today: valid as a record, never eligible for effect now.
  const { repo } = acceptanceRepo({ trio: { decisionIssuedAt: '2020-01-01T10:00:00Z', validUntil: '2020-06-01' } });
  const out = mkdtempSync(join(tmpdir(), 'vkit-review-'));
  try {
    const built = cli(repo, ['build', '--json']);
    const item = built.json().gate.items.find((i: { id: string }) => i.id === 'accept:slug');
    assert.equal(item.status, 'STALE', JSON.stringify(item));
    assert.equal(built.code, 3);
    const run = item.run as string;
    assert.ok(run, 'the action ran and recorded a run');
    const exported = cli(repo, ['evidence', 'export', '--run', run, '--out', join(out, 'b.tar'), '--json']);
    assert.equal(exported.code, 0, exported.stdout + exported.stderr);
    const replay = cli(repo, ['evidence', 'replay', join(out, 'b.tar'), '--json']);
    assert.notEqual(replay.json().status, 'PASS', replay.stdout);
    assert.notEqual(replay.code, 0, replay.stdout);
    assert.match(replay.json().reason, /expired/);
  } finally {
    repo.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
});
