/**
 * A check that is root inside its sandbox stays inside it, whoever started vkit: it has no
 * capability and `no_new_privs`, so it cannot unmount or remount the read-only binds over the store
 * and `.git`, the private `/tmp` or its own `/proc`, nor read vkit's environment through the host's
 * `/proc` beneath. Run against every backend, as root (when the tests are) and as an ordinary user
 * (`nobody`, when the tests are root; else the tests' own user). Each was seen to escape against a
 * backend that kept its capabilities.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { sandboxBackends } from '../_support/sandboxes.js';
import { tempRepo, VKIT_BIN } from '../_support/repo.js';

const backends = await sandboxBackends('test/jobs/sandbox-escape.test.ts');
const root = process.getuid?.() === 0;
const users = root
  ? [
      { name: 'root', uid: 0 },
      { name: 'nobody', uid: 65534 },
    ]
  : [{ name: 'user', uid: process.getuid?.() ?? -1 }];

/** Every way out a check with capabilities would have; each success is a line in escaped.txt. */
function escapeScript(store: string, git: string): string {
  const hit = (what: string, cmd: string) => `(${cmd}) >/dev/null 2>&1 && echo "${what}" >> escaped.txt`;
  return [
    hit('umount store', `umount "${store}"`),
    hit('umount .git', `umount "${git}"`),
    hit('remount store', `mount -o remount,bind,rw "${store}"`),
    hit('remount .git', `mount -o remount,bind,rw "${git}"`),
    hit('remount /', 'mount -o remount,rw /'),
    hit('umount /proc', 'umount -l /proc'),
    hit('umount /tmp', 'umount -l /tmp'),
    hit('store write', `touch "${store}/forged"`),
    hit('git hook', `touch "${git}/hooks/pre-commit"`),
    hit('host write', 'touch /etc/vkit-escaped'),
    // A mount below the read-only root (cgroupfs): writable, a root check could make a cgroup.
    hit('cgroup', 'mkdir /sys/fs/cgroup/vkit-escaped'),
    hit('secret', "cat /proc/*/environ | tr '\\0' '\\n' | grep -q hunter2"),
    "grep -E '^(CapPrm|CapEff|CapAmb|NoNewPrivs)' /proc/self/status > caps.txt",
    'true',
  ].join('; ');
}

for (const b of backends)
  for (const user of users)
    test(`[${b.name}] a check run by ${user.name} cannot leave its sandbox: no capability, no_new_privs, binds stay`, {
      skip: b.skip,
    }, () => {
      const repo = tempRepo({ 'a.txt': 'a\n' });
      const home = mkdtempSync(join(tmpdir(), 'vkit-escape-home-'));
      try {
        repo.manifest({
          checks: [
            { id: 'lint', run: 'true', inputs: ['a.txt'] },
            {
              id: 'escape',
              run: escapeScript(storeDir(repo), join(repo.dir, '.git')),
              inputs: ['a.txt'],
              after: ['lint'],
            },
          ],
        });
        if (user.uid !== (process.getuid?.() ?? -1)) for (const p of [repo.dir, home]) chownTree(p, user.uid);
        const as =
          user.uid === (process.getuid?.() ?? -1)
            ? []
            : ['setpriv', `--reuid=${user.uid}`, `--regid=${user.uid}`, '--clear-groups'];
        const argv = [...as, process.execPath, VKIT_BIN, 'build', '--root', repo.dir, '--store', storeDir(repo)];
        const r = spawnSync(argv[0]!, argv.slice(1), {
          cwd: repo.dir,
          encoding: 'utf8',
          env: { ...process.env, ...b.env, HOME: home, NO_COLOR: '1', T_SECRET: 'hunter2' },
        });
        assert.equal(r.status, 0, r.stdout + r.stderr);
        const escaped = join(repo.dir, 'escaped.txt');
        assert.ok(!existsSync(escaped), `escaped: ${existsSync(escaped) ? readFileSync(escaped, 'utf8') : ''}`);
        assert.ok(!existsSync('/etc/vkit-escaped'));
        assert.ok(!existsSync(join(repo.dir, '.git', 'hooks', 'pre-commit')));
        const caps = readFileSync(join(repo.dir, 'caps.txt'), 'utf8');
        for (const set of ['CapPrm', 'CapEff', 'CapAmb']) assert.match(caps, new RegExp(`^${set}:\\s+0+$`, 'm'), caps);
        assert.match(caps, /^NoNewPrivs:\s+1$/m);
      } finally {
        rmSync('/etc/vkit-escaped', { force: true });
        rmSync('/sys/fs/cgroup/vkit-escaped', { recursive: true, force: true });
        repo.cleanup();
        rmSync(home, { recursive: true, force: true });
      }
    });

