/**
 * What `vkit init` proposes for an npm project: one check per script it recognises (`typecheck`,
 * `lint`, `build`, `test`), the build's output folder as its declared outputs, and the test after
 * the build when the test needs what the build writes. Pure: the caller reads package.json.
 */
import { jsonErrorLine } from '../config/manifest-file.js';
import { invalid } from '../errors.js';

/** A check the starter writes, with the why of each choice a reader would ask about. */
export interface StarterCheck {
  id: string;
  run: string | string[];
  /** A comment above the check. */
  note?: string;
  after?: { ids: string[]; why: string };
  outputs?: { globs: string[]; why: string };
  /** The project installs npm dependencies its scripts run: `deps: { npm: '.' }`. */
  npmDeps?: boolean;
}

/** The package.json fields the starter reads. */
interface PackageJson {
  scripts: Record<string, string>;
  entries: Array<{ field: string; path: string }>;
  hasDependencies: boolean;
}

/** The script names read as a typecheck, in the order the first present one is taken. */
const TYPECHECK_SCRIPTS = ['typecheck', 'type-check', 'tsc', 'types'];

/** Build output folders to fall back on when no entry point names one (only if git ignores it). */
const USUAL_BUILD_DIRS = ['dist', 'build', 'lib', 'out'];

/** package.json's text as the fields the starter reads; not JSON (or not an object) is exit 2. */
export function readPackageJson(text: string, file: string): PackageJson {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(
      'ERR_INIT_PACKAGE_JSON',
      `package.json is not valid JSON: ${(error as Error).message}`,
      { file, line: jsonErrorLine(text, error as Error) },
      'Fix package.json (npm cannot read it either), then run `vkit init` again.',
    );
  }
  if (!isObject(data))
    throw invalid(
      'ERR_INIT_PACKAGE_JSON',
      'Expected package.json to hold an object',
      { file },
      'Fix package.json, then run `vkit init` again.',
    );
  const scripts: Record<string, string> = {};
  if (isObject(data.scripts))
    for (const [name, body] of Object.entries(data.scripts)) if (typeof body === 'string') scripts[name] = body;
  const entries: PackageJson['entries'] = [];
  for (const field of ['main', 'module', 'types', 'typings', 'bin', 'exports'])
    for (const path of stringsIn(data[field])) entries.push({ field, path });
  const hasDependencies = ['dependencies', 'devDependencies'].some(
    (f) => isObject(data[f]) && Object.keys(data[f]).length > 0,
  );
  return { scripts, entries, hasDependencies };
}

/**
 * The checks for an npm project. `ignoredFolder(name)` says whether git ignores a top-level folder
 * (the build's output folder must be one: a build writing tracked files would rewrite the other
 * checks' inputs).
 */
export function npmChecks(pkg: PackageJson, ignoredFolder: (name: string) => boolean): StarterCheck[] {
  const npmDeps = pkg.hasDependencies ? { npmDeps: true } : {};
  const typecheck = TYPECHECK_SCRIPTS.find((s) => s in pkg.scripts);
  const checks: StarterCheck[] = [];
  for (const script of [typecheck, 'lint', 'build'])
    if (script && script in pkg.scripts) checks.push({ id: script, run: ['npm', 'run', script], ...npmDeps });
  const build = checks.find((c) => c.id === 'build');
  const out = buildOutput(pkg, ignoredFolder);
  if (build && out) build.outputs = { globs: [`${out.dir}/**`], why: out.why };
  // With no script it knows, `npm test` as before: npm's default test script fails, so the gate is never green by itself.
  if ('test' in pkg.scripts || checks.length === 0) {
    const after = build ? testNeedsBuild(pkg.scripts, out) : undefined;
    checks.push({
      id: 'test',
      run: ['npm', 'test'],
      ...npmDeps,
      ...(after ? { after: { ids: ['build'], why: after } } : {}),
    });
  }
  return checks;
}

/**
 * The folder the build writes: the first top folder of an entry point (`main`, `module`, `types`,
 * `bin`, `exports`) that git ignores, else the first of dist/, build/, lib/, out/ that git ignores.
 */
function buildOutput(
  pkg: PackageJson,
  ignoredFolder: (name: string) => boolean,
): { dir: string; why: string; entry?: string } | undefined {
  for (const { field, path } of pkg.entries) {
    const dir = path.replace(/^\.\//, '').split('/');
    if (dir.length > 1 && dir[0] && dir[0] !== '..' && ignoredFolder(dir[0]))
      return { dir: dir[0], why: `the package's ${field}, ${path}, is in ${dir[0]}/`, entry: `${field}, ${path},` };
  }
  const usual = USUAL_BUILD_DIRS.find(ignoredFolder);
  return usual ? { dir: usual, why: `${usual}/, the usual build folder (git ignores it)` } : undefined;
}

/**
 * Why the test runs after the build, or undefined when nothing says it needs the build: the test
 * script (or npm's `pretest`) runs the build itself, or names the build's folder, or the package's
 * entry point (what a test importing the package loads) is in that folder.
 */
function testNeedsBuild(
  scripts: Record<string, string>,
  out: { dir: string; entry?: string } | undefined,
): string | undefined {
  for (const script of ['pretest', 'test']) {
    const body = scripts[script];
    if (body === undefined) continue;
    if (/\b(npm run|pnpm( run)?|yarn( run)?)\s+build\b/.test(body))
      return `\`npm run ${script}\` runs the build itself`;
    if (out && new RegExp(`(^|[\\s'"=(:])(\\./)?${escapeRegExp(out.dir)}/`).test(body))
      return `\`npm run ${script}\` reads ${out.dir}/, which the build writes`;
  }
  if (out?.entry) return `the package's ${out.entry} is the build's output`;
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every string in a package.json field (a path, or an object or array of them, as `exports` nests). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isObject(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}
