/**
 * A no-op record stands on the excludes file git reads, spelled however git allows: `~/`, `~user/`
 * and `%(prefix)/` are expanded as git expands them (a path taken literally, under the work tree,
 * is one git never reads: the record would miss an edit to the real one).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { outsideFiles } from '../../src/fast/noop-proof.js';
import { tempRepo } from '../_support/repo.js';

test('core.excludesFile written with ~user/ or %(prefix)/ is the file git reads, not a path in the work tree', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const env = { ...process.env, HOME: join(repo.dir, 'home') };
    const user = userInfo().username;
    repo.git('config', 'core.excludesFile', `~${user}/vkit-excludes`);
    const passwdHome = userInfo().homedir;
    const byUser = outsideFiles(repo.dir, env);
    assert.ok(byUser.includes(join(passwdHome, 'vkit-excludes')), byUser.join('\n'));
    assert.ok(!byUser.some((f) => f.includes('~')), 'a literal ~ path');

    repo.git('config', 'core.excludesFile', '%(prefix)/share/vkit-excludes');
    const expected = execFileSync('git', ['config', '--type=path', '--get', 'core.excludesfile'], {
      cwd: repo.dir,
      encoding: 'utf8',
    }).trim();
    assert.ok(!expected.includes('%('), expected);
    const byPrefix = outsideFiles(repo.dir, env);
    assert.ok(byPrefix.includes(expected), byPrefix.join('\n'));
    assert.ok(!byPrefix.some((f) => f.includes('%(')), 'a literal %(prefix) path');

    repo.git('config', 'core.excludesFile', '~/vkit-excludes');
    assert.ok(outsideFiles(repo.dir, env).includes(join(repo.dir, 'home', 'vkit-excludes')));
  } finally {
    repo.cleanup();
  }
});
