/**
 * A file the capture never selects (secret-looking name, nested target/), added
 * to the subject after a PASS, changes the subject identity the decision binds but not the action
 * key: the cached PASS must not stand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { vkit } from '../_support/repo.js';
import { acceptanceRepo, CHECK_DECISION } from '../_support/acceptance-docs.js';

const item = (r: ReturnType<typeof cli>) => r.json().gate.items.find((i: { id: string }) => i.id === 'accept:slug');

for (const path of ['acc/subject/.env.local']) {
  test(`\`${path}\` added to the subject after a PASS: never a cached PASS`, () => {
    const { repo, root } = acceptanceRepo();
    try {
      assert.equal(item(cli(repo, ['build', '--json'])).status, 'PASS');
      repo.write(path, 'X=1\n');
      const fresh = vkit([...CHECK_DECISION, '--root', root], { cwd: repo.dir });
      assert.equal(fresh.code, 1, `a fresh check refuses the subject: ${fresh.stdout}`);
      const r = cli(repo, ['build', '--json']);
      assert.notEqual(item(r).status, 'PASS', JSON.stringify(item(r)));
    } finally {
      repo.cleanup();
    }
  });
}
