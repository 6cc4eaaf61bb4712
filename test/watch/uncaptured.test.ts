/**
 * `vkit watch` and inputs vkit will not capture (issue 14): a link among a check's inputs whose
 * target the inputs do not hold, created while watching, settles the cycle BLOCKED as a config error
 * (the engine's capture check, before anything runs) and watching goes on; removing it recovers.
 */
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempRepo } from '../_support/repo.js';
import { readCheck, startWatch } from './_watch.js';

test('watch: a link to an uncaptured target appearing among the inputs is `config invalid` (BLOCKED), not a READY; removing it recovers', async () => {
  const repo = tempRepo({ 'data/a.txt': 'a\n', 'secret-ish/outside.txt': 'o\n' });
  try {
    repo.manifest({ checks: [{ ...readCheck('data', ['data/a.txt']), inputs: ['data/*'] }] });
    const w = startWatch(repo);
    try {
      const s1 = await w.line(/^cycle 1 settled: READY/);
      symlinkSync('../secret-ish/outside.txt', join(repo.dir, 'data/b.txt'));
      const bad = await w.line(/^config invalid: /, s1);
      assert.match(
        w.lines[bad]!,
        /checks\[0\]\.inputs\[0\]: .*`data\/b\.txt` \(a symbolic link to `\.\.\/secret-ish\/outside\.txt`, which these inputs do not capture\)/,
      );
      assert.match(w.lines[await w.line(/settled:/, bad)]!, /settled: BLOCKED/);
      rmSync(join(repo.dir, 'data/b.txt'));
      await w.line(/settled: READY/, bad + 1);
    } finally {
      await w.stop();
    }
  } finally {
    repo.cleanup();
  }
});
