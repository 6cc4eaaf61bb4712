/**
 * Where a root's resident build process listens: `<runtime dir>/vkit-<uid>/<name>.sock`, the name a
 * digest of the real root (FNV-1a, not a cryptographic hash: a served command must not pay for
 * loading node's crypto, and the name only addresses: a server checks every request's root itself,
 * so two roots sharing a name could only decline each other), in a directory only this user may
 * enter. A socket anybody else could have placed there would let them answer `vkit build` with a
 * gate of their choosing, so a directory that is not this user's own, or is open to others, is
 * never used.
 */
import { chmodSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The verbs a shortcut may answer (a resident process, a no-op record) and the one-script CLI runs:
 * the ones that only read the workspace and write the store. Named once, here, for all of them.
 */
export const SHORTCUT_VERBS: ReadonlySet<string> = new Set(['build', 'gate']);

/** The root a command line names (`--root X`, `--root=X`, else the cwd); undefined when unclear. */
export function rootOf(argv: readonly string[], cwd = process.cwd()): string | undefined {
  let root: string | undefined;
  let seen = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a === '--root') {
      root = argv[++i];
      seen++;
    } else if (a.startsWith('--root=')) {
      root = a.slice('--root='.length);
      seen++;
    }
  }
  if (seen > 1 || (seen === 1 && !root)) return undefined;
  return resolve(cwd, root ?? '.');
}

/**
 * Whether a resident build process may serve this command line (a served verb, `VKIT_DAEMON` not
 * `0`, its root's socket exists): only then does bin/vkit.js load the daemon's client, first.
 */
export function mayBeServed(argv: readonly string[]): boolean {
  if (process.env.VKIT_DAEMON === '0' || !SHORTCUT_VERBS.has(argv[0] ?? '')) return false;
  const root = rootOf(argv);
  if (root === undefined) return false;
  try {
    return lstatSync(daemonPaths(root).socket).isSocket();
  } catch {
    return false;
  }
}

export interface DaemonPaths {
  root: string;
  dir: string;
  socket: string;
  log: string;
}

export function daemonPaths(root: string, env: NodeJS.ProcessEnv = process.env): DaemonPaths {
  const real = realpathSync(root);
  const dir = join(env.XDG_RUNTIME_DIR || tmpdir(), `vkit-${process.getuid?.() ?? 'user'}`);
  const name = nameOf(real);
  return { root: real, dir, socket: join(dir, `${name}.sock`), log: join(dir, `${name}.log`) };
}

/** 24 hex digits of two 64-bit FNV-1a digests of the path's UTF-8 bytes (different offset bases). */
function nameOf(path: string): string {
  const bytes = Buffer.from(path);
  const prime = 0x100000001b3n;
  const mask = (1n << 64n) - 1n;
  const digest = (basis: bigint) => {
    let h = basis;
    for (const b of bytes) h = ((h ^ BigInt(b)) * prime) & mask;
    return h.toString(16).padStart(16, '0');
  };
  return (digest(0xcbf29ce484222325n) + digest(0x84222325cbf29ce4n)).slice(0, 24);
}

/** Why `dir` may not hold a trusted socket, or undefined when it is this user's own and closed to others. */
export function unsafeDir(dir: string): string | undefined {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return `${dir} does not exist`;
  }
  if (!st.isDirectory()) return `${dir} is not a directory`;
  if (process.getuid && st.uid !== process.getuid()) return `${dir} belongs to another user`;
  if ((st.mode & 0o077) !== 0) return `${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Creates the private directory (mode 0700) for a server, refusing one that is not safe. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dirname(dir), { recursive: true });
  try {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700); // the umask may have narrowed it further; never wider
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const why = unsafeDir(dir);
  if (why) throw new Error(`cannot serve from ${dir}: ${why}`);
}
