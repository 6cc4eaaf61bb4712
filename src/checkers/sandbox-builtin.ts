/**
 * The built-in sandbox: the same confinement as bubblewrap's (`sandbox.ts`), made from what every
 * Linux base system ships (util-linux's `unshare`, `mount`, `umount`, `pivot_root`, `setpriv` and
 * `/bin/sh`), for machines without bubblewrap. An unprivileged user namespace lets an ordinary user
 * make it; a root user gets the same namespaces.
 *
 * How each guarantee holds (the decisions record, D60, has the longer account):
 * - The host writes the check's mounts as an fstab (`builtinPlan`, pure) beside a read-only
 *   skeleton of mount points, in a stage directory kept for every check with the same plan
 *   (`stageFor`); inside new user, mount, PID and IPC namespaces (and a network namespace for
 *   `hermetic`) one `mount -a` makes them all. An `isolated` view is the host's tree made in place
 *   (nothing else is visible in it anyway); a `hermetic` one is a new root that `pivot_root` enters
 *   before the old root is detached, so nothing outside the plan is reachable.
 * - Read-only binds are recursive binds whose every mount is then remounted read-only with the
 *   flags the kernel locked on it (in place: every mount of the host's tree but the ones the check's
 *   own `/dev`, `/proc` and `/tmp` cover); before the check starts, the init refuses to go on while
 *   any mount outside the writable places (the work tree or declared outputs, `/tmp`, `/dev`,
 *   `/proc`) is writable, so a host mount made meanwhile cannot slip through. A mount below a
 *   directory this user cannot enter (root's home, another user's) is left as it is: the check
 *   cannot reach it either, and its remount would fail (bubblewrap skips those too).
 * - `/tmp` is a new tmpfs that dies with the check's mount namespace (as bubblewrap's `--tmpfs`).
 * - The check runs through `setpriv` with no capabilities (bounding, inheritable and ambient sets
 *   emptied) and `no_new_privs`, after the mounts are made: root inside its namespace, it cannot
 *   unmount or remount anything, and no set-uid or file-capability program gives any back.
 * - The init is PID 1 of the check's PID namespace: when it ends, every descendant dies, `setsid`
 *   or not. It reports the check's exit status on fd 3, which the check does not inherit, and it
 *   kills the namespace when vkit's end of that socket closes (vkit died), as bubblewrap's
 *   `--die-with-parent` does.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { escapeMount, type Mount, mountOf, mountsBelow, within } from './mounts.js';
import { findProgram, outputDirs, type SandboxLayout, SYSTEM_DIRS } from './sandbox.js';

/** The programs the built-in sandbox runs, by absolute path. `ip` is optional (loopback for hermetic). */
export interface BuiltinTools {
  unshare: string;
  mount: string;
  umount: string;
  pivotRoot: string;
  setpriv: string;
  /** coreutils' `cat`: reads the mount table for the init in one go. */
  cat: string;
  ip?: string;
}

/** What the host prepares in the stage directory, and the fstab `mount -a` makes inside. */
export interface BuiltinPlan {
  dirs: string[];
  files: string[];
  links: Array<{ target: string; path: string }>;
  fstab: string[];
  /**
   * Mount points (mountinfo spelling, as the init sees them when it checks: in place the host's
   * paths, in a new root the check's) at or under which a writable mount is expected.
   */
  writable: string[];
  /** Mount points (same spelling) at or under which every mount must be read-only: the store and `.git`. */
  readOnly: string[];
  /** The new root `pivot_root` enters (hermetic), or undefined: the view is made in place (isolated). */
  root?: string;
  /**
   * The private `/tmp` is the stage's `tmp` directory, writable, so the stage must be new for each
   * check: only when a file must be bound directly in `/tmp`, which an empty tmpfs cannot hold.
   */
  tmpInStage: boolean;
}

/** What a path on the host is, for choosing a mount point's shape (injected: the plan stays pure). */
export type PathKind = (path: string) => 'dir' | 'file' | { link: string } | undefined;

