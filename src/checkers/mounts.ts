/**
 * The host's mount table, as `/proc/self/mountinfo` gives it (pure parsing). The built-in sandbox
 * needs it twice: every mount below a read-only bind must be made read-only one by one (a
 * recursive bind copies them writable), and a remount inside a user namespace must repeat the
 * flags the kernel locked on the original (nosuid, nodev, noexec, its atime rule), or it is refused.
 */

export interface Mount {
  /** The mount point as mountinfo spells it: space, tab, newline and backslash as octal escapes. */
  escaped: string;
  /** The mount point as a path. */
  path: string;
  /** The per-mount options that a remount must keep (nosuid, nodev, noexec, an atime rule). */
  locked: string[];
  fstype: string;
}

const LOCKED = new Set(['nosuid', 'nodev', 'noexec', 'noatime', 'nodiratime', 'relatime', 'strictatime']);
const ATIME = ['noatime', 'relatime', 'strictatime'];

/** mountinfo's lines, in order (a later mount at the same point is on top). */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (fields.length < 7 || dash < 6) continue;
    const escaped = fields[4]!;
    const options = fields[5]!.split(',');
    const locked = options.filter((o) => LOCKED.has(o));
    // No atime word means strict atime, which a remount must then ask for by name.
    if (!locked.some((o) => ATIME.includes(o))) locked.push('strictatime');
    mounts.push({ escaped, path: unescapeMount(escaped), locked, fstype: fields[dash + 1] ?? '' });
  }
  return mounts;
}

/** The escapes mountinfo and fstab share (`\040` for a space), so a path survives both. */
export function escapeMount(path: string): string {
  return path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** The mount a path lives on: the last (topmost) mount whose point is the path or an ancestor of it. */
export function mountOf(mounts: readonly Mount[], path: string): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) if (within(path, m.path) && (!best || m.path.length >= best.path.length)) best = m;
  return best;
}

/**
 * The mounts strictly below `dir`, one per mount point (the topmost, a later line in mountinfo:
 * a remount there reaches that one, and must repeat its locked flags), parents before children.
 */
export function mountsBelow(mounts: readonly Mount[], dir: string): Mount[] {
  const top = new Map<string, Mount>();
  for (const m of mounts) if (m.path !== dir && within(m.path, dir)) top.set(m.path, m);
  return [...top.values()].sort((a, b) => depth(a.path) - depth(b.path));
}

export function within(path: string, dir: string): boolean {
  return dir === '/' ? path.startsWith('/') : path === dir || path.startsWith(`${dir}/`);
}

function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').length;
}
