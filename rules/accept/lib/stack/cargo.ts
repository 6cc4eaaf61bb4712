/**
 * What a Cargo workspace resolves, read from its files alone (no cargo, no network): the
 * workspace root `Cargo.toml` (`[workspace] members`, globs allowed), each member's manifest
 * (package name, path dependencies) and `Cargo.lock` (`[[package]] name, version, source,
 * dependencies`). Pure over file texts: the caller supplies the readers.
 *
 * A dependency entry in Cargo.lock is `"name"`, `"name version"` or `"name version (source)"`;
 * cargo writes the longer forms only when the short one would be ambiguous, so an entry resolves
 * to the one package matching every part it gives. An entry that matches none or several is an
 * error (a lock we cannot read exactly must not be guessed at).
 */
import { parse } from 'smol-toml';
import { isTable, str, tables, type Table } from '../toml.js';

export interface LockPackage {
  name: string;
  version: string;
  /** Absent for path crates (inside the workspace). */
  source?: string;
  /** Raw dependency entries, in Cargo.lock order. */
  dependencies: string[];
  /** Position in Cargo.lock. */
  index: number;
}

export class CargoError extends Error {}

function parseToml(text: string, file: string): Table {
  try {
    return parse(text) as Table;
  } catch (error) {
    throw new CargoError(`${file}: cannot parse TOML: ${String((error as Error).message).split('\n')[0]}`);
  }
}

export function parseCargoLock(text: string, file = 'Cargo.lock'): LockPackage[] {
  const data = parseToml(text, file);
  const raw = data.package;
  if (raw !== undefined && !Array.isArray(raw)) throw new CargoError(`${file}: [[package]] must be an array of tables`);
  return tables(data, 'package').map((p, index) => {
    const name = str(p, 'name');
    const version = str(p, 'version');
    if (!name || !version) throw new CargoError(`${file}: package #${index + 1} lacks a name or version`);
    const deps = p.dependencies;
    if (deps !== undefined && (!Array.isArray(deps) || deps.some((d) => typeof d !== 'string')))
      throw new CargoError(`${file}: package '${name}': dependencies must be a list of strings`);
    const source = str(p, 'source');
    return {
      name,
      version,
      ...(source !== undefined ? { source } : {}),
      dependencies: (deps as string[] | undefined) ?? [],
      index,
    };
  });
}

/** `"name"`, `"name version"`, `"name version (source)"`. */
export function parseDependencyEntry(entry: string): { name: string; version?: string; source?: string } {
  const m = /^(\S+)(?: (\S+)(?: \((.+)\))?)?$/.exec(entry.trim());
  if (!m) throw new CargoError(`Cargo.lock: cannot read dependency entry \`${entry}\``);
  return { name: m[1]!, ...(m[2] ? { version: m[2] } : {}), ...(m[3] ? { source: m[3] } : {}) };
}

export function resolveDependency(packages: readonly LockPackage[], entry: string, of: string): LockPackage {
  const want = parseDependencyEntry(entry);
  const hits = packages.filter(
    (p) =>
      p.name === want.name &&
      (want.version === undefined || p.version === want.version) &&
      (want.source === undefined || p.source === want.source),
  );
  if (hits.length !== 1)
    throw new CargoError(`Cargo.lock: dependency \`${entry}\` of '${of}' matches ${hits.length} packages`);
  return hits[0]!;
}

/** A registry (`registry+`, `sparse+`) or git (`git+`) source: outside what the stack check follows. */
export const isForeign = (p: LockPackage) => p.source !== undefined;

interface StackElementPlan {
  pkg: LockPackage;
  /** Longest dependency path from the app (direct dependencies are 1). */
  depth: number;
  /** Names from the app down to this element, for messages. */
  via: string[];
}

export interface Closure {
  /** Every package the app depends on, in stack order: the app's direct dependencies in Cargo.lock
   * order, each followed depth-first by its own (a package appears once, where first met). */
  elements: StackElementPlan[];
  /** Dependency cycles met, each as the names along it. */
  cycles: string[][];
}

/** The closure of `app` (a path package of the lock), in stack order. */
export function closure(packages: readonly LockPackage[], app: LockPackage): Closure {
  const key = (p: LockPackage) => `${p.name} ${p.version} ${p.source ?? ''}`;
  const deps = new Map<string, LockPackage[]>();
  const depsOf = (p: LockPackage) => {
    let d = deps.get(key(p));
    if (!d) deps.set(key(p), (d = p.dependencies.map((e) => resolveDependency(packages, e, p.name))));
    return d;
  };
  const seen = new Map<string, StackElementPlan>();
  const elements: StackElementPlan[] = [];
  const cycles: string[][] = [];
  const onPath: string[] = [key(app)];
  const names: string[] = [app.name];
  const preds = new Map<string, string[]>();
  const visit = (p: LockPackage, depth: number) => {
    for (const d of depsOf(p)) {
      const k = key(d);
      preds.set(k, [...(preds.get(k) ?? []), key(p)]);
      const at = onPath.indexOf(k);
      if (at >= 0) {
        cycles.push([...names.slice(at), d.name]);
        continue;
      }
      if (seen.has(k)) continue;
      const plan = { pkg: d, depth: depth + 1, via: [...names, d.name] };
      seen.set(k, plan);
      elements.push(plan);
      onPath.push(k);
      names.push(d.name);
      visit(d, depth + 1);
      onPath.pop();
      names.pop();
    }
  };
  visit(app, 0);
  if (!cycles.length) {
    // Depth is the longest path from the app (fail closed for `depth`): memoised over predecessors.
    const longest = new Map<string, number>([[key(app), 0]]);
    const depthOf = (k: string): number => {
      let d = longest.get(k);
      if (d === undefined) longest.set(k, (d = Math.max(...(preds.get(k) ?? []).map(depthOf)) + 1));
      return d;
    };
    for (const e of elements) e.depth = depthOf(key(e.pkg));
  }
  return { elements, cycles };
}