// `npm run` and `npx` put the work tree's node_modules/.bin first on PATH, and an isolated check
// can write the work tree: a sandbox program found there would be the check's own, started with
// the capabilities the sandbox is about to drop (or, for bwrap, instead of any sandbox at all).
for (const b of backends)
  test(`[${b.name}] a sandbox program planted on PATH inside the work tree is never the one started`, {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      const marker = join(repo.dir, 'hijacked.txt');
      for (const tool of ['bwrap', 'unshare', 'mount', 'umount', 'pivot_root', 'setpriv', 'cat', 'ip']) {
        repo.write(`node_modules/.bin/${tool}`, `#!/bin/sh\necho ${tool} >> "${marker}"\nexit 1\n`);
        chmodSync(join(repo.dir, 'node_modules', '.bin', tool), 0o755);
      }
      repo.manifest({ checks: [{ id: 'c', run: 'touch ran.txt', inputs: ['a.txt'] }] });
      const r = spawnSync(process.execPath, [VKIT_BIN, 'build', '--root', repo.dir, '--store', storeDir(repo)], {
        cwd: repo.dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          ...b.env,
          PATH: `${join(repo.dir, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
          NO_COLOR: '1',
        },
      });
      assert.ok(
        !existsSync(marker),
        `started from the work tree: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`,
      );
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.ok(existsSync(join(repo.dir, 'ran.txt')));
    } finally {
      repo.cleanup();
    }
  });

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (!statSync(path).isDirectory()) return;
  for (const e of readdirSync(path)) {
    const p = join(path, e);
    if (statSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    chownTree(p, uid);
  }
}

test('[builtin] a mount below a directory the user cannot enter does not stop the built-in sandbox, and the check cannot reach it', {
  skip:
    process.getuid?.() === 0
      ? backends.find((b) => b.name === 'builtin')!.skip
      : 'needs root to mount and to become nobody',
}, () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const hidden = mkdtempSync(join('/var/tmp', 'vkit-hidden-'));
  try {
    repo.manifest({
      checks: [
        { id: 'c', run: `touch ${hidden}/inner/x 2>/dev/null && echo reached > reached.txt; true`, inputs: ['a.txt'] },
      ],
    });
    chownTree(repo.dir, 65534);
    // A private mount namespace: root's tmpfs inside a directory only root may enter, then vkit as nobody.
    const script = `mkdir -p "$1/inner" && chmod 700 "$1" && mount -t tmpfs vkit-hidden "$1/inner" && shift && exec "$@"`;
    const argv = [
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      script,
      'sh',
      hidden,
      'setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      process.execPath,
      VKIT_BIN,
      'build',
      '--root',
      repo.dir,
      '--store',
      storeDir(repo),
    ];
    const r = spawnSync(argv[0]!, argv.slice(1), {
      cwd: repo.dir,
      encoding: 'utf8',
      env: { ...process.env, VKIT_SANDBOX: 'builtin', HOME: repo.dir, NO_COLOR: '1' },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.ok(!existsSync(join(repo.dir, 'reached.txt')));
  } finally {
    repo.cleanup();
    rmSync(hidden, { recursive: true, force: true });
  }
});
