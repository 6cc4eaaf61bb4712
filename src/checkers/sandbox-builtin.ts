/**
 * The built-in sandbox: the same confinement as bubblewrap's (`sandbox.ts`), made from what every
 * Linux base system ships (util-linux's `unshare`, `mount`, `umount`, `pivot_root`, `setpriv` and
 * `/bin/sh`), for machines without bubblewrap. An unprivileged user namespace lets an ordinary user
 * make it; a root user gets the same namespaces.
 *
 * How each guarantee holds (the decisions record has the longer account):
 * - The host writes the check's mounts as an fstab (`builtinPlan`, pure) and an empty skeleton of
 *   mount points in a private stage directory; inside new user, mount, PID and IPC namespaces (and
 *   a network namespace for `hermetic`) one `mount -a` makes them, then `pivot_root` enters the new
 *   root and detaches the old one, so nothing outside the plan is reachable.
 * - Read-only binds are recursive binds whose every mount is then remounted read-only with the
 *   flags the kernel locked on it; after mounting, the init refuses to start the check while any
 *   mount in the new root outside the writable places (the work tree or declared outputs, `/tmp`,
 *   `/dev`, `/proc`) is writable, so a host mount made meanwhile cannot slip through. A mount
 *   below a directory this user cannot enter (root's home, another user's) is left as it is: the
 *   check cannot reach it either, and its remount would fail (bubblewrap skips those too).
 * - The check runs through `setpriv` with no capabilities (bounding, inheritable and ambient sets
 *   emptied) and `no_new_privs`, after the mounts are made: root inside its namespace, it cannot
 *   unmount or remount anything, and no set-uid or file-capability program gives any back.
 * - The init is PID 1 of the check's PID namespace: when it ends, every descendant dies, `setsid`
 *   or not. It reports the check's exit status on fd 3, which the check does not inherit, and it
 *   kills the namespace when vkit's end of that socket closes (vkit died), as bubblewrap's
 *   `--die-with-parent` does.
 */
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { escapeMount, type Mount, mountOf, mountsBelow, within } from './mounts.js';
import { outputDirs, type SandboxLayout, SYSTEM_DIRS } from './sandbox.js';

/** The programs the built-in sandbox runs, by absolute path. `ip` is optional (loopback for hermetic). */
export interface BuiltinTools {
  unshare: string;
  mount: string;
  umount: string;
  pivotRoot: string;
  setpriv: string;
  ip?: string;
}

