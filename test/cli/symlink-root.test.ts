/**
 * `--root` naming a symbolic link to a directory: that directory is the root (its real path). The
 * command answers as it does for the directory itself, with the same default store (beside the
 * real `.git`), and a no-op record left through the link never answers for another directory the
 * link is later pointed at.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

let passing: TempRepo;
let failing: TempRepo;
const links = mkdtempSync(join(tmpdir(), 'vkit-links-'));
const link = join(links, 'checkout');

function project(code: string): TempRepo {
  const repo = tempRepo({ 'in.txt': 'in\n' });
  repo.age('in.txt');
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck(code), inputs: ['in.txt'] }] });
  repo.commitAll();
  return repo;
}

before(() => {
  passing = project('0');
  failing = project('process.exit(1)');
  symlinkSync(passing.dir, link);
});

after(() => {
  passing.cleanup();
  failing.cleanup();
  rmSync(links, { recursive: true, force: true });
});

const env = { VKIT_DAEMON: '0' };

test('build and gate through a link to the root: READY, the evidence in the real checkout store', () => {
  const built = vkit(['build', '--root', link], { env });
  assert.equal(built.code, 0, built.stderr);
  assert.doesNotMatch(built.stderr, /Expected --root to be a directory/);
  // The same store as the directory's own: the gate on the real path needs nothing to run.
  const gate = vkit(['gate', '--root', passing.dir, '--json'], { env });
  assert.equal(gate.code, 0, gate.stdout + gate.stderr);
  assert.equal(gate.json().status, 'READY');
  assert.equal(vkit(['runs', '--root', link, '--json'], { env }).code, 0);
});

test('a link pointed at another checkout is that checkout: no record of the first answers for it', () => {
  // One store named for both: the record the first checkout's no-op leaves is in it.
  const shared = join(links, 'store');
  assert.equal(vkit(['build', '--root', link, '--store', shared], { env }).code, 0);
  for (let i = 0; i < 2; i++) assert.equal(vkit(['gate', '--root', link, '--store', shared], { env }).code, 0);
  unlinkSync(link);
  symlinkSync(failing.dir, link);
  const gate = vkit(['gate', '--root', link, '--store', shared, '--json'], { env });
  assert.notEqual(gate.code, 0, gate.stdout);
  assert.notEqual(gate.json().status, 'READY');
});

test('a link to a file, or a dangling link, is still not a directory: exit 2', () => {
  const toFile = join(links, 'file');
  symlinkSync(join(passing.dir, 'in.txt'), toFile);
  const dangling = join(links, 'dangling');
  symlinkSync(join(links, 'nowhere'), dangling);
  for (const root of [toFile, dangling]) {
    const r = vkit(['gate', '--root', root], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Expected --root to be a directory/);
  }
});