const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];
const DEV_LINKS: Array<[string, string]> = [
  ['pts/ptmx', 'ptmx'],
  ['/proc/self/fd', 'fd'],
  ['/proc/self/fd/0', 'stdin'],
  ['/proc/self/fd/1', 'stdout'],
  ['/proc/self/fd/2', 'stderr'],
];
/** Kernel knobs under /proc that a user namespace's root may still write: read-only, as bubblewrap does. */
const PROC_READ_ONLY = ['sys', 'sysrq-trigger', 'irq', 'bus'];
/** What the check's own /dev, /proc and /tmp cover: the host's mounts there need no remount. */
const COVERED = ['/dev', '/proc', '/tmp'];

/** Where the mount point of a new mount comes from: what lies under it in the view at that moment. */
interface Container {
  at: string;
  /** host: a bound host tree (the mount point is there); tmpfs: the new /tmp; else a skeleton directory. */
  kind: 'host' | 'tmpfs' | { skeleton: string };
}

/**
 * The mounts of one check's sandbox, in the order `mount -a` makes them, mirroring bubblewrap's
 * argument list for the same layout (`bwrapArgs`). The stage holds `dev` (the device skeleton),
 * `tmp` (where the new /tmp is made before it is bound over /tmp), `root` (hermetic: the new root)
 * and `skel/<n>` (read-only skeletons: the hermetic work tree's, and a directory for each file to
 * be bound in /tmp).
 */
export function builtinPlan(
  layout: SandboxLayout,
  stage: string,
  mounts: readonly Mount[],
  kind: PathKind,
): BuiltinPlan {
  // First without skeletons in /tmp, to learn which files would need one there.
  const first = planWith(layout, stage, mounts, kind, [], false);
  if (first.tmpFiles.length === 0) return first.plan;
  const parents = [...new Set(first.tmpFiles.map((f) => dirname(f)))].sort();
  if (parents.includes('/tmp')) return planWith(layout, stage, mounts, kind, [], true).plan;
  const roots = parents.filter((p) => !parents.some((q) => q !== p && within(p, q)));
  return planWith(layout, stage, mounts, kind, roots, false).plan;
}

