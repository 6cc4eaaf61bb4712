/**
 * The package registry: mathematical packages installed with vkit, each a directory
 * `src/formal/packages/<name>/` holding its sources and a manifest `vkit-package.json`:
 *
 * ```json
 * { "schema": "vkit.package/1", "id": "vkit.resource-ledger", "version": "0.1.0",
 *   "contracts": ["ledger.source.v1"], "bindings": ["new", "reserve", ...],
 *   "acceptedAxioms": { "coq-linux-x86_64-v1": ["..."] },
 *   "files": ["coq/Ledger.v", ...] }
 * ```
 *
 * Package sources are not TypeScript, so `tsc` does not copy them into `dist/`: they are read at run
 * time from the vkit installation's own `src/formal/packages/` (found by walking up from this module
 * to the directory holding vkit's `package.json`). The identity is a tree digest over every file in
 * the directory (sorted relative path, git-style mode, sha256 of the raw bytes), the manifest
 * included, so nothing host-specific enters it; `files` must list exactly the files present besides
 * the manifest, so a stray or missing file is an error rather than a silent change of meaning.
 *
 * Further packages (test fixtures, packages under development) are found through the host variable
 * `VKIT_PACKAGE_PATH`: colon-separated absolute directories, each holding `<name>/vkit-package.json`
 * package directories, searched after the installed ones (an installed id and version is never
 * shadowed). Where a package was found never enters its identity: a config pinning `sha256` still
 * binds the bytes. Every caller locates packages through `loadPackage` (and `packageRoots`).
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { modeOf } from '../capture/files.js';
import { treeDigest, type TreeEntry } from '../capture/tree.js';
import { VkitError, EXIT, invalid } from '../errors.js';
import { sha256Id } from '../hash/index.js';
import type { MathPackage } from './types.js';

const PACKAGE_MANIFEST = 'vkit-package.json';
/** The host variable naming extra package directories, searched after the installed ones. */
const PACKAGE_PATH_VAR = 'VKIT_PACKAGE_PATH';

const name = v.pipe(v.string(), v.minLength(1));
const relPath = v.pipe(
  v.string(),
  v.check(
    (s) => s.length > 0 && !s.startsWith('/') && !s.split('/').some((p) => p === '..' || p === '.' || p === ''),
    'Expected a relative path inside the package',
  ),
);

const PackageManifestSchema = v.strictObject({
  schema: v.literal('vkit.package/1', 'Expected schema `vkit.package/1`'),
  id: name,
  version: name,
  contracts: v.pipe(v.array(name), v.minLength(1)),
  bindings: v.pipe(v.array(name), v.minLength(1)),
  /** Extra bindings of a component that declares a `representation` (its own state type and conversions). */
  representationBindings: v.optional(v.array(name)),
  /** Profile id -> axioms that profile may report without blocking (accepted policy assumptions). */
  acceptedAxioms: v.record(v.string(), v.array(name)),
  files: v.array(relPath),
});

/** The directory holding vkit's installed packages. */
export function packagesRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'src', 'formal', 'packages');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(dirname(fileURLToPath(import.meta.url)), 'packages');
    dir = up;
  }
}

/**
 * The directories searched for packages, in order: vkit's installed packages, then each entry of
 * `VKIT_PACKAGE_PATH` (colon-separated; empty entries are skipped). A relative entry is refused
 * (ERR_PACKAGE): it would name different directories from different working directories.
 */
export function packageRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = (env[PACKAGE_PATH_VAR] ?? '').split(':').filter((d) => d !== '');
  const relative = extra.find((d) => !isAbsolute(d));
  if (relative !== undefined)
    throw packageError(`${PACKAGE_PATH_VAR} entry \`${relative}\` is not an absolute directory`);
  return [packagesRoot(), ...extra];
}

/** Every regular file under `dir`, relative; links and special files are refused (they have no stable identity here). */
function walk(dir: string, rel = ''): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    const abs = join(dir, path);
    const st = lstatSync(abs, { bigint: true });
    if (st.isDirectory()) out.push(...walk(dir, path));
    else if (st.isFile()) out.push({ path, mode: modeOf(st), sha256: sha256Id(readFileSync(abs)) });
    else
      throw packageError(
        `package file \`${path}\` in ${dir} is a link or special file; packages hold regular files only`,
      );
  }
  return out;
}

