/**
 * Declared outputs: files under the root matching `outputs` globs after a check ran. Unlike inputs
 * they are usually git-ignored, so this walks the filesystem from each glob's static prefix.
 * Retained evidence rejects links and special files, naming the path.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileGlob, matchGlobs } from '../text/glob.js';

class OutputRejectedError extends Error {}

export function listOutputs(root: string, globs: readonly string[]): string[] {
  if (globs.length === 0) return [];
  const compiled = globs.map(compileGlob);
  const found = new Set<string>();
  for (const g of compiled) {
    if (g.negated) continue;
    const base = g.literal ? g.prefix : g.prefix.replace(/\/$/, '');
    walk(root, base, found);
  }
  const matched = matchGlobs(compiled, [...found].sort());
  for (const path of matched) {
    const st = lstatSync(join(root, path));
    if (st.isSymbolicLink())
      throw new OutputRejectedError(`output \`${path}\` is a symlink; retained evidence holds regular files only`);
    if (!st.isFile())
      throw new OutputRejectedError(`output \`${path}\` is a special file; retained evidence holds regular files only`);
  }
  return matched;
}

function walk(root: string, rel: string, into: Set<string>): void {
  let st;
  try {
    st = lstatSync(join(root, rel));
  } catch {
    return;
  }
  if (!st.isDirectory()) {
    if (rel) into.add(rel);
    return;
  }
  for (const name of readdirSync(join(root, rel))) {
    if (!rel && (name === '.git' || name === '.vkit')) continue;
    walk(root, rel ? `${rel}/${name}` : name, into);
  }
}
