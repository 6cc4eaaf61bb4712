/**
 * Where `vkit report --out DIR` may write: a new or empty directory, or one holding nothing but an
 * earlier vkit report's `index.html` (written over). Never the evidence store or a git directory,
 * nor inside them, and never a directory with anything else in it: the report deletes nothing and
 * writes over nothing it did not make.
 */
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { invalid } from '../../errors.js';
import { isInside, realAncestry } from '../../evidence/write-target.js';
import { REPORT_MARK } from './html.js';

const PAGE = 'index.html';
const HOW = 'Name a new or empty directory with --out (for example --out vkit-report).';

/** True when `dir/index.html` is a regular file that starts as a vkit report does. */
function holdsOnlyAReport(dir: string, entries: string[]): boolean {
  if (entries.length !== 1 || entries[0] !== PAGE) return false;
  const page = join(dir, PAGE);
  if (!lstatSync(page).isFile()) return false;
  const head = Buffer.alloc(1024);
  const fd = openSync(page, 'r');
  try {
    return head
      .subarray(0, readSync(fd, head, 0, head.length, 0))
      .toString('utf8')
      .includes(REPORT_MARK);
  } finally {
    closeSync(fd);
  }
}

/** The directory the page goes to, checked (exit 2 naming `--out` on anything it refuses); nothing is written yet. */
export function checkOutDir(out: string | undefined, storeDir: string): string {
  if (out === undefined || out === '')
    throw invalid('ERR_USAGE', 'Expected --out DIR, the directory the report is written to', { path: '--out' }, HOW);
  const dir = realAncestry(resolve(out));
  const store = realAncestry(resolve(storeDir));
  if (isInside(dir, store))
    throw invalid(
      'ERR_USAGE',
      `Expected --out outside the evidence store ${store}, got \`${out}\``,
      { path: '--out' },
      HOW,
    );
  if (isInside(store, dir))
    throw invalid(
      'ERR_USAGE',
      `Expected --out not to hold the evidence store ${store}, got \`${out}\``,
      { path: '--out' },
      HOW,
    );
  if (dir.split(sep).some((part) => part.toLowerCase() === '.git'))
    throw invalid('ERR_USAGE', `Expected --out outside any .git directory, got \`${out}\``, { path: '--out' }, HOW);
  let entries: string[];
  try {
    if (!lstatSync(dir).isDirectory())
      throw invalid(
        'ERR_USAGE',
        `Expected --out to be a directory, got \`${out}\`, which is a file`,
        { path: '--out' },
        HOW,
      );
    entries = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return dir;
    if (code === undefined) throw error;
    throw invalid(
      'ERR_USAGE',
      `Expected --out to be a directory vkit can read, got \`${out}\` (${code})`,
      { path: '--out' },
      HOW,
    );
  }
  if (entries.length > 0 && !holdsOnlyAReport(dir, entries))
    throw invalid(
      'ERR_USAGE',
      `Expected --out to be a new or empty directory, or one holding only an earlier vkit report; \`${out}\` holds ${entries.length} other entr${entries.length === 1 ? 'y' : 'ies'} (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''})`,
      { path: '--out' },
      `${HOW} vkit never deletes or writes over files it did not make.`,
    );
  return dir;
}

/** Writes the page as `dir/index.html` (made whole beside it, then renamed into place); returns its path. */
export function writePage(dir: string, html: string): string {
  mkdirSync(dir, { recursive: true });
  const page = join(dir, PAGE);
  const part = join(dir, `.${PAGE}.${process.pid}.part`);
  try {
    writeFileSync(part, html, { flag: 'wx' });
    renameSync(part, page);
  } catch (error) {
    rmSync(part, { force: true });
    throw error;
  }
  return page;
}
