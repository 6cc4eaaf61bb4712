/**
 * gc keeps the N newest runs and the runs of running attempts, but not a run still queued (submitted,
 * its worker still starting): the build waiting on it finds its run gone. That must not crash the
 * build (exit 4) nor lose the check: the build ends with a real result.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectGarbage } from '../../src/service/gc.js';
import { openStoreOf, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkitAsync } from '../_support/repo.js';
import { sleep, whenClosed } from '../_support/wait.js';

test('gc --keep-runs 0 while a run is queued never deletes the run a build waits on', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['a.txt'] }] });
    const store = openStoreOf(repo);
    const child = vkitAsync(['build', '--json', '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir });
    const closed = whenClosed(child);
    // The run is queued from its submission until the detached worker (a new node process) claims it.
    let collected = false;
    const until = Date.now() + 20_000;
    while (!collected && Date.now() < until) {
      if (store.lifecycle.listRuns({ limit: 5 }).some((r) => r.state === 'queued')) {
        collectGarbage(store, 0);
        collected = true;
      } else await sleep(2);
    }
    store.close();
    assert.ok(collected, 'saw the queued run');
    const { code, stdout, stderr } = await closed;
    assert.equal(code, 0, `build exit ${code}: ${stderr}\n${stdout}`);
    assert.deepEqual(
      JSON.parse(stdout).actions.map((a: { outcome: string }) => a.outcome),
      ['PASS'],
    );
  } finally {
    repo.cleanup();
  }
});
