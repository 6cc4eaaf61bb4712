/**
 * The `accept` action's key must cover every byte its subject identity reads.
 * The subject digest / commit comparison reads every listed file under the subject root, but the
 * action's capture skips secret-looking paths and every `target/` directory at any depth: a file
 * the check reads but the key does not cover could change and leave the cached PASS standing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { vkit } from '../_support/repo.js';
import { acceptanceRepo, CHECK_DECISION, SLUG_SUBJECT } from '../_support/acceptance-docs.js';

const item = (r: ReturnType<typeof cli>) => r.json().gate.items.find((i: { id: string }) => i.id === 'accept:slug');

const setup = (extra: Record<string, string>) => acceptanceRepo({ files: { ...SLUG_SUBJECT, ...extra } });

for (const [name, path] of [
  ['a secret-looking file', 'acc/subject/src/credentials.js'],
  ['a file under a nested target/ directory', 'acc/subject/src/target/gen.js'],
] as const) {
  test(`${name} of the subject edited after a PASS: never a cached PASS`, () => {
    const { repo } = setup({ [path]: 'export const v = 1;\n' });
    try {
      const first = cli(repo, ['build', '--json']);
      // Either the subject is refused outright (fail closed), or it passes and the edit is seen.
      if (item(first).status !== 'PASS') {
        assert.equal(item(first).status, 'BLOCKED', JSON.stringify(item(first)));
        assert.ok(item(first).reason.includes(path.slice('acc/'.length)), item(first).reason);
        return;
      }
      repo.write(path, 'export const v = 2;\n');
      const r = cli(repo, ['build', '--json']);
      assert.notEqual(item(r).status, 'PASS', JSON.stringify(item(r)));
      assert.notEqual(r.json().gate.status, 'READY');
    } finally {
      repo.cleanup();
    }
  });
}

test('a file added under a nested target/ directory of the subject after a PASS: never a cached PASS', () => {
  const { repo, root } = setup({});
  try {
    assert.equal(item(cli(repo, ['build', '--json'])).status, 'PASS');
    repo.write('acc/subject/src/target/gen.js', 'export const v = 1;\n');
    // A fresh check sees the new file (the crate digest leaves out only the crate's own top-level target/).
    const fresh = vkit([...CHECK_DECISION, '--root', root], { cwd: repo.dir });
    assert.equal(fresh.code, 1, fresh.stdout + fresh.stderr);
    const r = cli(repo, ['build', '--json']);
    assert.notEqual(item(r).status, 'PASS', JSON.stringify(item(r)));
    assert.notEqual(r.json().gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});
