/**
 * `vkit build > /dev/full`: output that cannot be written (a full disk) is not a reader that left.
 * The answer did not reach its reader, so a command that would say 0 says 3 (the environment
 * failed), a non-zero answer stays as it is, and stderr says so in one line: never exit 4 with a
 * stack. Whether the command runs, is answered from its no-op record, prints a table or streams.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, VKIT_BIN, type TempRepo } from '../_support/repo.js';

let repo: TempRepo;
const full = existsSync('/dev/full');

before(() => {
  repo = tempRepo({ 'in.txt': 'in\n' });
  repo.age('in.txt');
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['in.txt'] }] });
  repo.commitAll();
});

after(() => repo.cleanup());

/** Runs vkit with stdout (fd 1) or stderr (fd 2) writing to /dev/full; the other stream is read. */
function intoFullDisk(args: string[], fd: 1 | 2): { code: number | null; text: string } {
  const sink = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, [VKIT_BIN, ...args, '--root', repo.dir, '--store', storeDir(repo)], {
      cwd: repo.dir,
      env: { ...process.env, NO_COLOR: '1', VKIT_DAEMON: '0' },
      stdio: ['ignore', fd === 1 ? sink : 'pipe', fd === 2 ? sink : 'pipe'],
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, text: (fd === 1 ? r.stderr : r.stdout) ?? '' };
  } finally {
    closeSync(sink);
  }
}

const NO_STACK = /internal error|\n\s+at /;

for (const args of [['build'], ['gate'], ['gate'], ['build', '--json'], ['runs']]) {
  // `gate` twice: the second is answered from the no-op record the first left, before the CLI loads.
  test(`vkit ${args.join(' ')} > /dev/full: exit 3, one line on stderr, no stack`, { skip: !full }, () => {
    const r = intoFullDisk(args, 1);
    assert.equal(r.code, 3, r.text);
    assert.match(r.text, /^vkit: could not write to stdout \(ENOSPC\b.*output is incomplete\n$/m);
    assert.equal(r.text.match(/could not write/g)?.length, 1, r.text);
    assert.doesNotMatch(r.text, NO_STACK);
  });
}

test('stderr on /dev/full: a build that writes nothing there answers as ever, an error stays exit 2', {
  skip: !full,
}, () => {
  const quiet = intoFullDisk(['build'], 2);
  assert.equal(quiet.code, 0, quiet.text);
  assert.match(quiet.text, /gate READY/);
  const usage = intoFullDisk(['build', '--only', 'nope'], 2);
  assert.equal(usage.code, 2, usage.text);
});

test('a non-zero answer stays itself when its output is lost: usage error exit 2', { skip: !full }, () => {
  const r = intoFullDisk(['build', '--only', 'nope', '--json'], 1);
  assert.equal(r.code, 2, r.text);
  assert.doesNotMatch(r.text, NO_STACK);
});