function packageError(message: string): VkitError {
  // An installed package that is broken is not the user's input: the formal item cannot be checked.
  return new VkitError('ERR_PACKAGE', EXIT.blocked, message, {
    hint: 'Reinstall vkit, or restore the package directory.',
  });
}

/** Reads and checks one package directory. Throws ERR_PACKAGE (exit 3) for a broken package. */
export function readPackageDir(dir: string): MathPackage {
  const manifestPath = join(dir, PACKAGE_MANIFEST);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw packageError(`cannot read ${manifestPath}: ${(error as Error).message}`);
  }
  const parsed = v.safeParse(PackageManifestSchema, data);
  if (!parsed.success) {
    const i = parsed.issues[0]!;
    throw packageError(
      `${manifestPath}: ${(i.path ?? []).map((p) => String((p as { key: unknown }).key)).join('.') || '(root)'}: ${i.message}`,
    );
  }
  const m = parsed.output;
  const entries = walk(dir);
  const present = entries.map((e) => e.path).filter((p) => p !== PACKAGE_MANIFEST);
  const listed = new Set(m.files);
  const unlisted = present.filter((p) => !listed.has(p));
  const missing = m.files.filter((p) => !present.includes(p));
  if (unlisted.length)
    throw packageError(
      `package ${m.id} ${m.version}: file \`${unlisted[0]}\` is not listed in ${PACKAGE_MANIFEST} \`files\``,
    );
  if (missing.length) throw packageError(`package ${m.id} ${m.version}: listed file \`${missing[0]}\` is missing`);
  return {
    id: m.id,
    version: m.version,
    sha256: treeDigest(entries),
    dir,
    files: [...m.files].sort(),
    contracts: m.contracts,
    bindings: m.bindings,
    ...(m.representationBindings ? { representationBindings: m.representationBindings } : {}),
    acceptedAxioms: m.acceptedAxioms,
  };
}

/**
 * Every package under `roots` (directories with a manifest), sorted by id then version; of one id and
 * version only the first found counts (the installed one before any on `VKIT_PACKAGE_PATH`).
 */
function installedPackages(roots: string | readonly string[] = packageRoots()): MathPackage[] {
  const seen = new Set<string>();
  const out: MathPackage[] = [];
  for (const root of typeof roots === 'string' ? [roots] : roots) {
    if (!existsSync(root)) continue;
    for (const e of readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!e.isDirectory() || !existsSync(join(root, e.name, PACKAGE_MANIFEST))) continue;
      const pkg = readPackageDir(join(root, e.name));
      const key = `${pkg.id}\0${pkg.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(pkg);
    }
  }
  return out.sort((a, b) => (a.id === b.id ? (a.version < b.version ? -1 : 1) : a.id < b.id ? -1 : 1));
}

/**
 * The package `id` at `version` (installed, or on `VKIT_PACKAGE_PATH`), or an error naming what is
 * there. The one way vkit locates a package: its `dir` is what profiles mount and read.
 */
export function loadPackage(
  id: string,
  version: string,
  roots: string | readonly string[] = packageRoots(),
): MathPackage {
  const all = installedPackages(roots);
  const found = all.find((p) => p.id === id && p.version === version);
  if (found) return found;
  const have = all.map((p) => `${p.id} ${p.version}`).join(', ') || 'none';
  const extra = (typeof roots === 'string' ? [roots] : roots).filter((r) => r !== packagesRoot());
  throw packageError(
    `package ${id} ${version} is not installed in this vkit (installed: ${have}${extra.length ? `; also searched ${PACKAGE_PATH_VAR}: ${extra.join(':')}` : ''})`,
  );
}

/** `vkit formal package digest [ID]`: the identity of one installed package id (every version), or of all. */
export function packageDigests(
  id?: string,
  root: string | readonly string[] = packageRoots(),
): Array<{ id: string; version: string; sha256: string; files: number }> {
  const all = installedPackages(root).filter((p) => id === undefined || p.id === id);
  if (id !== undefined && all.length === 0)
    throw invalid(
      'ERR_USAGE',
      `No installed package \`${id}\``,
      { path: 'ID' },
      `Installed: ${
        installedPackages(root)
          .map((p) => p.id)
          .join(', ') || 'none'
      }`,
    );
  return all.map((p) => ({ id: p.id, version: p.version, sha256: p.sha256, files: p.files.length + 1 }));
}
