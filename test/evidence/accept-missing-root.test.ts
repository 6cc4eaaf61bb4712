/**
 * A package whose commit subject names a directory that does not exist is the
 * user's document error (an invalid record), never an internal error (exit 4).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { vkit } from '../_support/repo.js';
import { acceptanceRepo, CHECK_DECISION } from '../_support/acceptance-docs.js';

test('a commit subject whose root is missing: check-decision exits 1 naming it; the gate item is not PASS', () => {
  const { repo, root } = acceptanceRepo({ trio: { subjectRoot: 'no-such-dir' } });
  try {
    const r = vkit([...CHECK_DECISION, '--root', root], { cwd: repo.dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /no-such-dir/);
    const b = cli(repo, ['build', '--json']);
    const item = b.json().gate.items.find((i: { id: string }) => i.id === 'accept:slug');
    assert.notEqual(item.status, 'PASS', JSON.stringify(item));
  } finally {
    repo.cleanup();
  }
});
