/**
 * Cancelling a formal run through the job service: the attempt ends `interrupted` (reason
 * `cancelled`) and the attempt's own container is gone, while the run never reports a pass. Real
 * podman, the Coq worker image and the allocation example; skips loudly without them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';
import { systemSandbox } from '../_support/podman.js';
import { sleep } from '../_support/wait.js';

const sys = await systemSandbox({ what: 'formal cancellation' });
const containers = (prefix: string) =>
  spawnSync('podman', ['ps', '-a', '--format', '{{.Names}}'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((n) => n.startsWith(prefix));

test('vkit run cancel on a running formal job: attempt interrupted (cancelled), its container removed, no PASS', {
  skip: sys.skip,
}, async () => {
  const repo = tempRepo({});
  cpSync(join(REPO_ROOT, 'examples', 'allocation', 'src'), join(repo.dir, 'src'), { recursive: true });
  cpSync(join(REPO_ROOT, 'examples', 'allocation', 'vkit.manifest.json'), join(repo.dir, 'vkit.manifest.json'));
  repo.commitAll();
  try {
    const accept = cli(repo, ['policy', 'accept']);
    assert.equal(accept.code, 0, accept.stdout + accept.stderr);
    const started = cli(repo, ['verify', '--check', 'formal:allocation', '--wait', '0', '--json']);
    const run: string = started.json().action.run;
    assert.match(run, /^run_/, started.stdout);
    // This run's own attempt (other processes may run formal jobs on the same engine meanwhile).
    let attemptPrefix = '';
    let names: string[] = [];
    for (let i = 0; i < 600 && names.length === 0; i++) {
      const attempts = (cli(repo, ['run', 'show', '--run', run, '--json']).json().summary?.attempts ?? []) as {
        attempt: string;
      }[];
      if (attempts.length) attemptPrefix = `vkit-${attempts.at(-1)!.attempt}`;
      names = attemptPrefix ? containers(attemptPrefix) : [];
      if (names.length === 0) await sleep(100);
    }
    assert.ok(names.length > 0, 'a worker container started');
    const cancelled = cli(repo, ['run', 'cancel', '--run', run, '--json']);
    assert.equal(cancelled.code === 0 || cancelled.code === 3, true, cancelled.stdout + cancelled.stderr);
    const shown = cli(repo, ['run', 'show', '--run', run, '--json']).json();
    const summary = shown.summary ?? shown;
    assert.equal(summary.state, 'interrupted', JSON.stringify(summary));
    assert.equal(summary.reason, 'cancelled');
    assert.notEqual(summary.outcome, 'PASS');
    for (let i = 0; i < 100 && containers(attemptPrefix).length > 0; i++) await sleep(100);
    assert.deepEqual(containers(attemptPrefix), [], "the attempt's containers are gone");
  } finally {
    repo.cleanup();
  }
});
