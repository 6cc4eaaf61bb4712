/**
 * What node's module cache keeps of a config's code. vkit loads a TS config as a fresh bundle each
 * time, but modules the bundle leaves to node (installed packages, linked workspace packages, and
 * anything reached through `require` or a computed `import()`) are loaded once per process and kept.
 * A process that loads the config again (watch, mcp, the resident build process) would run their
 * first code under a manifest and rule digest read from the new files: a new check in a workspace
 * package silently missing, an edited rule running its old code. So each such module is identified
 * at every load, and a reload after any of them changed is refused (restart the process) instead.
 */
import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Metafile } from 'esbuild';
import { invalid } from '../errors.js';
import { sha256Id } from '../hash/index.js';

export interface CachedModules {
  /** Files of linked workspace packages (outside node_modules after their symlinks), absolute. */
  linked: string[];
  /** Resolved entry files of installed packages the config imports by name, absolute. */
  installed: string[];
  /** The config's code can load modules no bundler sees (`require`, a computed `import()`, `eval`). */
  dynamic: boolean;
}

/**
 * Code by which a bundle could load modules esbuild cannot follow: a computed `import()` (a literal
 * one is resolved by esbuild and listed), `process.getBuiltinModule`, `process.mainModule`, `dlopen`,
 * `eval(` and `Function(`. A plain `require` cannot load anything in an ES module (esbuild's shim
 * throws), and `createRequire` needs `node:module`, which the metafile lists. Words inside strings
 * match too: a false alarm only asks a long-lived process to restart.
 */
const DYNAMIC_CODE =
  /\bimport\s*\(\s*(?!['"])|\bgetBuiltinModule\b|\bmainModule\b|\bdlopen\b|\beval\s*\(|\bFunction\s*\(/;

export function loadsDynamically(bundleText: string, meta: Metafile): boolean {
  const moduleApi = Object.values(meta.inputs).some((i) =>
    i.imports.some((imp) => imp.path === 'module' || imp.path === 'node:module'),
  );
  return moduleApi || DYNAMIC_CODE.test(bundleText);
}

/** Lock and install-state files a package manager rewrites when it changes what is installed. */
const LOCKS = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'node_modules/.package-lock.json',
  'node_modules/.modules.yaml',
  'node_modules/.yarn-state.yml',
];

/** Real path -> sha256 (or `missing`) of every module file this process's configs left to node, at first load. */
const firstSeen = new Map<string, string>();
let dynamicSeen = false;
let cached = false;

/** Whether any config loaded in this process left code in node's module cache. */
export function userCodeCached(): boolean {
  return cached;
}

/** Records the modules of this load; throws ERR_CONFIG_RELOAD when one this process loaded before has changed. */
export async function checkCachedModules(root: string, shown: string, mods: CachedModules): Promise<void> {
  if (!mods.dynamic && mods.linked.length === 0 && mods.installed.length === 0) return;
  const refuse = (what: string) =>
    invalid(
      'ERR_CONFIG_RELOAD',
      `The config's code changed since this process first loaded it (${what}); node keeps the first code, so this process cannot load the new one`,
      { file: shown },
      'Restart `vkit watch`, `vkit mcp` or `vkit daemon` (a one-off `vkit build` always loads the current code).',
    );
  if (mods.dynamic && dynamicSeen) throw refuse('the config loads modules at run time that vkit cannot identify');
  const files = [
    ...mods.linked,
    ...mods.installed.flatMap((entry) =>
      [entry, nearestPackageJson(entry)].filter((p): p is string => p !== undefined),
    ),
  ];
  if (mods.installed.length) files.push(...locksAbove(root));
  const now = await Promise.all([...new Set(files.map(real))].map(async (p) => [p, await digestOrMissing(p)] as const));
  for (const [path, digest] of now) {
    const before = firstSeen.get(path);
    if (before !== undefined && before !== digest) throw refuse(`${path} changed`);
  }
  for (const [path, digest] of now) if (!firstSeen.has(path)) firstSeen.set(path, digest);
  dynamicSeen ||= mods.dynamic;
  cached = true;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

async function digestOrMissing(p: string): Promise<string> {
  try {
    return sha256Id(await readFile(p));
  } catch {
    return 'missing';
  }
}

function nearestPackageJson(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'package.json');
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every lock file from the root up to the filesystem root (hoisted installs resolve from above). */
export function locksAbove(root: string): string[] {
  const out: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    for (const name of LOCKS) if (existsSync(join(dir, name))) out.push(join(dir, name));
    if (dirname(dir) === dir) return out;
  }
}
