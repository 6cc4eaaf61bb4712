/**
 * The root a command works in, as one real path. `--root` may name a symbolic link to a directory
 * (a checkout reached through a link): it is that directory. The link is resolved once, here, so
 * that the tree vkit lists, the git repository it asks, the default store beside it and every path
 * a receipt or a no-op record stands on name the same directory, whatever the link points at later.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { invalid } from '../errors.js';

/**
 * The project a command without `--root` works on, found as git finds its repository: the nearest
 * directory from `cwd` up that holds a vkit config, not above the top of the git work tree `cwd` is
 * in; none: `cwd` itself (where `vkit init` writes one).
 */
export function defaultRoot(cwd = process.cwd()): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'vkit.config.ts')) || existsSync(join(dir, 'vkit.manifest.json'))) return dir;
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return resolve(cwd);
  }
}

/** The real path of the directory `given` (default: `defaultRoot()`) names; exit 2 when it names none. */
export function realRoot(given: string | undefined, where?: { path: string }): string {
  const root = resolve(given ?? defaultRoot());
  let real: string | undefined;
  try {
    real = realpathSync(root);
    if (!statSync(real).isDirectory()) real = undefined;
  } catch {
    real = undefined; // missing, a dangling link, a loop of links: not a directory
  }
  if (real === undefined) throw invalid('ERR_ROOT', `Expected --root to be a directory, got \`${root}\``, where);
  return real;
}
