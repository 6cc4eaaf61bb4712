/**
 * A package whose commit subject names a directory that does not exist is the
 * user's document error (an invalid record), never an internal error (exit 4).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo, vkit } from '../_support/repo.js';
import { validTrio, writeTrio } from '../acceptance/_docs.js';

test('a commit subject whose root is missing: check-decision exits 1 naming it; the gate item is not PASS', () => {
  const repo = tempRepo({ 'acc/subject/slug.js': 'export const slug = (s) => s.trim();\n' });
  try {
    const commit = repo.commitAll('subject');
    writeTrio(
      `${repo.dir}/acc`,
      validTrio({ commit, subjectRoot: 'no-such-dir', validUntil: '2099-01-01', staleAfter: null }),
    );
    const r = vkit(
      [
        'acceptance',
        'check-decision',
        'acceptance-decision.toml',
        '--spec',
        'acceptance-specification.toml',
        '--package',
        'acceptance.toml',
        '--root',
        `${repo.dir}/acc`,
      ],
      { cwd: repo.dir },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /no-such-dir/);
    repo.manifest({
      acceptance: [
        {
          id: 'slug',
          root: 'acc',
          spec: 'acc/acceptance-specification.toml',
          package: 'acc/acceptance.toml',
          decision: 'acc/acceptance-decision.toml',
        },
      ],
    });
    const b = cli(repo, ['build', '--json']);
    const item = b.json().gate.items.find((i: { id: string }) => i.id === 'accept:slug');
    assert.notEqual(item.status, 'PASS', JSON.stringify(item));
  } finally {
    repo.cleanup();
  }
});
