/**
 * Where vkit may write a file a caller names (an export bundle, a report, a draft decision). Never
 * into a git directory or the evidence store, whoever asks: a bundle written over `.git/hooks/*` runs
 * as code, one written into the store breaks the evidence it keeps. An MCP agent's paths must also
 * stay inside the directories the host allows (the project root, plus `vkit mcp --allow-write DIR`),
 * and an existing file is replaced only when the caller says so. Every check is made on the real
 * path (symlinks resolved), so a link inside the root that points outside is outside.
 */
import { lstatSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { invalid } from '../errors.js';
import { gitInfo } from '../capture/git.js';
import { publishTemp, tempBeside } from './publish.js';

export interface TargetRules {
  /** The argument the path came in, as errors name it (`out`, `--out`). */
  arg: string;
  /** Whether an existing file at the path may be replaced. */
  overwrite: boolean;
  /** When set (an agent's path), the directories the real path must be inside; unset, anywhere (a user's path). */
  within?: readonly string[];
  /** The hint for an existing file refused, e.g. `pass overwrite: true`. */
  overwriteHint: string;
}

export interface WriteTarget {
  /** The real path to write: the real parent directory joined with the file's name. */
  path: string;
  /** Whether something already exists there (only possible with `overwrite`). */
  exists: boolean;
}

/**
 * Checks the path (absolute) a file is about to be written to and answers the real path to write.
 * `root` and `store` are the project's (`store` as the caller gave it, else the default).
 */
export async function writeTarget(
  path: string,
  places: { root: string; store?: string },
  rules: TargetRules,
): Promise<WriteTarget> {
  const refuse = (why: string, hint?: string) =>
    invalid('ERR_OUT_PATH', `Refusing to write \`${path}\`: ${why}`, { path: rules.arg }, hint);
  const abs = resolve(path);
  const name = basename(abs);
  if (!name) throw refuse('it names no file');
  const real = join(realAncestry(dirname(abs)), name);
  const forbidden = await forbiddenPlace(real, places);
  if (forbidden) throw refuse(forbidden, 'Write it anywhere else, e.g. a file in the project root.');
  if (rules.within && !rules.within.some((dir) => isInside(real, realAncestry(resolve(dir)))))
    throw refuse(
      `its real path ${real} is outside ${rules.within.map((d) => `\`${d}\``).join(' and ')}`,
      'Name a path inside the project root; the host may allow another directory with `vkit mcp --allow-write DIR`.',
    );
  const existing = lstatOrUndefined(real);
  if (existing?.isDirectory()) throw refuse('it is a directory', `Name a file inside it, e.g. ${join(path, 'x')}.`);
  if (existing && !rules.overwrite) throw refuse('the file exists', rules.overwriteHint);
  return { path: real, exists: existing !== undefined };
}

/**
 * Writes `text` at a checked target through a fresh temp file beside it, so a symlink at the name is
 * replaced rather than written through; over an existing file only with `replace`.
 */
export function writeTargetFile(target: WriteTarget, text: string, replace: boolean): void {
  const temp = tempBeside(target.path);
  writeFileSync(temp, text, { flag: 'wx', mode: 0o644 });
  publishTemp(temp, target.path, replace);
}

/** Why `real` is never written, or undefined: inside a git directory or the store. */
async function forbiddenPlace(real: string, places: { root: string; store?: string }): Promise<string | undefined> {
  if (real.split(sep).some((part) => part.toLowerCase() === '.git')) return 'it is inside a `.git` directory';
  const info = await gitInfo(places.root);
  if (info && isInside(real, realAncestry(info.commonDir)))
    return `it is inside the repository's git directory (${info.commonDir})`;
  // The store's default place, as `defaultStoreDir` says (not imported: it would load the whole workspace).
  const store = places.store
    ? resolve(places.store)
    : join(info ? info.commonDir : places.root, info ? 'vkit' : '.vkit');
  if (isInside(real, realAncestry(store))) return `it is inside the evidence store (${store})`;
  return undefined;
}

/** The real path of `dir`: its deepest existing ancestor resolved through every symlink, the rest as named. */
export function realAncestry(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    const parent = dirname(dir);
    return parent === dir ? dir : join(realAncestry(parent), basename(dir));
  }
}

/** Whether `path` is `dir` or inside it (both real paths). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