/** What a crate manifest says that the stack needs. */
interface CrateManifest {
  packageName?: string;
  version?: string;
  workspace?: { members: string[]; exclude: string[] };
  /** `path = ...` dependencies (any dependency table), relative to the manifest's directory. */
  pathDependencies: string[];
}

function parseCrateManifest(text: string, file: string): CrateManifest {
  const data = parseToml(text, file);
  const pkg = isTable(data.package) ? (data.package as Table) : undefined;
  const ws = isTable(data.workspace) ? (data.workspace as Table) : undefined;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const pathDependencies: string[] = [];
  const collect = (t: Table | undefined) => {
    for (const k of ['dependencies', 'dev-dependencies', 'build-dependencies']) {
      const deps = t && isTable(t[k]) ? (t[k] as Table) : undefined;
      for (const v of Object.values(deps ?? {}))
        if (isTable(v) && typeof v.path === 'string') pathDependencies.push(v.path as string);
    }
  };
  collect(data);
  for (const t of Object.values(isTable(data.target) ? (data.target as Table) : {})) if (isTable(t)) collect(t);
  const version = pkg && typeof pkg.version === 'string' ? (pkg.version as string) : undefined;
  return {
    ...(pkg && typeof pkg.name === 'string' ? { packageName: pkg.name as string } : {}),
    ...(version ? { version } : {}),
    ...(ws ? { workspace: { members: strings(ws.members), exclude: strings(ws.exclude) } } : {}),
    pathDependencies,
  };
}

/** Cargo member globs: `*` and `?` within one path segment (the forms workspaces use). */
function memberPattern(glob: string): RegExp {
  const norm = glob.replace(/\\/g, '/').replace(/\/+$/, '').replace(/^\.\//, '');
  const body = norm
    .split('')
    .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : /[.+^${}()|[\]\\]/.test(c) ? `\\${c}` : c))
    .join('');
  return new RegExp(`^${body}$`);
}

/** Normalises `a/./b/../c` to `a/c`; undefined when it climbs out of the workspace. */
function normaliseRel(rel: string): string | undefined {
  const out: string[] = [];
  for (const part of rel.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

export interface WorkspaceReaders {
  /** Text of a file relative to the workspace root, or undefined when missing. */
  read(rel: string): string | undefined;
  /** Subdirectories (names) of a directory relative to the workspace root. */
  dirs(rel: string): string[];
}

export interface Workspace {
  /** Path crate name -> directory relative to the workspace root (`''` for the root crate). */
  crates: Map<string, { dir: string; version?: string }>;
  lock: LockPackage[];
}

/**
 * Reads the workspace rooted at the readers' root: members (globs expanded over the directories
 * that exist and hold a Cargo.toml), the path dependencies they name (cargo makes those members
 * too), and the lock. Two crates with one name, or a path outside the workspace, are errors.
 */
export function readWorkspace(r: WorkspaceReaders): Workspace {
  const rootText = r.read('Cargo.toml');
  if (rootText === undefined) throw new CargoError('Cargo.toml: missing at the workspace root');
  const root = parseCrateManifest(rootText, 'Cargo.toml');
  const lockText = r.read('Cargo.lock');
  if (lockText === undefined)
    throw new CargoError('Cargo.lock: missing at the workspace root (run `cargo generate-lockfile` and commit it)');
  const lock = parseCargoLock(lockText);
  const crates = new Map<string, { dir: string; version?: string }>();
  const pending: string[] = [];
  if (root.packageName) pending.push('');
  const excluded = (root.workspace?.exclude ?? []).map(memberPattern);
  for (const glob of root.workspace?.members ?? []) {
    const parts = (normaliseRel(glob) ?? '').split('/').filter(Boolean);
    if (normaliseRel(glob) === undefined) throw new CargoError(`Cargo.toml: member \`${glob}\` leaves the workspace`);
    let dirs = [''];
    for (const part of parts) {
      const re = memberPattern(part);
      dirs = dirs.flatMap((d) =>
        (/[*?]/.test(part)
          ? r
              .dirs(d)
              .filter((n) => re.test(n))
              .sort()
          : [part]
        ).map((n) => (d ? `${d}/${n}` : n)),
      );
    }
    for (const d of dirs)
      if (!excluded.some((re) => re.test(d)) && (r.read(`${d}/Cargo.toml`) !== undefined || !/[*?]/.test(glob)))
        pending.push(d);
  }
  const done = new Set<string>();
  while (pending.length) {
    const dir = pending.shift()!;
    if (done.has(dir)) continue;
    done.add(dir);
    const file = dir ? `${dir}/Cargo.toml` : 'Cargo.toml';
    const text = r.read(file);
    if (text === undefined) throw new CargoError(`${file}: missing (named as a workspace member or path dependency)`);
    const m = parseCrateManifest(text, file);
    if (!m.packageName) continue; // a virtual manifest
    const other = crates.get(m.packageName);
    if (other && other.dir !== dir)
      throw new CargoError(`${file}: crate '${m.packageName}' is also at ${other.dir || '.'}`);
    crates.set(m.packageName, { dir, ...(m.version ? { version: m.version } : {}) });
    for (const p of m.pathDependencies) {
      const target = normaliseRel(dir ? `${dir}/${p}` : p);
      if (target === undefined) throw new CargoError(`${file}: path dependency \`${p}\` leaves the workspace`);
      pending.push(target);
    }
  }
  return { crates, lock };
}