/** What the host prepares in the stage directory, and the fstab `mount -a` makes inside. */
export interface BuiltinPlan {
  dirs: string[];
  files: string[];
  links: Array<{ target: string; path: string }>;
  fstab: string[];
  /** Mount points (mountinfo spelling) under which a writable mount is expected. */
  writable: string[];
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

/**
 * The mounts of one check's sandbox, in the order `mount -a` makes them, mirroring bubblewrap's
 * argument list for the same layout (`bwrapArgs`). `stage` holds `root` (the new root), `tmp` (the
 * private `/tmp`) and `dev` (the device skeleton).
 */
export function builtinPlan(
  layout: SandboxLayout,
  stage: string,
  mounts: readonly Mount[],
  kind: PathKind,
): BuiltinPlan {
  const N = join(stage, 'root');
  const T = join(stage, 'tmp');
  const D = join(stage, 'dev');
  const plan: BuiltinPlan = { dirs: [N, T, D], files: [], links: [], fstab: [], writable: [] };
  const inside = (p: string) => (p === '/' ? N : N + p);
  const line = (src: string, dst: string, type: string, opts: string[]) =>
    plan.fstab.push(`${escapeMount(src)} ${escapeMount(dst)} ${type} ${opts.join(',')} 0 0`);
  const writable = (p: string) => plan.writable.push(escapeMount(inside(p)));
  // Where a mount point for sandbox path `p` is made on the host: the private /tmp, the hermetic
  // root's skeleton, or nowhere (an isolated root shows the host's own directory there).
  const point = (p: string, shape: 'dir' | 'file') => {
    const at =
      p !== '/tmp' && within(p, '/tmp')
        ? join(T, relative('/tmp', p))
        : layout.mode === 'hermetic'
          ? inside(p)
          : undefined;
    if (at) (shape === 'dir' ? plan.dirs : plan.files).push(at);
  };
  const shapeOf = (p: string): 'dir' | 'file' => (kind(p) === 'dir' ? 'dir' : 'file');
  const bind = (src: string, dst: string, readOnly: boolean) => {
    point(dst, shapeOf(src));
    if (!readOnly) {
      line(src, inside(dst), 'none', ['rbind']);
      return;
    }
    line(src, inside(dst), 'none', ['rbind', 'ro', ...(mountOf(mounts, src)?.locked ?? [])]);
    // A recursive bind copies the mounts below writable: each is made read-only in turn.
    for (const m of mountsBelow(mounts, src))
      line('none', inside(join(dst, relative(src, m.path))), 'none', ['remount', 'bind', 'ro', ...m.locked]);
  };
  const bindIfThere = (src: string, readOnly: boolean) => {
    if (kind(src) !== undefined) bind(src, src, readOnly);
  };

  line(N, N, 'none', ['bind', 'ro']);
  if (layout.mode === 'isolated') {
    bind('/', '/', true);
    devices(plan, D, inside('/dev'), line);
    proc(inside('/proc'), line, kind);
    line(T, inside('/tmp'), 'none', ['bind']);
    for (const p of layout.keep) if (within(p, '/tmp')) bindIfThere(p, true);
    bind(layout.root, layout.root, false);
    writable(layout.root);
    for (const p of layout.protect) bindIfThere(p, true);
  } else {
    for (const d of SYSTEM_DIRS) {
      const k = kind(d);
      if (typeof k === 'object') plan.links.push({ target: k.link, path: inside(d) });
      else if (k === 'dir') bind(d, d, true);
    }
    point('/dev', 'dir');
    devices(plan, D, inside('/dev'), line);
    point('/proc', 'dir');
    proc(inside('/proc'), line, kind);
    point('/tmp', 'dir');
    line(T, inside('/tmp'), 'none', ['bind']);
    for (const p of layout.keep) if (!SYSTEM_DIRS.some((d) => within(p, d))) bindIfThere(p, true);
    point(layout.root, 'dir');
    // Output directories first, so an input inside one is still bound read-only over it.
    for (const dir of outputDirs(layout.outputs ?? [])) {
      bind(join(layout.root, dir), join(layout.root, dir), false);
      writable(join(layout.root, dir));
    }
    for (const f of layout.inputs ?? []) bind(join(layout.root, f), join(layout.root, f), true);
    point(layout.cwd, 'dir');
  }
  for (const p of ['/tmp', '/dev', '/proc']) writable(p);
  return plan;
}

/** A device skeleton (bound read-only), the host's harmless devices, a private /dev/shm and pty instance. */
function devices(
  plan: BuiltinPlan,
  skeleton: string,
  dst: string,
  line: (s: string, d: string, t: string, o: string[]) => void,
) {
  plan.dirs.push(join(skeleton, 'shm'), join(skeleton, 'pts'));
  for (const d of DEVICES) plan.files.push(join(skeleton, d));
  for (const [target, name] of DEV_LINKS) plan.links.push({ target, path: join(skeleton, name) });
  line(skeleton, dst, 'none', ['bind', 'ro']);
  for (const d of DEVICES) line(`/dev/${d}`, join(dst, d), 'none', ['bind']);
  line('vkit-shm', join(dst, 'shm'), 'tmpfs', ['mode=1777', 'nosuid', 'nodev']);
  line('devpts', join(dst, 'pts'), 'devpts', ['newinstance', 'ptmxmode=0666', 'mode=620', 'nosuid', 'noexec']);
}

/** The PID namespace's own /proc, its kernel knobs read-only. */
function proc(dst: string, line: (s: string, d: string, t: string, o: string[]) => void, kind: PathKind) {
  line('proc', dst, 'proc', ['nosuid', 'nodev', 'noexec']);
  for (const p of PROC_READ_ONLY)
    if (kind(`/proc/${p}`) !== undefined)
      line(join(dst, p), join(dst, p), 'none', ['bind', 'ro', 'nosuid', 'nodev', 'noexec']);
}

/**
 * PID 1 of the check's namespaces (`sh -c`), root of its own user namespace: makes the mounts,
 * checks that nothing unplanned is writable, enters the new root, and runs the check without
 * capabilities; its exit status goes to fd 3 as bubblewrap's JSON status line does.
 * Arguments: stage, the new root as mountinfo spells it, cwd, 1 for a network namespace, mount,
 * umount, pivot_root, setpriv, ip (or empty), `--`, the command.
 */
const BUILTIN_INIT = `set -u
S=$1 NE=$2 cwd=$3 net=$4 MOUNT=$5 UMOUNT=$6 PIVOT=$7 SETPRIV=$8 IP=$9
shift 10
fail() { echo "vkit-sandbox: $*" >&2; exit 1; }
(read -r _ <&3; kill -KILL -1) 2>/dev/null &
"$MOUNT" -n -a --fstab "$S/fstab" || fail "could not make the check's mounts"
while read -r _ _ _ _ mp opts _; do
  case $mp in "$NE"|"$NE"/*) ;; *) continue ;; esac
  case $opts in ro|ro,*) continue ;; esac
  p=$mp
  case $p in *\\\\*) p=$(printf '%b' "$p") ;; esac
  [ -e "$p" ] || continue
  ok=
  while read -r w; do case $mp in "$w"|"$w"/*) ok=1; break ;; esac; done < "$S/rw"
  [ -n "$ok" ] || fail "$mp would be writable"
done < /proc/self/mountinfo
cd "$S/root" && "$PIVOT" . . && "$UMOUNT" -l . && cd "$cwd" || fail "could not enter the check's root"
if [ "$net" = 1 ] && [ -n "$IP" ]; then "$IP" link set lo up || fail "could not bring the loopback interface up"; fi
unset OLDPWD PWD
"$SETPRIV" --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$@" 3>&- &
c=$!
s=0
wait "$c" || s=$?
printf '{"exit-code": %d}\\n' "$s" >&3
exit "$s"
`;

/** The command line before the check's own argv. */
export function builtinArgv(tools: BuiltinTools, stage: string, cwd: string, net: boolean): string[] {
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
    escapeMount(join(stage, 'root')),
    cwd,
    net ? '1' : '0',
    tools.mount,
    tools.umount,
    tools.pivotRoot,
    tools.setpriv,
    tools.ip ?? '',
    '--',
  ];
}

