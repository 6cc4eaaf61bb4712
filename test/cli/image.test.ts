/**
 * `vkit image build coq|spin`: its usage errors (exit 2, a did-you-mean for a misspelt image), what
 * it says when the machine cannot build (exit 5 naming the install command for debootstrap or
 * podman; exit 2 saying root is needed), and, with the real podman holding the image, that it exits
 * 0 without starting a build. No test builds an image for real (minutes, 1.5 GB): the system tests'
 * setup builds them through the same code (`npm run image:worker`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { VKIT_BIN } from '../_support/repo.js';

const scratch = mkdtempSync(join(tmpdir(), 'vkit-image-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

function vkit(args: string[], opts: { env?: NodeJS.ProcessEnv; prefix?: string[] } = {}) {
  const argv = [...(opts.prefix ?? []), process.execPath, VKIT_BIN, 'image', 'build', ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), {
    encoding: 'utf8',
    env: { ...process.env, ...opts.env },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, said: r.stdout + r.stderr };
}

/** A directory holding executables that record their call in `<dir>/<name>.called` and fail. */
function fakeTools(name: string, tools: string[]): string {
  const dir = join(scratch, name);
  rmSync(dir, { recursive: true, force: true });
  spawnSync('mkdir', ['-p', dir]);
  chmodSync(dir, 0o755);
  for (const tool of tools) {
    writeFileSync(join(dir, tool), `#!/bin/sh\ntouch "${dir}/${tool}.called"\nexit 1\n`);
    chmodSync(join(dir, tool), 0o755);
  }
  return dir;
}

test('--help says what the verb builds, that it needs root, and its exit codes', () => {
  const r = vkit(['--help']);
  assert.equal(r.code, 0, r.said);
  assert.match(r.out, /^Usage: vkit image build coq\|spin \[--force\]/);
  assert.match(r.out, /Needs root/);
  assert.match(r.out, /apt-get install debootstrap podman/);
  assert.match(r.out, /5 debootstrap or podman missing/);
});

test('a misspelt image name is a usage error with a did-you-mean; so are none, two, and an unknown flag', () => {
  const typo = vkit(['cqo']);
  assert.equal(typo.code, 2, typo.said);
  assert.match(typo.err, /unknown worker image `cqo` \(did you mean `coq`\?\): known are coq, spin/);
  const far = vkit(['docker']);
  assert.equal(far.code, 2, far.said);
  assert.doesNotMatch(far.err, /did you mean/);
  assert.match(far.err, /known are coq, spin/);
  const none = vkit([]);
  assert.equal(none.code, 2, none.said);
  assert.match(none.err, /which image\? coq or spin/);
  const two = vkit(['coq', 'spin']);
  assert.equal(two.code, 2, two.said);
  assert.match(two.err, /one image at a time/);
  const flag = vkit(['coq', '--forse']);
  assert.equal(flag.code, 2, flag.said);
  assert.match(flag.err, /did you mean `--force`/);
  for (const r of [typo, far, none, two, flag]) assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
});

test('without debootstrap, or without podman, it is unavailable (5) and names the install command', () => {
  const noDebootstrap = vkit(['coq'], { env: { PATH: fakeTools('only-podman', ['podman']) } });
  assert.equal(noDebootstrap.code, 5, noDebootstrap.said);
  assert.match(noDebootstrap.err, /debootstrap is not installed/);
  assert.match(noDebootstrap.err, /apt-get install debootstrap podman/);
  const noPodman = vkit(['spin'], { env: { PATH: fakeTools('only-debootstrap', ['debootstrap']) } });
  assert.equal(noPodman.code, 5, noPodman.said);
  assert.match(noPodman.err, /podman is not installed/);
  assert.match(noPodman.err, /apt-get install debootstrap podman/);
});

/** setpriv (util-linux), found on this process's PATH: the test's PATH hides everything else. */
const setpriv = spawnSync('sh', ['-c', 'command -v setpriv'], { encoding: 'utf8' }).stdout.trim();

test('not root and no sudo: exit 2 saying building needs root, before anything runs', {
  skip: process.getuid?.() !== 0 ? 'dropping to another user needs root' : setpriv ? false : 'no setpriv',
}, () => {
  const tools = fakeTools('no-sudo', ['podman', 'debootstrap']);
  const r = vkit(['coq'], {
    prefix: [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups'],
    env: { PATH: tools, HOME: scratch, XDG_CACHE_HOME: join(scratch, 'cache') },
  });
  assert.equal(r.code, 2, r.said);
  assert.match(r.err, /needs root .*not root and has no sudo/);
  assert.match(r.err, /install sudo/);
  assert.ok(!existsSync(join(tools, 'podman.called')) && !existsSync(join(tools, 'debootstrap.called')), r.said);
});

const SPIN_IMAGE = 'localhost/vkit-spin-worker:1';
const hasPodman = spawnSync('podman', ['--version']).status === 0;
const imagePresent = hasPodman && spawnSync('podman', ['image', 'exists', SPIN_IMAGE]).status === 0;

test('with the image in podman it exits 0 and builds nothing', {
  skip:
    process.getuid?.() !== 0
      ? "needs root (the images are root podman's)"
      : imagePresent
        ? false
        : `podman has no ${SPIN_IMAGE}`,
}, () => {
  // debootstrap here is a fake that records its call: a build would run it first.
  const tools = fakeTools('present', ['debootstrap']);
  const r = vkit(['spin'], { env: { PATH: `${tools}:${process.env.PATH}` } });
  assert.equal(r.code, 0, r.said);
  assert.match(r.out, /localhost\/vkit-spin-worker:1 exists \([0-9a-f]{12}\), not rebuilt/);
  assert.ok(!existsSync(join(tools, 'debootstrap.called')), 'debootstrap was not run');
});
