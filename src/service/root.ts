/**
 * The root a command works in, as one real path. `--root` may name a symbolic link to a directory
 * (a checkout reached through a link): it is that directory. The link is resolved once, here, so
 * that the tree vkit lists, the git repository it asks, the default store beside it and every path
 * a receipt or a no-op record stands on name the same directory, whatever the link points at later.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalid } from '../errors.js';

/** The real path of the directory `given` (default: the working directory) names; exit 2 when it names none. */
export function realRoot(given: string | undefined, where?: { path: string }): string {
  const root = resolve(given ?? process.cwd());
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
