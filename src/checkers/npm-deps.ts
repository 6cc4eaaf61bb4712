/**
 * A check's installed npm dependencies as part of its tool's identity (`deps: { npm: [dir] }`).
 * `npx tsc` runs `node_modules/.bin/tsc`, which is as much the check's tool as node is: its key must
 * change when any installed byte does. Each directory contributes the digest of its lock file and
 * the tree digest of every file under its `node_modules` (links as their target strings), hashed
 * through the file-state cache, so an unchanged tree costs one lstat per file. npm's own hidden
 * lock file (`node_modules/.package-lock.json`) is not trusted alone: an edit inside a package
 * leaves it as it was.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hashPath, type FileStateCache } from '../capture/files.js';
import { treeDigest, type TreeEntry } from '../capture/tree.js';

/** One directory's installed dependencies, as the checker identity records them. */
export interface NpmDeps {
  /** Root-relative directory holding package.json and node_modules. */
  dir: string;
  /** sha256 of `package-lock.json` (or `npm-shrinkwrap.json`), or `absent`. */
  lock: string;
  /** Tree digest of `node_modules` and the number of entries it covers. */
  installed: string;
  files: number;
}

/**
 * Tool caches some tools write inside node_modules (vitest's `.vite`, babel's and others' `.cache`):
 * left out of the digest, or every run would change the key of the next. What a check reads from
 * them is not in its key, like any other cache.
 */
const NPM_CACHE_DIRS = ['.cache', '.vite'];

/** Why a directory's dependencies cannot stand in a key: the check is BLOCKED with this. */
export class NpmDepsError extends Error {}

export function npmDeps(root: string, dir: string, states: { cache?: FileStateCache; now: () => bigint }): NpmDeps {
  const base = join(root, dir);
  const modules = join(base, 'node_modules');
  if (!lstatSync(modules, { throwIfNoEntry: false })?.isDirectory())
    throw new NpmDepsError(
      `the npm dependencies of \`${dir}\` are not installed (no \`${join(dir, 'node_modules')}\`): run \`npm ci\` there`,
    );
  let lock = 'absent';
  for (const name of ['npm-shrinkwrap.json', 'package-lock.json']) {
    const hashed = hashPath(join(base, name), 'raw', states);
    if (hashed) {
      lock = hashed.sha256;
      break;
    }
  }
  const entries: TreeEntry[] = [];
  const walk = (abs: string, rel: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && NPM_CACHE_DIRS.includes(entry.name)) continue;
      const a = join(abs, entry.name);
      if (entry.isDirectory()) {
        walk(a, r);
        continue;
      }
      let hashed;
      try {
        hashed = hashPath(a, 'raw', states);
      } catch {
        throw new NpmDepsError(
          `\`${join(dir, 'node_modules', r)}\` is not a regular file or a link: vkit cannot stand for it in the key`,
        );
      }
      if (hashed) entries.push({ path: r, mode: hashed.mode, sha256: hashed.sha256 });
    }
  };
  walk(modules, '');
  return { dir, lock, installed: treeDigest(entries), files: entries.length };
}

/** What a hermetic check of these directories sees read-only besides its inputs (root-relative). */
export function npmVisiblePaths(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs)
    for (const name of ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'node_modules']) {
      const rel = dir === '.' || dir === '' ? name : `${dir.replace(/\/$/, '')}/${name}`;
      if (lstatSync(join(root, rel), { throwIfNoEntry: false })) out.push(rel);
    }
  return out;
}

/** The globs whose changes change a directory's npm identity (watch listens to them). */
export function npmToolGlobs(dir: string): string[] {
  const at = dir === '.' || dir === '' ? '' : `${dir.replace(/\/$/, '')}/`;
  return [`${at}package-lock.json`, `${at}npm-shrinkwrap.json`, `${at}node_modules/**`];
}
