/**
 * The Cargo workspace on disk: finding it (the nearest Cargo.lock at or above a directory, never
 * above --root) and reading its files (what stack/cargo.ts is handed). Shared by the stack check
 * (chain.ts), the subject check (subject.ts) and the graph expansion (graph.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { insideRoot } from '../paths.js';
import { noteRead } from '../reads.js';

/** The nearest directory at or above `from` holding a Cargo.lock, never above `root`. */
export function findWorkspace(root: string, from: string): string | undefined {
  let dir = from;
  for (;;) {
    if (insideRoot(root, relative(root, dir) || '.') === undefined) return undefined;
    try {
      if (statSync(join(dir, 'Cargo.lock')).isFile()) return dir;
    } catch {
      // keep climbing
    }
    if (resolve(dir) === resolve(root)) return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Readers of a workspace's files on disk (the stack check and the graph expansion read the same way). */
export function fsReaders(wsDir: string) {
  return {
    read(rel: string) {
      try {
        const text = readFileSync(join(wsDir, rel), 'utf8');
        noteRead(join(wsDir, rel));
        return text;
      } catch {
        return undefined;
      }
    },
    dirs(rel: string) {
      try {
        return readdirSync(join(wsDir, rel), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name);
      } catch {
        return [];
      }
    },
  };
}
