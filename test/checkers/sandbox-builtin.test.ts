/**
 * The built-in sandbox's plan, pure: the host's mount table read as the kernel writes it, every
 * mount below a read-only bind remounted read-only with its locked flags, and the writable places
 * limited to what the layout makes writable (the init refuses any other writable mount).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeMount, mountOf, mountsBelow, parseMountinfo } from '../../src/checkers/mounts.js';
import { builtinPlan } from '../../src/checkers/sandbox-builtin.js';

const MOUNTINFO = [
  '22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '23 22 0:5 / /proc rw,nosuid,nodev,noexec,relatime shared:2 - proc proc rw',
  '24 22 0:6 / /sys rw,nosuid,nodev,noexec shared:3 - sysfs sysfs rw',
  '25 24 0:7 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw',
  '26 22 0:8 / /home/a\\040b rw,noatime shared:5 - ext4 /dev/vdb rw',
  '',
].join('\n');

test('mountinfo: escaped points, the flags a remount must keep, strict atime named when no atime word is', () => {
  const mounts = parseMountinfo(MOUNTINFO);
  assert.equal(mounts.length, 5);
  assert.equal(mounts[4]!.path, '/home/a b');
  assert.equal(mounts[4]!.escaped, '/home/a\\040b');
  assert.equal(escapeMount('/home/a b\\c'), '/home/a\\040b\\134c');
  assert.deepEqual(mounts[2]!.locked, ['nosuid', 'nodev', 'noexec', 'strictatime']);
  assert.deepEqual(mounts[1]!.locked, ['nosuid', 'nodev', 'noexec', 'relatime']);
  assert.equal(mountOf(mounts, '/home/a b/x')?.path, '/home/a b');
  assert.equal(mountOf(mounts, '/home/ab')?.path, '/');
  assert.deepEqual(
    mountsBelow(mounts, '/').map((m) => m.path),
    ['/proc', '/sys', '/home/a b', '/sys/fs/cgroup'],
  );
});

test('isolated: the system is a read-only recursive bind with each mount below remounted read-only; only the work tree, /tmp, /dev and /proc may be writable', () => {
  const kind = (p: string) =>
    (p.endsWith('.txt') ? 'file' : p.startsWith('/nope') ? undefined : 'dir') as 'dir' | 'file' | undefined;
  const plan = builtinPlan(
    { mode: 'isolated', root: '/tmp/w', cwd: '/tmp/w', protect: ['/tmp/w/.git', '/nope'], keep: ['/tmp/bin'] },
    '/s',
    parseMountinfo(MOUNTINFO),
    kind,
  );
  const lines = plan.fstab;
  assert.equal(lines[0], '/s/root /s/root none bind,ro 0 0');
  assert.equal(lines[1], '/ /s/root none rbind,ro,relatime 0 0');
  for (const p of ['/proc', '/sys', '/sys/fs/cgroup'])
    assert.ok(
      lines.some((l) => l.startsWith(`none /s/root${p} none remount,bind,ro,nosuid,nodev,noexec`)),
      p,
    );
  assert.ok(lines.includes('none /s/root/home/a\\040b none remount,bind,ro,noatime 0 0'));
  assert.ok(lines.includes('/tmp/w /s/root/tmp/w none rbind 0 0'), 'the work tree, writable');
  assert.ok(lines.includes('/tmp/w/.git /s/root/tmp/w/.git none rbind,ro,relatime 0 0'), '.git read-only over it');
  assert.ok(
    lines.indexOf('/tmp/w/.git /s/root/tmp/w/.git none rbind,ro,relatime 0 0') >
      lines.indexOf('/tmp/w /s/root/tmp/w none rbind 0 0'),
  );
  assert.ok(!lines.some((l) => l.includes('/nope')), 'a protected path that is not there is skipped');
  assert.ok(
    plan.dirs.includes('/s/tmp/w') && plan.dirs.includes('/s/tmp/bin'),
    'mount points under /tmp are made in the private /tmp',
  );
  assert.deepEqual(plan.writable, ['/s/root/tmp/w', '/s/root/tmp', '/s/root/dev', '/s/root/proc']);
  assert.ok(lines.includes('/s/root/proc/sys /s/root/proc/sys none bind,ro,nosuid,nodev,noexec 0 0'));
});

test('hermetic: system directories, inputs read-only, outputs writable; a linked system directory is copied as a link', () => {
  const kind = (p: string) =>
    (p === '/bin'
      ? { link: 'usr/bin' }
      : p.startsWith('/lib') || p === '/opt'
        ? undefined
        : p.endsWith('.ts')
          ? 'file'
          : 'dir') as 'dir' | 'file' | { link: string } | undefined;
  const plan = builtinPlan(
    { mode: 'hermetic', root: '/w', cwd: '/w', protect: [], keep: [], inputs: ['src/a.ts'], outputs: ['out/**'] },
    '/s',
    parseMountinfo(MOUNTINFO),
    kind,
  );
  assert.deepEqual(
    plan.links.find((l) => l.path === '/s/root/bin'),
    { target: 'usr/bin', path: '/s/root/bin' },
  );
  assert.ok(plan.fstab.includes('/usr /s/root/usr none rbind,ro,relatime 0 0'));
  assert.ok(plan.fstab.includes('/w/out /s/root/w/out none rbind 0 0'));
  assert.ok(plan.fstab.includes('/w/src/a.ts /s/root/w/src/a.ts none rbind,ro,relatime 0 0'));
  assert.ok(plan.files.includes('/s/root/w/src/a.ts') && plan.dirs.includes('/s/root/w'));
  assert.deepEqual(plan.writable, ['/s/root/w/out', '/s/root/tmp', '/s/root/dev', '/s/root/proc']);
  assert.ok(!plan.fstab.some((l) => l.startsWith('/w ')), 'the work tree itself is not bound');
});
