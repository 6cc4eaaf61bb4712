/**
 * `vkit init`: writes a starter `vkit.config.ts` whose checks match the project it finds: one per
 * npm script it recognises (`init-project.ts`), else a cargo test, else a placeholder that fails.
 * Its inputs exclude what git ignores, every folder `.gitignore` names included whether it exists
 * yet or not (`init-gitignore.ts`), so the config stays valid when a build creates `dist/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listWorkTree } from '../capture/listing.js';
import { uncapturedPaths } from '../capture/selector.js';
import { findConfig } from '../config/load.js';
import { invalid } from '../errors.js';
import { compileGlob, coversBelow, matchGlobs } from '../text/glob.js';
import { ignoredFolderExcludes } from './init-gitignore.js';
import { npmChecks, readPackageJson, type StarterCheck } from './init-project.js';
import { renderConfig } from './init-render.js';

/** The config `initConfig` wrote, or would write with `dryRun`. */
export interface InitResult {
  file: string;
  text: string;
  written: boolean;
}

export async function initConfig(root: string, opts: { dryRun?: boolean } = {}): Promise<InitResult> {
  const existing = findConfig(root);
  if (existing)
    throw invalid(
      'ERR_INIT_EXISTS',
      `A config already exists: ${existing}`,
      { file: existing },
      'Edit it, or remove it first.',
    );
  const tree = listWorkTree(root);
  const [files, ignored, git] = await Promise.all([tree.files, tree.ignored, tree.info]);
  const folderExcludes = git ? safeExcludes(ignoredFolderExcludes(root, topOf(root, git.prefix)), files) : [];
  const ignoredFolder = (name: string) =>
    ignored.includes(`${name}/`) || folderExcludes.some((g) => coversBelow(compileGlob(g), name));
  const starter = starterFor(root, ignoredFolder);
  const inputs = [...starter.globs, ...folderExcludes];
  for (const d of starter.defaultExcludes)
    if (!inputs.some((g) => g.startsWith('!') && coversBelow(compileGlob(g), d.slice(1, -3)))) inputs.push(d);
  // What exists now and git ignores (or is secret-looking) that the globs could select is excluded
  // by name too: the starter must be valid where it is written.
  for (const u of uncapturedPaths(inputs, files, ignored)) if (!inputs.includes(u.exclude)) inputs.push(u.exclude);
  const text = renderConfig(
    starter.checks,
    inputs,
    'What vkit never captures: what git ignores (each folder .gitignore names, whether it exists yet or not) and secret-looking files.',
  );
  const file = join(root, 'vkit.config.ts');
  if (opts.dryRun) return { file, text, written: false };
  await writeFile(file, text, { flag: 'wx' });
  return { file, text, written: true };
}

/** The checks, their positive globs, and the folder exclusions the project's kind always wants (`!dir/**`). */
function starterFor(
  root: string,
  ignoredFolder: (name: string) => boolean,
): { checks: StarterCheck[]; globs: string[]; defaultExcludes: string[] } {
  const pkgFile = join(root, 'package.json');
  if (existsSync(pkgFile))
    return {
      checks: npmChecks(readPackageJson(readFileSync(pkgFile, 'utf8'), pkgFile), ignoredFolder),
      globs: ['package.json', '**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts,json}'],
      defaultExcludes: ['!node_modules/**'],
    };
  if (existsSync(join(root, 'Cargo.toml')))
    return {
      checks: [{ id: 'test', run: ['cargo', 'test', '--offline'] }],
      globs: ['Cargo.toml', '**/*.rs'],
      defaultExcludes: ['!target/**'],
    };
  return {
    checks: [
      {
        id: 'todo',
        // A starter must never make the gate green by itself.
        note: 'A placeholder that fails until you replace it with your first real check.',
        run: 'echo "replace this placeholder with your first real check" >&2; exit 1',
      },
    ],
    globs: ['**/*'],
    defaultExcludes: [],
  };
}

/**
 * The folder exclusions that leave out no file git lists: a tracked `src/build/x.ts` under an
 * unanchored `build/` pattern is still read by the checks, and an exclusion would hide it from
 * their keys. Such a folder is left to the listing (excluded by name once git ignores it there).
 */
function safeExcludes(excludes: readonly string[], files: readonly string[]): string[] {
  return excludes.filter((g) => matchGlobs([compileGlob(g.slice(1))], files).length === 0);
}

/** The git work tree's top folder, from the root and its prefix in it (`a/b/`). */
function topOf(root: string, prefix: string): string {
  const up = prefix.split('/').filter(Boolean);
  return up.length ? join(root, ...up.map(() => '..')) : root;
}