function planWith(
  layout: SandboxLayout,
  stage: string,
  mounts: readonly Mount[],
  kind: PathKind,
  tmpSkeletons: readonly string[],
  tmpInStage: boolean,
): { plan: BuiltinPlan; tmpFiles: string[] } {
  const hermetic = layout.mode === 'hermetic';
  const N = join(stage, 'root');
  const T = join(stage, 'tmp');
  const D = join(stage, 'dev');
  const plan: BuiltinPlan = {
    dirs: [T, D],
    files: [],
    links: [],
    fstab: [],
    writable: [],
    readOnly: layout.protect.map(escapeMount),
    root: hermetic ? N : undefined,
    tmpInStage,
  };
  const tmpFiles: string[] = [];
  // Where sandbox path `p` is mounted: under the new root (hermetic), in place (isolated), or in
  // the stage's tmp while the new /tmp is being made (isolated: it is bound over /tmp last).
  const target = (p: string) =>
    hermetic ? (p === '/' ? N : N + p) : within(p, '/tmp') ? T + p.slice('/tmp'.length) : p;
  const line = (src: string, dst: string, type: string, opts: string[]) =>
    plan.fstab.push(`${escapeMount(src)} ${escapeMount(dst)} ${type} ${opts.join(',')} 0 0`);
  // The check's view: in place the host's paths, in a new root the check's own.
  const writable = (p: string) => plan.writable.push(escapeMount(p));
  const containers: Container[] = [{ at: '/', kind: hermetic ? { skeleton: N } : 'host' }];
  const skeletons = new Map<string, string>();
  const skeletonFor = (p: string) => {
    let dir = skeletons.get(p);
    if (!dir) {
      dir = join(stage, 'skel', String(skeletons.size));
      skeletons.set(p, dir);
      plan.dirs.push(dir);
    }
    return dir;
  };
  /** Makes the mount point for `p` (shape) where the view has it; the mount options it needs. */
  const point = (p: string, shape: 'dir' | 'file'): string[] => {
    if (containers.some((c) => c.at === p)) return [];
    let c: Container | undefined;
    for (const each of containers) if (within(p, each.at)) c = each;
    if (!c || c.kind === 'host') return [];
    if (c.kind === 'tmpfs') {
      if (shape === 'dir') return ['X-mount.mkdir'];
      tmpFiles.push(p);
      return [];
    }
    const at = c.at === '/' ? join(c.kind.skeleton, p) : join(c.kind.skeleton, relative(c.at, p));
    (shape === 'dir' ? plan.dirs : plan.files).push(at);
    return [];
  };
  const shapeOf = (p: string): 'dir' | 'file' => (kind(p) === 'dir' ? 'dir' : 'file');
  const bind = (src: string, dst: string, readOnly: boolean) => {
    const mkdir = point(dst, shapeOf(src));
    containers.push({ at: dst, kind: 'host' });
    if (!readOnly) {
      line(src, target(dst), 'none', ['rbind', ...mkdir]);
      return;
    }
    line(src, target(dst), 'none', ['rbind', 'ro', ...(mountOf(mounts, src)?.locked ?? []), ...mkdir]);
    // A recursive bind copies the mounts below writable: each is made read-only in turn.
    for (const m of mountsBelow(mounts, src))
      line('none', target(join(dst, relative(src, m.path))), 'none', ['remount', 'bind', 'ro', ...m.locked]);
  };
  const bindIfThere = (src: string, readOnly: boolean) => {
    if (kind(src) !== undefined) bind(src, src, readOnly);
  };
  /** A read-only skeleton directory at sandbox path `p`: the mount points below it are made in it. */
  const skeleton = (p: string) => {
    const dir = skeletonFor(p);
    const mkdir = point(p, 'dir');
    containers.push({ at: p, kind: { skeleton: dir } });
    line(dir, target(p), 'none', ['bind', 'ro', ...mkdir]);
  };
  /** The new /tmp: a tmpfs (or the stage's directory), with read-only skeletons for files bound in it. */
  const tmp = () => {
    if (tmpInStage) {
      line(T, target('/tmp'), 'none', ['bind']);
      containers.push({ at: '/tmp', kind: { skeleton: T } });
    } else {
      line('vkit-tmp', target('/tmp'), 'tmpfs', ['mode=1777', 'nosuid', 'nodev']);
      containers.push({ at: '/tmp', kind: 'tmpfs' });
    }
    for (const p of tmpSkeletons) skeleton(p);
  };

  if (!hermetic) {
    const root = layout.root;
    tmp();
    for (const p of layout.keep) if (within(p, '/tmp') && !within(p, root)) bindIfThere(p, true);
    bind(root, root, false);
    writable(root);
    for (const p of layout.protect) bindIfThere(p, true);
    // The host's tree read-only in place, but for what the check's own /dev, /proc and /tmp cover
    // and the work tree (writable, its protected paths already bound read-only over it; a
    // protected path's own mounts are made read-only too, in case `mount -a` took the bind over
    // one as made already). A remount of "/" is written "//": `mount -a` skips the entry for "/".
    for (const m of [mountOf(mounts, '/'), ...mountsBelow(mounts, '/')]) {
      if (!m) continue;
      const covered = COVERED.some((c) => within(m.path, c)) || within(m.path, root);
      if (covered && !layout.protect.some((p) => within(m.path, p))) continue;
      line('none', m.path === '/' ? '//' : m.path, 'none', ['remount', 'bind', 'ro', ...m.locked]);
    }
    // /dev is made in the stage and bound over the host's last: its devices are bound from there.
    line(D, D, 'none', ['bind', 'ro']);
    devices(plan, D, D, line);
    line(D, '/dev', 'none', ['rbind']);
    // Another source name than the host's "proc", or `mount -a` would take it as mounted already.
    proc('vkit-proc', '/proc', line, kind);
    line(T, '/tmp', 'none', ['rbind']);
    // The stage's own mounts (the new /tmp and /dev before they were bound over the host's).
    writable(stage);
  } else {
    line(N, N, 'none', ['bind', 'ro']);
    for (const d of SYSTEM_DIRS) {
      const k = kind(d);
      if (typeof k === 'object') plan.links.push({ target: k.link, path: join(N, d) });
      else if (k === 'dir') bind(d, d, true);
    }
    point('/dev', 'dir');
    line(D, target('/dev'), 'none', ['bind', 'ro']);
    devices(plan, D, target('/dev'), line);
    point('/proc', 'dir');
    proc('proc', target('/proc'), line, kind);
    point('/tmp', 'dir');
    tmp();
    const outside = (p: string) => !SYSTEM_DIRS.some((d) => within(p, d));
    for (const p of layout.keep) if (outside(p) && !within(p, layout.root)) bindIfThere(p, true);
    // The work tree is a read-only skeleton: only the inputs, the outputs' directories and the tool.
    skeleton(layout.root);
    for (const p of layout.keep) if (outside(p) && within(p, layout.root)) bindIfThere(p, true);
    // Output directories first, so an input inside one is still bound read-only over it.
    for (const dir of outputDirs(layout.outputs ?? [])) {
      bind(join(layout.root, dir), join(layout.root, dir), false);
      writable(join(layout.root, dir));
    }
    for (const f of layout.inputs ?? []) bind(join(layout.root, f), join(layout.root, f), true);
    point(layout.cwd, 'dir');
  }
  for (const p of COVERED) writable(p);
  return { plan, tmpFiles };
}

