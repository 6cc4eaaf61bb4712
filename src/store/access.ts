/**
 * Whether a store index SQLite cannot use is merely out of this user's reach: a store directory or
 * index file another user owns (root's store used by an ordinary user), one made read-only, or a
 * read-only file system. That index is not damaged, and moving it aside (the advice for a damaged
 * one) would throw good evidence away: the error names the owner and the fix instead.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { EXIT, VkitError } from '../errors.js';

/** The error for an index at `path` this user may not write, or undefined when every part of it is writable. */
export function unwritableIndex(path: string, why: string, cause?: unknown): VkitError | undefined {
  const dir = dirname(path);
  // What SQLite writes: the directory (its -wal, -shm and journal files are made there) and the
  // index's files that exist.
  for (const file of [dir, path, `${path}-wal`, `${path}-shm`]) {
    const problem = unwritable(file);
    if (problem === undefined) continue;
    const me = process.getuid?.();
    const you = me === undefined ? 'this user' : `this user (${userNamed(me)})`;
    return new VkitError(
      'ERR_STORE_ACCESS',
      EXIT.blocked,
      `the store ${dir} cannot be written by ${you}: ${file} ${problem}; its index is not damaged (SQLite: ${why})`,
      {
        where: file,
        hint: `Do not move the index aside. Use a store of your own (--store DIR, or leave --store out), or make this one yours: chown -R ${me ?? '$(id -u)'} ${dir}.`,
        cause,
      },
    );
  }
  return undefined;
}

/** Why this user may not write `file`, or undefined when it may (or the file does not exist). */
function unwritable(file: string): string | undefined {
  let owner: number;
  let mode: number;
  try {
    ({ uid: owner, mode } = statSync(file));
  } catch {
    return undefined;
  }
  try {
    accessSync(file, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return 'is on a read-only file system';
    const modeText = `mode ${(mode & 0o7777).toString(8).padStart(4, '0')}`;
    return owner === process.getuid?.()
      ? `is read-only (${modeText})`
      : `belongs to ${userNamed(owner)} and is read-only to you (${modeText})`;
  }
}

/** `uid N (name)`, the name from /etc/passwd when it has one. */
function userNamed(uid: number): string {
  let name: string | undefined;
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === String(uid));
    name = line?.split(':')[0] || undefined;
  } catch {
    name = undefined;
  }
  return name ? `uid ${uid} (${name})` : `uid ${uid}`;
}
