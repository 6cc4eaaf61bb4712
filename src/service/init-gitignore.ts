/**
 * The folders a project's `.gitignore` names, as the `!` exclusions `vkit init` writes: git never
 * lists what is inside an ignored folder, so a starter glob able to reach one is a config error the
 * moment the folder exists. Written from the patterns, not from what exists at init, a build that
 * creates `dist/` later leaves the config valid.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { escapeGlob } from '../text/glob.js';

/** Characters that make a `.gitignore` line a pattern rather than a plain path. */
const GLOB_CHARS = /[*?[\\]/;

/**
 * One `.gitignore` line as the folder it names, or undefined: a folder is a line ending in `/`, or a
 * plain path whose last name has no `.` (`node_modules`, `/coverage`; `.env` and `index.d.ts` read
 * as files). `anchored` as git reads it: a `/` at the start or in the middle ties it to this folder.
 */
export function folderPattern(line: string): { path: string; anchored: boolean } | undefined {
  let body = line.trim();
  if (!body || body.startsWith('#') || body.startsWith('!')) return undefined;
  const dir = body.endsWith('/');
  if (dir) body = body.replace(/\/+$/, '');
  let anchored = false;
  if (body.startsWith('**/')) body = body.slice(3);
  else if (body.startsWith('/')) {
    anchored = true;
    body = body.slice(1);
  }
  if (!body || GLOB_CHARS.test(body) || body.split('/').some((name) => name === '.' || name === '..' || !name))
    return undefined;
  if (body.includes('/')) anchored = true;
  if (!dir && body.slice(body.lastIndexOf('/') + 1).includes('.')) return undefined;
  return { path: body, anchored };
}

/**
 * The exclusions for the folders named by each `.gitignore` from the git work tree's top (`top`) down
 * to `root`, in their order: `!dist/**` for an anchored folder, `!**\/dist/**` for one git ignores at
 * any depth. A folder a later negation (`!dist/`) names again is left out: git may list it.
 */
export function ignoredFolderExcludes(root: string, top: string): string[] {
  const excludes = new Map<string, string>();
  for (const dir of ancestorsDown(top, root)) {
    const file = join(dir, '.gitignore');
    if (!existsSync(file)) continue;
    // Where `root` is below this .gitignore's folder: its anchored patterns must start there.
    const below = relative(dir, root).split(sep).filter(Boolean).join('/');
    for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
      const negated = line.trim().startsWith('!');
      const folder = folderPattern(negated ? line.trim().slice(1) : line);
      if (!folder) continue;
      const key = `${folder.anchored ? '/' : ''}${folder.path}`;
      if (negated) {
        excludes.delete(key);
        continue;
      }
      const glob = excludeFor(folder, below);
      if (glob) excludes.set(key, glob);
    }
  }
  return [...new Set(excludes.values())];
}

/** The exclusion (relative to the root `below` that .gitignore's folder) for one folder, if it falls under the root. */
function excludeFor(folder: { path: string; anchored: boolean }, below: string): string | undefined {
  const escaped = folder.path.split('/').map(escapeGlob).join('/');
  if (!folder.anchored) return `!**/${escaped}/**`;
  if (!below) return `!${escaped}/**`;
  if (!folder.path.startsWith(`${below}/`)) return undefined;
  return `!${escaped.slice(below.length + 1)}/**`;
}

/** `top`, then each folder down to `root` (both absolute; `root` inside `top`). */
function ancestorsDown(top: string, root: string): string[] {
  const rel = relative(top, root);
  if (rel.startsWith('..')) return [root];
  const out = [top];
  let at = top;
  for (const name of rel.split(sep).filter(Boolean)) out.push((at = join(at, name)));
  return out;
}