/** A device skeleton (bound read-only at `dst`), the host's harmless devices, a private /dev/shm and pty instance. */
function devices(
  plan: BuiltinPlan,
  skeleton: string,
  dst: string,
  line: (s: string, d: string, t: string, o: string[]) => void,
) {
  plan.dirs.push(join(skeleton, 'shm'), join(skeleton, 'pts'));
  for (const d of DEVICES) plan.files.push(join(skeleton, d));
  for (const [target, name] of DEV_LINKS) plan.links.push({ target, path: join(skeleton, name) });
  if (skeleton !== dst) line(skeleton, dst, 'none', ['bind', 'ro']);
  for (const d of DEVICES) line(`/dev/${d}`, join(dst, d), 'none', ['bind']);
  line('vkit-shm', join(dst, 'shm'), 'tmpfs', ['mode=1777', 'nosuid', 'nodev']);
  line('devpts', join(dst, 'pts'), 'devpts', ['newinstance', 'ptmxmode=0666', 'mode=620', 'nosuid', 'noexec']);
}

/** The PID namespace's own /proc, its kernel knobs read-only. */
function proc(
  source: string,
  dst: string,
  line: (s: string, d: string, t: string, o: string[]) => void,
  kind: PathKind,
) {
  line(source, dst, 'proc', ['nosuid', 'nodev', 'noexec']);
  for (const p of PROC_READ_ONLY)
    if (kind(`/proc/${p}`) !== undefined)
      line(join(dst, p), join(dst, p), 'none', ['bind', 'ro', 'nosuid', 'nodev', 'noexec']);
}

/**
 * PID 1 of the check's namespaces (`sh -c`), root of its own user namespace: makes the mounts
 * (bringing loopback up meanwhile), enters the new root if there is one, checks that nothing
 * unplanned is writable, and runs the check without capabilities; its exit status goes to fd 3
 * as bubblewrap's JSON status line does. The mount table is read whole through `cat` and split in
 * memory: dash's `read` takes one byte per system call, which cost more than a program start. The
 * lifeline (the subshell that kills the namespace when vkit's end of fd 3 closes) waits in "/",
 * holding nothing of what the check's /tmp hides or of the detached old root.
 * Arguments: stage, the new root (or empty: in place), cwd, 1 for a network namespace, mount,
 * umount, pivot_root, setpriv, ip (or empty), cat, the writable places and the places that must be
 * read-only even there (mountinfo spelling, which has no blank, space-separated), `--`, the command.
 */
