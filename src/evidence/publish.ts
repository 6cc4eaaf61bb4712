/**
 * Puts a finished temp file at its final name in one step, so a reader never sees a partial file:
 * `replace` renames it over whatever is there (a symlink there is replaced, never written through);
 * otherwise it is hard-linked in, which fails if the name exists however late it appeared, so an
 * existing file is never clobbered (a file system without hard links gets an exclusive copy).
 */
import { constants, copyFileSync, linkSync, renameSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { invalid } from '../errors.js';

/** A temp name beside `file` that no other writer picks: open it with the `wx` flag. */
export function tempBeside(file: string): string {
  return `${file}.partial-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** Publishes `temp` as `file` and removes `temp` (also on failure). */
export function publishTemp(temp: string, file: string, replace: boolean): void {
  try {
    if (replace) renameSync(temp, file);
    else linkExclusive(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

function linkExclusive(temp: string, file: string): void {
  try {
    linkSync(temp, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw existsError(file);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
    try {
      copyFileSync(temp, file, constants.COPYFILE_EXCL);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code === 'EEXIST') throw existsError(file);
      throw copyError;
    }
  }
}

const existsError = (file: string) =>
  invalid('ERR_OUT_PATH', `Refusing to write \`${file}\`: the file appeared while it was being written`);
