/**
 * Where a root's resident build process listens: `<runtime dir>/vkit-<uid>/<sha256(real root)>.sock`,
 * in a directory only this user may enter. A socket anybody else could have placed there would let
 * them answer `vkit build` with a gate of their choosing, so a directory that is not this user's
 * own, or is open to others, is never used.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The verbs a resident process serves: the ones that only read the workspace and write the store. */
export const SERVED_VERBS: ReadonlySet<string> = new Set(['build', 'gate']);

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

export interface DaemonPaths {
  root: string;
  dir: string;
  socket: string;
  log: string;
}

export function daemonPaths(root: string, env: NodeJS.ProcessEnv = process.env): DaemonPaths {
  const real = realpathSync(root);
  const dir = join(env.XDG_RUNTIME_DIR || tmpdir(), `vkit-${process.getuid?.() ?? 'user'}`);
  const name = createHash('sha256').update(real).digest('hex').slice(0, 24);
  return { root: real, dir, socket: join(dir, `${name}.sock`), log: join(dir, `${name}.log`) };
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