/** Writes the plan's skeleton, fstab and writable list into the (empty) stage directory. */
export function writeStage(stage: string, plan: BuiltinPlan): void {
  for (const d of plan.dirs) mkdirSync(d, { recursive: true });
  for (const f of plan.files) {
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, '', { flag: 'a' });
  }
  for (const l of plan.links) {
    mkdirSync(dirname(l.path), { recursive: true });
    symlinkSync(l.target, l.path);
  }
  writeFileSync(join(stage, 'fstab'), `${plan.fstab.join('\n')}\n`);
  writeFileSync(join(stage, 'rw'), `${plan.writable.join('\n')}\n`);
}

/** The host's view of a path for `builtinPlan`: a link is bound as what it points to (as mount does), except a system directory's, which is copied as a link. */
export function hostPathKind(path: string): 'dir' | 'file' | { link: string } | undefined {
  try {
    if (SYSTEM_DIRS.includes(path) && lstatSync(path).isSymbolicLink()) return { link: readlinkSync(path) };
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

const SEARCH = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/** The built-in sandbox's programs (system directories searched too: `/usr/sbin` is not on every user's PATH), or the ones missing. */
export function findBuiltinTools(path = process.env.PATH ?? ''): BuiltinTools | { missing: string[] } {
  const dirs = [...path.split(':').filter((d) => d.startsWith('/')), ...SEARCH];
  const find = (name: string) => {
    for (const dir of dirs) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
    return undefined;
  };
  const found = {
    unshare: find('unshare'),
    mount: find('mount'),
    umount: find('umount'),
    pivotRoot: find('pivot_root'),
    setpriv: find('setpriv'),
  };
  const missing = Object.entries(found)
    .filter(([, v]) => !v)
    .map(([k]) => (k === 'pivotRoot' ? 'pivot_root' : k));
  if (missing.length > 0) return { missing };
  return { ...(found as Omit<BuiltinTools, 'ip'>), ip: find('ip') };
}
