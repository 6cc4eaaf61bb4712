/**
 * A PATH entry this user may not look at (root's `/root/.cargo/bin` on an ordinary user's PATH:
 * `lstat` fails with EACCES) is recorded by the no-op record as that error, as the recall states
 * it: a repeated build is answered from its record, instead of no record ever being written. Run
 * as `nobody` through setpriv (root itself bypasses file modes).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gitLogger } from '../_support/git-log.js';
import { keptNoRecord, SETTLE_MS } from '../_support/noop-records.js';
import { nodeCheck, tempRepo, VKIT_BIN } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const NOBODY = 65534;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const skip = process.getuid?.() !== 0 || !setpriv ? 'needs root and setpriv to run vkit as another user' : false;

test('a PATH entry under a directory this user may not enter: the no-op build is still answered from its record', {
  skip,
}, async () => {
  const repo = tempRepo({ 'in.txt': 'in\n' });
  const bin = mkdtempSync(join(tmpdir(), 'vkit-eacces-bin-'));
  const locked = mkdtempSync(join(tmpdir(), 'vkit-eacces-locked-'));
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['in.txt'] }] });
    repo.commitAll();
    // root's own directory, mode 0700: nobody's lstat of the PATH entry inside it is EACCES.
    mkdirSync(join(locked, 'bin'));
    chmodSync(locked, 0o700);
    chmodSync(bin, 0o777);
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, repo.dir]);
    chownSync(repo.dir, NOBODY, NOBODY);
    const observe = gitLogger(bin, join(bin, 'git-calls'));
    const env = {
      ...process.env,
      HOME: repo.dir,
      PATH: `${join(locked, 'bin')}:${bin}:${process.env.PATH}`,
      VKIT_DAEMON: '0',
      VKIT_NOOP_DEBUG: '1',
      NO_COLOR: '1',
    };
    const build = () => {
      const r = spawnSync(
        setpriv!,
        [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, VKIT_BIN, 'build', '--json'],
        { cwd: repo.dir, env, encoding: 'utf8' },
      );
      return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
    };
    const first = build();
    assert.equal(first.code, 0, first.stderr + first.stdout);
    let said = '';
    for (let i = 0; i < 6; i++) {
      const { r, recalled } = observe(build);
      assert.equal(r.code, 0, r.stderr);
      if (recalled) return;
      said = r.stderr;
      if (keptNoRecord(r.stderr)) await sleep(SETTLE_MS);
    }
    assert.fail(`never answered from a record; the record writer said:\n${said}`);
  } finally {
    repo.cleanup();
    rmSync(bin, { recursive: true, force: true });
    rmSync(locked, { recursive: true, force: true });
  }
});
