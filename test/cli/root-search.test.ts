/**
 * Without `--root`, vkit works on the nearest directory above the working one that holds a config,
 * as git finds its repository, and never looks past the top of the git work tree it is in.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempRepo, vkit } from '../_support/repo.js';

test('a command run in a subdirectory finds the config above it, not past the git work tree', () => {
  const repo = tempRepo({ 'src/a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: ['true'], inputs: ['src/**'] }] });
    const env = { VKIT_DAEMON: '0' };
    const deep = join(repo.dir, 'src', 'deeper');
    mkdirSync(deep, { recursive: true });
    const built = vkit(['build', '--json'], { cwd: deep, env });
    assert.equal(built.code, 0, built.stdout + built.stderr);
    assert.equal(JSON.parse(built.stdout).gate.status, 'READY');
    assert.equal(vkit(['gate'], { cwd: join(repo.dir, 'src'), env }).code, 0);

    // A repository nested inside (its own .git, no config): the search stops at its top.
    const nested = join(repo.dir, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    repo.git('init', '-q', nested);
    const stopped = vkit(['build'], { cwd: nested, env });
    assert.equal(stopped.code, 2, stopped.stdout + stopped.stderr);
    assert.match(stopped.stderr, /No vkit\.config\.ts or vkit\.manifest\.json in/);
    // --root still names the root exactly.
    assert.equal(vkit(['gate', '--root', repo.dir], { cwd: nested, env }).code, 0);
  } finally {
    repo.cleanup();
  }
});