const BUILTIN_INIT = `set -u
S=$1 NR=$2 cwd=$3 net=$4 MOUNT=$5 UMOUNT=$6 PIVOT=$7 SETPRIV=$8 IP=$9
shift 9
CAT=$1 RW=$2 RO=$3
shift 4
fail() { echo "vkit-sandbox: $*" >&2; exit 1; }
verify() {
  t=$("$CAT" /proc/self/mountinfo) && [ -n "$t" ] || fail "could not read the mount table"
  set -f
  IFS='
'
  for l in $t; do
    IFS=' '
    set -- $l
    case $6 in ro|ro,*) continue ;; esac
    for r in $RO; do case $5 in "$r"|"$r"/*) fail "$5 would be writable" ;; esac; done
    for w in $RW; do case $5 in "$w"|"$w"/*) continue 2 ;; esac; done
    p=$5
    case $p in *\\\\*) p=$(printf '%b' "$p") ;; esac
    if [ -e "$p" ]; then fail "$5 would be writable"; fi
  done
  IFS=' 	
'
  set +f
}
(cd /; read -r _ <&3; kill -KILL -1) 2>/dev/null &
lo=
if [ "$net" = 1 ] && [ -n "$IP" ]; then "$IP" link set lo up & lo=$!; fi
"$MOUNT" -n -a --fstab "$S/fstab" || fail "could not make the check's mounts"
if [ -n "$lo" ]; then wait "$lo" || fail "could not bring the loopback interface up"; fi
if [ -n "$NR" ]; then cd "$NR" && "$PIVOT" . . && "$UMOUNT" -l . || fail "could not enter the check's root"; fi
verify
cd "$cwd" || fail "could not enter the check's working directory"
unset OLDPWD PWD
"$SETPRIV" --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$@" 3>&- &
c=$!
s=0
wait "$c" || s=$?
printf '{"exit-code": %d}\\n' "$s" >&3
exit "$s"
`;

/** The command line before the check's own argv. */
export function builtinArgv(
  tools: BuiltinTools,
  stage: string,
  plan: BuiltinPlan,
  cwd: string,
  net: boolean,
): string[] {
  return [
    tools.unshare,
    '--user',
    '--map-root-user',
    '--mount',
    '--pid',
    '--ipc',
    ...(net ? ['--net'] : []),
    '--fork',
    '--kill-child',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    BUILTIN_INIT,
    'vkit-sandbox',
    stage,
    plan.root ?? '',
    cwd,
    net ? '1' : '0',
    tools.mount,
    tools.umount,
    tools.pivotRoot,
    tools.setpriv,
    tools.ip ?? '',
    tools.cat,
    plan.writable.join(' '),
    plan.readOnly.join(' '),
    '--',
  ];
}

/** Writes the plan's skeleton and fstab into the (empty or missing) stage directory. */
function writeStage(stage: string, plan: BuiltinPlan): void {
  mkdirSync(stage, { recursive: true, mode: 0o700 });
  for (const d of plan.dirs) mkdirSync(d, { recursive: true });
  for (const f of plan.files) {
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, '', { flag: 'a' });
  }
  for (const l of plan.links) {
    mkdirSync(dirname(l.path), { recursive: true });
    symlinkSync(l.target, l.path);
  }
  writeFileSync(join(stage, 'fstab'), fstabText(plan));
}

function fstabText(plan: BuiltinPlan): string {
  return `${plan.fstab.join('\n')}\n`;
}

/** A prepared stage: its directory, the plan written there, and what to do once the check ended. */
export interface Stage {
  dir: string;
  plan: BuiltinPlan;
  release(): void;
}

/** How long a kept stage is trusted before it is written again (a temp cleaner may have pruned it). */
const STAGE_MAX_AGE_MS = 10 * 60_000;
/** Kept stages per process: one per distinct plan (work tree, mode, inputs, the host's mount table). */
const STAGES_KEPT = 32;

interface Kept {
  dir: string;
  fstab: string;
  made: number;
}

let stageBase: string | undefined;
const kept = new Map<string, Kept>();
let generation = 0;

/**
 * The stage for one check. The skeleton and fstab depend only on the plan, and the check never
 * writes them (they are bound read-only, or hidden under its /tmp), so a stage is kept in this
 * process's private directory and used again by every check with the same plan: writing and
 * removing a few dozen files per check cost more than the sandbox's own programs on a slow disk.
 * A kept stage is used only while its fstab still reads as planned; a stage that must be new
 * (a writable /tmp in it, or a stage directory the check could write) is removed by `release`.
 */
