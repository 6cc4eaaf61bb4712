/**
 * The built-in sandbox's plan, pure: the host's mount table read as the kernel writes it, every
 * mount below a read-only bind remounted read-only with its locked flags, and the writable places
 * limited to what the layout makes writable (the init refuses any other writable mount). And its
 * stage: kept for the next check with the same plan, never for one that could write it.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { escapeMount, mountOf, mountsBelow, parseMountinfo } from '../../src/checkers/mounts.js';
import { builtinPlan, stageFor } from '../../src/checkers/sandbox-builtin.js';

const MOUNTINFO = [
  '22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '23 22 0:5 / /proc rw,nosuid,nodev,noexec,relatime shared:2 - proc proc rw',
  '24 22 0:6 / /sys rw,nosuid,nodev,noexec shared:3 - sysfs sysfs rw',
  '25 24 0:7 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw',
  '26 22 0:8 / /home/a\\040b rw,noatime shared:5 - ext4 /dev/vdb rw',
  '27 23 0:9 / /proc/sys/fs/binfmt_misc rw,relatime shared:6 - autofs systemd-1 rw',
  '28 26 0:10 / /home/a\\040b rw,nosuid shared:7 - tmpfs t rw',
  '',
].join('\n');

test('mountinfo: escaped points, the flags a remount must keep, strict atime named when no atime word is', () => {
  const mounts = parseMountinfo(MOUNTINFO);
  assert.equal(mounts.length, 7);
  assert.equal(mounts[4]!.path, '/home/a b');
  assert.equal(mounts[4]!.escaped, '/home/a\\040b');
  assert.equal(escapeMount('/home/a b\\c'), '/home/a\\040b\\134c');
  assert.deepEqual(mounts[2]!.locked, ['nosuid', 'nodev', 'noexec', 'strictatime']);
  assert.deepEqual(mounts[1]!.locked, ['nosuid', 'nodev', 'noexec', 'relatime']);
  assert.equal(mountOf(mounts, '/home/a b/x')?.fstype, 'tmpfs', 'the topmost mount at a point');
  assert.equal(mountOf(mounts, '/home/ab')?.path, '/');
  assert.deepEqual(
    mountsBelow(mounts, '/').map((m) => m.path),
    ['/proc', '/sys', '/home/a b', '/sys/fs/cgroup', '/proc/sys/fs/binfmt_misc'],
  );
  // Two mounts at one point: a remount there reaches the later one, and must repeat its flags.
  assert.deepEqual(mountsBelow(mounts, '/').find((m) => m.path === '/home/a b')?.locked, ['nosuid', 'strictatime']);
});

test('isolated: the host tree read-only in place, each mount remounted with its locked flags; only the work tree, /tmp, /dev and /proc may be writable', () => {
  const kind = (p: string) =>
    (p.endsWith('.txt') ? 'file' : p.startsWith('/nope') ? undefined : 'dir') as 'dir' | 'file' | undefined;
  const plan = builtinPlan(
    {
      mode: 'isolated',
      root: '/tmp/w',
      cwd: '/tmp/w',
      protect: ['/tmp/w/.git', '/nope'],
      keep: ['/tmp/bin', '/tmp/w/bin'],
    },
    '/s',
    parseMountinfo(MOUNTINFO),
    kind,
  );
  const lines = plan.fstab;
  assert.equal(plan.root, undefined, 'no new root: the view is made in place');
  assert.equal(lines[0], 'vkit-tmp /s/tmp tmpfs mode=1777,nosuid,nodev 0 0', 'a new tmpfs for /tmp, made in the stage');
  assert.ok(lines.includes('/tmp/bin /s/tmp/bin none rbind,ro,relatime,X-mount.mkdir 0 0'), 'a PATH directory in /tmp');
  assert.ok(!lines.some((l) => l.startsWith('/tmp/w/bin ')), 'a kept path in the work tree is there already');
  assert.ok(lines.includes('/tmp/w /s/tmp/w none rbind,X-mount.mkdir 0 0'), 'the work tree, writable');
  const git = '/tmp/w/.git /s/tmp/w/.git none rbind,ro,relatime 0 0';
  assert.ok(
    lines.indexOf(git) > lines.indexOf('/tmp/w /s/tmp/w none rbind,X-mount.mkdir 0 0'),
    '.git read-only over it',
  );
  assert.ok(!lines.some((l) => l.includes('/nope')), 'a protected path that is not there is skipped');
  // The host's tree: "/" (spelled so that `mount -a` does not skip it) and each mount below it.
  assert.ok(lines.includes('none // none remount,bind,ro,relatime 0 0'));
  assert.ok(lines.includes('none /sys/fs/cgroup none remount,bind,ro,nosuid,nodev,noexec,relatime 0 0'));
  assert.ok(lines.includes('none /home/a\\040b none remount,bind,ro,nosuid,strictatime 0 0'), 'the topmost mount');
  assert.ok(!lines.some((l) => l.startsWith('none /proc')), "what the check's own /proc covers needs no remount");
  // Its own /dev, /proc and /tmp over the host's, /tmp last (the stage's sources are in the host's /tmp).
  assert.ok(lines.includes('/s/dev /dev none rbind 0 0'));
  assert.ok(lines.includes('/dev/null /s/dev/null none bind 0 0'));
  assert.ok(
    lines.includes('vkit-proc /proc proc nosuid,nodev,noexec 0 0'),
    'not "proc": mount -a would take it as mounted',
  );
  assert.ok(lines.includes('/proc/sys /proc/sys none bind,ro,nosuid,nodev,noexec 0 0'));
  assert.equal(lines.at(-1), '/s/tmp /tmp none rbind 0 0');
  assert.deepEqual(plan.writable, ['/tmp/w', '/s', '/dev', '/proc', '/tmp']);
  assert.deepEqual(plan.readOnly, ['/tmp/w/.git', '/nope'], 'read-only even inside the writable work tree');
  assert.equal(plan.tmpInStage, false);
  assert.deepEqual(
    plan.files.filter((f) => !f.startsWith('/s/dev/')),
    [],
    'no file made for /tmp',
  );
});

test('isolated, a work tree outside /tmp: bound over itself, its mounts left writable but for the protected ones', () => {
  const mounts = parseMountinfo(
    `${MOUNTINFO}30 22 0:11 / /w/cache rw,relatime - ext4 /dev/vdc rw\n31 22 0:12 / /w/.git rw,relatime - ext4 /dev/vdd rw\n` +
      '32 22 0:13 / /tmp/store rw,relatime - ext4 /dev/vde rw\n33 22 0:14 / /tmp/other rw,relatime - ext4 /dev/vdf rw\n',
  );
  const plan = builtinPlan(
    { mode: 'isolated', root: '/w', cwd: '/w', protect: ['/w/.git', '/tmp/store'], keep: [] },
    '/tmp/s',
    mounts,
    () => 'dir',
  );
  assert.ok(plan.fstab.includes('/w /w none rbind 0 0'));
  assert.ok(plan.fstab.includes('/w/.git /w/.git none rbind,ro,relatime 0 0'));
  assert.ok(
    plan.fstab.includes('none /w/.git none remount,bind,ro,relatime 0 0'),
    'a protected mount point: read-only even if mount -a skips the bind',
  );
  assert.ok(!plan.fstab.some((l) => l.startsWith('none /w/cache ')), 'a mount in the work tree stays writable');
  assert.ok(plan.fstab.includes('/tmp/store /tmp/s/tmp/store none rbind,ro,relatime,X-mount.mkdir 0 0'));
  assert.ok(
    plan.fstab.includes('none /tmp/store none remount,bind,ro,relatime 0 0'),
    "the host's, hidden under /tmp: read-only too",
  );
  assert.ok(!plan.fstab.some((l) => l.startsWith('none /tmp/other ')), 'what the new /tmp hides needs no remount');
  assert.deepEqual(plan.writable, ['/w', '/tmp/s', '/dev', '/proc', '/tmp']);
});

test('a file to bind in /tmp gets a read-only skeleton for its directory; one directly in /tmp, a stage of its own', () => {
  const kind = (p: string) => (p.endsWith('tool') ? 'file' : 'dir') as 'dir' | 'file';
  const plan = builtinPlan(
    { mode: 'isolated', root: '/w', cwd: '/w', protect: [], keep: ['/tmp/x/bin', '/tmp/x/tool'] },
    '/s',
    parseMountinfo(MOUNTINFO),
    kind,
  );
  const lines = plan.fstab;
  assert.equal(lines[1], '/s/skel/0 /s/tmp/x none bind,ro,X-mount.mkdir 0 0');
  assert.ok(plan.dirs.includes('/s/skel/0/bin') && plan.files.includes('/s/skel/0/tool'));
  assert.ok(lines.includes('/tmp/x/tool /s/tmp/x/tool none rbind,ro,relatime 0 0'));
  assert.equal(plan.tmpInStage, false);
  const direct = builtinPlan(
    { mode: 'isolated', root: '/w', cwd: '/w', protect: [], keep: ['/tmp/tool'] },
    '/s',
    parseMountinfo(MOUNTINFO),
    kind,
  );
  assert.equal(
    direct.tmpInStage,
    true,
    'an empty tmpfs cannot hold it: /tmp is a directory of a stage made for this check',
  );
  assert.equal(direct.fstab[0], '/s/tmp /s/tmp none bind 0 0');
  assert.ok(direct.files.includes('/s/tmp/tool'));
});

test('hermetic: system directories, inputs read-only, outputs writable in a read-only skeleton of the work tree; a linked system directory is copied as a link', () => {
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
  assert.equal(plan.root, '/s/root');
  assert.deepEqual(
    plan.links.find((l) => l.path === '/s/root/bin'),
    { target: 'usr/bin', path: '/s/root/bin' },
  );
  assert.equal(plan.fstab[0], '/s/root /s/root none bind,ro 0 0');
  assert.ok(plan.fstab.includes('/usr /s/root/usr none rbind,ro,relatime 0 0'));
  assert.ok(plan.fstab.includes('vkit-tmp /s/root/tmp tmpfs mode=1777,nosuid,nodev 0 0'));
  assert.ok(plan.fstab.includes('/s/skel/0 /s/root/w none bind,ro 0 0'), 'the work tree: a read-only skeleton');
  assert.ok(plan.fstab.includes('/w/out /s/root/w/out none rbind 0 0'));
  assert.ok(plan.fstab.includes('/w/src/a.ts /s/root/w/src/a.ts none rbind,ro,relatime 0 0'));
  assert.ok(plan.files.includes('/s/skel/0/src/a.ts') && plan.dirs.includes('/s/skel/0/out'));
  assert.ok(plan.dirs.includes('/s/root/w'));
  assert.deepEqual(plan.writable, ['/w/out', '/dev', '/proc', '/tmp']);
  assert.ok(!plan.fstab.some((l) => l.startsWith('/w ')), 'the work tree itself is not bound');
  // A work tree in /tmp: its skeleton's mount point is made in the new tmpfs.
  const inTmp = builtinPlan(
    { mode: 'hermetic', root: '/tmp/w', cwd: '/tmp/w/pkg', protect: [], keep: [], inputs: ['pkg/a.ts'], outputs: [] },
    '/s',
    parseMountinfo(MOUNTINFO),
    kind,
  );
  assert.ok(inTmp.fstab.includes('/s/skel/0 /s/root/tmp/w none bind,ro,X-mount.mkdir 0 0'));
  assert.ok(inTmp.files.includes('/s/skel/0/pkg/a.ts') && inTmp.dirs.includes('/s/skel/0/pkg'));
  assert.equal(inTmp.tmpInStage, false);
});

test('a stage is kept for the next check with the same plan, written again when its fstab changed, and never kept where a check could write it', () => {
  const work = mkdtempSync(join(tmpdir(), 'vkit-stage-test-'));
  // Stages live in this process's directory under TMPDIR, here one whose name needs escaping in an fstab.
  const spaced = mkdtempSync(join(tmpdir(), 'vkit stage '));
  const was = process.env.TMPDIR;
  process.env.TMPDIR = spaced;
  try {
    const layout = { mode: 'isolated' as const, root: work, cwd: work, protect: [], keep: [] };
    const mounts = parseMountinfo(MOUNTINFO);
    const first = stageFor(layout, mounts);
    assert.ok(first.dir.startsWith(`${spaced}/`));
    assert.ok(existsSync(join(first.dir, 'fstab')) && existsSync(join(first.dir, 'dev', 'null')));
    const fstab = readFileSync(join(first.dir, 'fstab'), 'utf8');
    assert.ok(fstab.includes(`${escapeMount(first.dir)}/dev /dev none rbind`), fstab);
    assert.ok(
      first.plan.writable.includes(escapeMount(first.dir)) && !first.plan.writable.some((w) => w.includes(' ')),
    );
    first.release();
    const again = stageFor(layout, mounts);
    assert.equal(again.dir, first.dir, 'the same plan: the same stage');
    assert.deepEqual(again.plan, first.plan);
    appendFileSync(join(again.dir, 'fstab'), 'tampered\n');
    const rewritten = stageFor(layout, mounts);
    assert.notEqual(rewritten.dir, first.dir, 'an fstab that is not the planned one is never used');
    assert.ok(!readFileSync(join(rewritten.dir, 'fstab'), 'utf8').includes('tampered'));
    mkdirSync(join(work, '.git'));
    const other = stageFor({ ...layout, protect: [join(work, '.git')] }, mounts);
    assert.notEqual(other.dir, rewritten.dir, 'another plan: another stage');
    // A stage inside the work tree would be the check's to write: made for this check alone.
    const inside = stageFor({ ...layout, root: tmpdir(), cwd: tmpdir() }, mounts);
    const twice = stageFor({ ...layout, root: tmpdir(), cwd: tmpdir() }, mounts);
    assert.notEqual(inside.dir, twice.dir);
    inside.release();
    twice.release();
    assert.ok(!existsSync(inside.dir) && !existsSync(twice.dir), 'and removed once the check ended');
  } finally {
    if (was === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = was;
    rmSync(work, { recursive: true, force: true });
    rmSync(spaced, { recursive: true, force: true });
  }
});
