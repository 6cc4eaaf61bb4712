/**
 * Feedback never affects results or gates: with and without git, a one-check project's gate is the
 * same before and after feedback is recorded, and a rebuild reruns nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addFeedback, listFeedback } from '../../src/service/feedback.js';
import { build, gate } from '../../src/service/index.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

for (const git of [true, false]) {
  test(`feedback does not change the gate or the action keys (${git ? 'git' : 'no git'})`, async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' }, { git });
    try {
      repo.manifest({
        checks: [{ id: 'a', run: nodeCheck("require('fs').readFileSync('a.txt')"), inputs: ['a.txt'] }],
      });
      const first = await build({ root: repo.dir });
      assert.equal(first.gate.status, 'READY');
      const before = (await gate({ root: repo.dir })).gate;

      const added = await addFeedback(repo.dir, {
        task: 'check the parser',
        missing: 'a fuzzing rule',
        benefit: 'finds crashes',
        run: first.actions[0]!.run ?? undefined,
      });
      assert.equal(added.created, true);
      await addFeedback(repo.dir, {
        task: 'check the parser',
        missing: 'a fuzzing rule',
        benefit: 'finds crashes',
        kind: 'reliable',
      });
      assert.equal((await listFeedback(repo.dir)).total, 2);

      const after = (await gate({ root: repo.dir })).gate;
      assert.deepEqual(after, before);
      const rebuilt = await build({ root: repo.dir });
      assert.deepEqual(
        rebuilt.actions.map((a) => a.status),
        ['cached'],
        'no key changed',
      );
      assert.deepEqual(rebuilt.gate, before);
    } finally {
      repo.cleanup();
    }
  });
}
