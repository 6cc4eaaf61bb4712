/**
 * A no-op record (D51) stands on the tree's listed files, and declared outputs are usually where
 * git ignores them, outside what a record stats: a record that answered for a check with outputs
 * would say READY after the output changed. Such a check's answers are never kept, so `build` and
 * `gate` are always evaluated, and see an output edited or deleted after a READY build.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gitLogger } from '../_support/git-log.js';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

/** Past the racy window: what was written before it is settled, and may be recorded. */
const SETTLE_MS = 2100;

test('a check declaring outputs is never answered from a record: an output edited or deleted by hand blocks the gate', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'vkit-rec-out-bin-'));
  const logs = mkdtempSync(join(tmpdir(), 'vkit-rec-out-log-'));
  const observe = gitLogger(bin, join(logs, 'git-calls'));
  const repo = tempRepo({ '.gitignore': 'out/\n', 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [
        {
          id: 'a',
          run: nodeCheck(
            "const fs=require('fs');fs.mkdirSync('out',{recursive:true});fs.writeFileSync('out/a.txt','from a\\n')",
          ),
          inputs: ['a.txt'],
          outputs: ['out/a.txt'],
        },
      ],
    });
    repo.commitAll();
    const env = { PATH: `${bin}:${process.env.PATH}`, VKIT_DAEMON: '0' };
    const run = (args: string[]) => observe(() => vkit(args, { cwd: repo.dir, env }));
    assert.equal(run(['build']).r.code, 0);
    // Settled and repeated: a record would be kept and recalled by now, were it allowed.
    for (let i = 0; i < 3; i++) {
      await sleep(SETTLE_MS);
      for (const args of [['build'], ['gate']]) {
        const { r, recalled } = run(args);
        assert.equal(r.code, 0, r.stdout);
        assert.equal(recalled, false, `${args[0]} was answered from a record`);
      }
    }
    const records = join(repo.dir, '.git', 'vkit', 'noop-records');
    assert.deepEqual(existsSync(records) ? readdirSync(records) : [], [], 'no record was kept');
    for (const [disturb, said] of [
      [() => writeFileSync(join(repo.dir, 'out/a.txt'), 'by hand\n'), /out\/a\.txt changed/],
      [() => rmSync(join(repo.dir, 'out/a.txt')), /out\/a\.txt is missing/],
    ] as const) {
      disturb();
      const { r, recalled } = run(['gate']);
      assert.equal(recalled, false);
      assert.equal(r.code, 3, r.stdout);
      assert.match(r.stdout, said);
      assert.equal(run(['build']).r.code, 0);
    }
  } finally {
    repo.cleanup();
    rmSync(bin, { recursive: true, force: true });
    rmSync(logs, { recursive: true, force: true });
  }
});