export function stageFor(layout: SandboxLayout, mounts: readonly Mount[], kind: PathKind = hostPathKind): Stage {
  const known = new Map<string, ReturnType<PathKind>>();
  const cached: PathKind = (p) => {
    if (!known.has(p)) known.set(p, kind(p));
    return known.get(p);
  };
  if (!stageBase) {
    const base = mkdtempSync(join(tmpdir(), 'vkit-sandbox-'));
    process.once('exit', () => rmSync(base, { recursive: true, force: true }));
    stageBase = base;
  }
  const base = stageBase;
  // Planned once, in a stand-in directory whose name occurs nowhere else, then moved to the stage.
  const draft = builtinPlan(layout, STAND_IN, mounts, cached);
  // A stage in the work tree could be written by a check (its outputs, or all of it when isolated).
  if (draft.tmpInStage || within(base, layout.root)) {
    const dir = mkdtempSync(join(base, 'once-'));
    const plan = moved(draft, dir);
    writeStage(dir, plan);
    return { dir, plan, release: () => rmSync(dir, { recursive: true, force: true }) };
  }
  const key = createHash('sha256').update(JSON.stringify(draft)).digest('hex').slice(0, 16);
  const hit = kept.get(key);
  if (hit && Date.now() - hit.made < STAGE_MAX_AGE_MS && readIfThere(join(hit.dir, 'fstab')) === hit.fstab) {
    kept.delete(key);
    kept.set(key, hit);
    return { dir: hit.dir, plan: moved(draft, hit.dir), release() {} };
  }
  // A new directory each time: a sandbox of this process may still be reading the old one.
  const dir = join(base, `${key}-${++generation}`);
  const plan = moved(draft, dir);
  writeStage(dir, plan);
  kept.delete(key);
  kept.set(key, { dir, fstab: fstabText(plan), made: Date.now() });
  if (hit) retire(hit.dir);
  if (kept.size > STAGES_KEPT) {
    const [oldest, entry] = kept.entries().next().value as [string, Kept];
    kept.delete(oldest);
    retire(entry.dir);
  }
  return { dir, plan, release() {} };
}

const STAND_IN = `/vkit-stage-${randomBytes(8).toString('hex')}`;

/** A plan made in `STAND_IN`, for the stage `dir` (the fstab and mount points spell it escaped). */
function moved(plan: BuiltinPlan, dir: string): BuiltinPlan {
  const raw = (p: string) => p.replaceAll(STAND_IN, dir);
  const escaped = (p: string) => p.replaceAll(STAND_IN, escapeMount(dir));
  return {
    ...plan,
    dirs: plan.dirs.map(raw),
    files: plan.files.map(raw),
    links: plan.links.map((l) => ({ target: l.target, path: raw(l.path) })),
    fstab: plan.fstab.map(escaped),
    writable: plan.writable.map(escaped),
    readOnly: plan.readOnly.map(escaped),
    root: plan.root === undefined ? undefined : raw(plan.root),
  };
}

const retired: Array<{ dir: string; at: number }> = [];

/** Removes a stage no longer kept once no sandbox can still be mounting from it. */
function retire(dir: string): void {
  const now = Date.now();
  retired.push({ dir, at: now });
  while (retired.length > 0 && now - retired[0]!.at > 60_000)
    rmSync(retired.shift()!.dir, { recursive: true, force: true });
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The host's view of a path for `builtinPlan`: a link is bound as what it points to (as mount does), except a system directory's, which is copied as a link. */
function hostPathKind(path: string): 'dir' | 'file' | { link: string } | undefined {
  try {
    if (SYSTEM_DIRS.includes(path) && lstatSync(path).isSymbolicLink()) return { link: readlinkSync(path) };
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

const SEARCH = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/**
 * The built-in sandbox's programs (system directories searched too: `/usr/sbin` is not on every
 * user's PATH), or the ones missing. With `outside` (the work tree), a program in or linked into
 * it is passed over, as for `findBwrap`.
 */
export function findBuiltinTools(
  path = process.env.PATH ?? '',
  outside?: string,
): BuiltinTools | { missing: string[] } {
  const dirs = [...path.split(':'), ...SEARCH];
  const find = (name: string) => findProgram(name, dirs, outside);
  const found = {
    unshare: find('unshare'),
    mount: find('mount'),
    umount: find('umount'),
    pivotRoot: find('pivot_root'),
    setpriv: find('setpriv'),
    cat: find('cat'),
  };
  const missing = Object.entries(found)
    .filter(([, v]) => !v)
    .map(([k]) => (k === 'pivotRoot' ? 'pivot_root' : k));
  if (missing.length > 0) return { missing };
  return { ...(found as Omit<BuiltinTools, 'ip'>), ip: find('ip') };
}
