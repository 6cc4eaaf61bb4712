/**
 * A store this user may not write (root's store used by an ordinary user) is not a damaged store:
 * exit 3 naming the owner (uid and name), the user and the fix (a store of one's own, or chown),
 * and never the advice to move the index aside, which would throw good evidence away. Run as
 * `nobody` through setpriv against a store root made (root itself bypasses file modes).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { nodeCheck, tempRepo, VKIT_BIN, vkit, type TempRepo } from '../_support/repo.js';

const NOBODY = 65534;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const skip = process.getuid?.() !== 0 || !setpriv ? 'needs root and setpriv to run vkit as another user' : false;

let repo: TempRepo;
let store: string;

before(() => {
  if (skip) return;
  repo = tempRepo({ 'in.txt': 'in\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['in.txt'] }] });
  repo.commitAll();
  store = mkdtempSync(join(tmpdir(), 'vkit-root-store-'));
  chmodSync(store, 0o755);
  const built = vkit(['build', '--root', repo.dir, '--store', store], { env: { VKIT_DAEMON: '0' } });
  assert.equal(built.code, 0, built.stderr);
  // The checkout is nobody's (git refuses a repository of another owner); the store stays root's.
  chmodSync(repo.dir, 0o755);
  spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, repo.dir]);
  chownSync(repo.dir, NOBODY, NOBODY);
});

after(() => {
  if (skip) return;
  repo.cleanup();
  rmSync(store, { recursive: true, force: true });
});

function asNobody(args: string[]) {
  return spawnSync(
    setpriv!,
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, VKIT_BIN, ...args],
    { cwd: repo.dir, env: { ...process.env, HOME: repo.dir, VKIT_DAEMON: '0', NO_COLOR: '1' }, encoding: 'utf8' },
  );
}

for (const verb of ['gate', 'build']) {
  test(`vkit ${verb} as nobody on root's store: exit 3, names the owner and the fix, never "move it aside"`, {
    skip,
  }, () => {
    const r = asNobody([verb, '--root', repo.dir, '--store', store]);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`the store ${store} cannot be written by this user \\(uid ${NOBODY}\\b`));
    assert.match(r.stderr, /belongs to uid 0 \(root\)/);
    assert.match(r.stderr, /its index is not damaged/);
    assert.match(r.stderr, /--store DIR/);
    assert.match(r.stderr, new RegExp(`chown -R ${NOBODY} ${store}`));
    assert.doesNotMatch(r.stderr, /damaged or unusable|move \S+ aside \(with/);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
  });
}
