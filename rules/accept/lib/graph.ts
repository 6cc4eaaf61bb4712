/**
 * The acceptance graph: the nodes one `acceptance` manifest item expands into when the workspace
 * opens (acceptance-details.md section 4; issue 5, items 3 and 4).
 *
 * - Per library: when the record's specification has a chain requirement whose trusted acceptors
 *   the item maps to stores, and its subject sits in a Cargo workspace, every path library of the
 *   app's closure with its three documents in a trusted store becomes an `accept` node
 *   `accept:<id>/<crate>`: the library's own record checked with --root = the workspace root (as
 *   the stack check does), over exactly the bytes that check reads. Its key therefore changes
 *   only when that library, what it is built on, or the workspace manifests change: editing one
 *   library re-checks it and its dependents, never its own dependencies.
 * - Per claim (`run_commands`): every claim with a `self_verify` command becomes a `self-verify`
 *   node `accept:<id>/run:<claim id>` keyed by the whole subject root plus the package.
 *
 * The record's own node depends on every library node of the app's closure and on every run node
 * (and each library node on those of its own closure), so a library or claim that is not PASS
 * leaves its dependents BLOCKED naming it. The record's own node
 * still checks the whole stack itself: these nodes only add finer evidence, they never replace it.
 * Whatever cannot be expanded exactly (a registry crate, a cycle, an unreadable file, a path a glob
 * cannot name) yields no node, and the record's own check decides (fail closed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { parse } from 'smol-toml';
import type { AcceptanceExpansion, AcceptanceNode, ResolvedAcceptance } from '../schema.js';
import { subjectRootOf, targetOf } from './inputs.js';
import {
  closure,
  isForeign,
  readWorkspace,
  resolveDependency,
  type LockPackage,
  type Workspace,
} from './stack/cargo.js';
import { findWorkspace, fsReaders } from './stack/workspace.js';
import { safeCrateName, STORE_FILES } from './stack/stores.js';
import { isTable, str, table, tables, type Table } from './toml.js';

/** Characters the glob compiler treats specially: a path holding one cannot be captured literally. */
const GLOB_META = /[*?[\]{}!\\]/;
const STREAMS = ['stdout', 'stderr', 'combined'];

/** The working tree listing, indexed for "is this a file" and "does this directory hold files". */
interface Tree {
  files: ReadonlySet<string>;
  dirs: ReadonlySet<string>;
}

function indexTree(files: readonly string[]): Tree {
  const dirs = new Set<string>();
  for (const f of files) for (let i = f.indexOf('/'); i >= 0; i = f.indexOf('/', i + 1)) dirs.add(f.slice(0, i));
  return { files: new Set(files), dirs };
}

const joinRel = (base: string, rel: string) =>
  posix.normalize(base === '.' || base === '' ? rel || '.' : rel ? `${base}/${rel}` : base);
const under = (dir: string) => (dir === '.' || dir === '' ? '**' : `${dir}/**`);
const outside = (rel: string) => rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel);

function readToml(abs: string): Table | undefined {
  try {
    const data = parse(readFileSync(abs, 'utf8'));
    return isTable(data) ? data : undefined;
  } catch {
    return undefined; // the record's own check reports what cannot be read
  }
}

export function expandAcceptance(
  projectRoot: string,
  item: ResolvedAcceptance,
  files: readonly string[],
): AcceptanceExpansion {
  const tree = indexTree(files);
  const libraries = libraryNodes(projectRoot, item, tree);
  const runs = item.run_commands ? runNodes(projectRoot, item, tree) : [];
  return { nodes: [...libraries.nodes, ...runs], after: [...libraries.appAfter, ...runs.map((n) => n.label)] };
}

/** The first chain requirement of the specification: whom it trusts, whether it allows conditions. */
function chainOf(spec: Table | undefined): { acceptors: string[]; allowConditions: boolean } | undefined {
  for (const r of tables(spec, 'requirement')) {
    const chain = table(r, 'chain');
    if (str(r, 'kind') !== 'chain' || !chain) continue;
    const acceptors = Array.isArray(chain.acceptors)
      ? chain.acceptors.filter((a): a is string => typeof a === 'string')
      : [];
    return { acceptors, allowConditions: chain.allow_conditions === true };
  }
  return undefined;
}

/** Inventory elements the package declares outside the checked boundary: no acceptance is asked of them. */
function boundaryNames(pkg: Table | undefined): Set<string> {
  const names = new Set<string>();
  for (const inv of tables(pkg, 'inventory'))
    for (const el of tables(inv, 'element'))
      if (el.boundary !== undefined && str(el, 'name')) names.add(str(el, 'name')!);
  return names;
}

interface Library {
  pkg: LockPackage;
  /** The trusted store directory (project-relative) holding the library's documents. */
  store: string;
}

function libraryNodes(
  projectRoot: string,
  item: ResolvedAcceptance,
  tree: Tree,
): { nodes: AcceptanceNode[]; appAfter: string[] } {
  const none = { nodes: [], appAfter: [] };
  const stores = Object.fromEntries(Object.entries(item.acceptors).map(([name, dir]) => [name, posix.normalize(dir)]));
  const chain = chainOf(readToml(join(projectRoot, item.spec)));
  const trusted = (chain?.acceptors ?? []).filter((a) => Object.hasOwn(stores, a)).map((a) => stores[a]!);
  if (!chain || !trusted.length) return none;
  const pkg = readToml(join(projectRoot, item.package));
  const appName = str(table(pkg, 'subject'), 'name');
  if (!appName) return none;
  const wsAbs = findWorkspace(join(projectRoot, item.root), join(projectRoot, subjectRootOf(projectRoot, item)));
  if (!wsAbs) return none;
  const ws = relative(projectRoot, wsAbs).split(sep).join('/') || '.';
  let workspace: Workspace;
  let deps: (p: LockPackage) => LockPackage[];
  let app: LockPackage | undefined;
  let elements: LockPackage[];
  try {
    workspace = readWorkspace(fsReaders(wsAbs));
    const lock = workspace.lock;
    deps = (p) => p.dependencies.map((e) => resolveDependency(lock, e, p.name));
    app = lock.find((p) => p.name === appName && !isForeign(p));
    if (!app) return none;
    const c = closure(lock, app);
    // Registry or git crates, or a cycle: the stack is undecidable and the record's node says so.
    if (c.cycles.length || c.elements.some((e) => isForeign(e.pkg))) return none;
    elements = c.elements.map((e) => e.pkg);
  } catch {
    return none;
  }
  const crateDir = (name: string) => {
    const c = workspace.crates.get(name);
    return c ? joinRel(ws, c.dir) : undefined;
  };
  // On disk, not only listed: git lists a deleted file that is still in the index.
  const hasDocs = (dir: string) =>
    Object.values(STORE_FILES).every((f) => tree.files.has(`${dir}/${f}`) && existsSync(join(projectRoot, dir, f)));
  const boundary = boundaryNames(pkg);

  const libs = new Map<string, Library>();
  for (const p of elements) {
    if (boundary.has(p.name) || !safeCrateName(p.name) || !crateDir(p.name)) continue;
    // The stack check uses the first trusted store holding a directory for the crate.
    const store = trusted.find((s) => tree.dirs.has(`${s}/${p.name}`));
    if (store && hasDocs(`${store}/${p.name}`)) libs.set(p.name, { pkg: p, store });
  }

  /**
   * Every library node below `p`, dependencies before their dependents. The engine names the first
   * dependency that is not PASS, so in this order a dependent is blocked naming the library at the
   * root of the failure, not the one between. (The closure is acyclic: checked above.)
   */
  const below = (p: LockPackage): string[] => {
    const order: string[] = [];
    const seen = new Set<string>();
    const walk = (q: LockPackage) => {
      for (const d of deps(q)) {
        if (seen.has(d.name)) continue;
        seen.add(d.name);
        walk(d);
        if (libs.has(d.name)) order.push(d.name);
      }
    };
    walk(p);
    return order;
  };
  const label = (name: string) => `accept:${item.id}/${name}`;

  const nodes: AcceptanceNode[] = [];
  for (const [name, lib] of libs) {
    const inputs = libraryInputs(
      projectRoot,
      ws,
      name,
      lib,
      [lib.pkg, ...closure(workspace.lock, lib.pkg).elements.map((e) => e.pkg)],
      crateDir,
      Object.values(stores),
      tree,
      item.tree,
    );
    if (!inputs) continue;
    const id = `${item.id}/${name}`;
    const docs = `${lib.store}/${name}`;
    const attrs = {
      id,
      root: ws,
      spec: `${docs}/${STORE_FILES.spec}`,
      package: `${docs}/${STORE_FILES.package}`,
      decision: `${docs}/${STORE_FILES.decision}`,
      acceptors: item.acceptors,
      ...(inputs.tree ? { tree: item.tree } : {}),
      // A library accepted with conditions passes only when both the chain and the item allow it.
      allow_conditions: item.allow_conditions && chain.allowConditions,
      run_commands: false,
      inputs: inputs.globs,
    };
    nodes.push({
      label: label(name),
      kind: 'accept',
      id,
      attrs,
      inputs: inputs.globs,
      after: below(lib.pkg).map(label),
    });
  }
  // A library without a node (no documents, or not capturable) adds no edge; the record's own check still checks it.
  const built = new Set(nodes.map((n) => n.label));
  for (const n of nodes) n.after = n.after.filter((l) => built.has(l));
  return {
    nodes,
    appAfter: below(app)
      .map(label)
      .filter((l) => built.has(l)),
  };
}

/**
 * What a library's own check reads: its documents and the files they cite, its crate and the
 * crates it is built on with their documents in any store (the check is recursive), and the
 * workspace manifests. Undefined when one of them cannot be named by a glob (no node then).
 */
function libraryInputs(
  projectRoot: string,
  ws: string,
  name: string,
  lib: Library,
  crates: LockPackage[],
  crateDir: (name: string) => string | undefined,
  stores: string[],
  tree: Tree,
  itemTree: string | undefined,
): { globs: string[]; tree: boolean } | undefined {
  const dirs = new Set<string>([`${lib.store}/${name}`]);
  /** Crate directories and subject roots: the digest leaves out their top-level `target/` only. */
  const crateRoots = new Set<string>();
  const literals = new Set<string>([joinRel(ws, 'Cargo.lock')]);
  let commitSubject = false;
  for (const p of crates) {
    const dir = crateDir(p.name);
    if (dir === undefined) return undefined;
    dirs.add(dir);
    crateRoots.add(dir);
    for (const s of stores) {
      const docs = `${s}/${p.name}`;
      if (!tree.dirs.has(docs)) continue;
      dirs.add(docs);
      const pkgRel = `${docs}/${STORE_FILES.package}`;
      const pkg = readToml(join(projectRoot, pkgRel));
      const subject = table(pkg, 'subject');
      if (typeof subject?.commit === 'string') commitSubject = true;
      const root = str(subject, 'root');
      const subjectRoot = root !== undefined ? joinRel(ws, root) : docs;
      if (outside(subjectRoot)) return undefined;
      dirs.add(subjectRoot);
      crateRoots.add(subjectRoot);
      for (const ref of citedFiles(pkg, posix.dirname(pkgRel), subjectRoot)) literals.add(ref);
    }
  }
  // A commit subject is read through the `tree` directory, so that directory is read too.
  if (commitSubject && itemTree) dirs.add(posix.normalize(itemTree.slice(itemTree.indexOf('=') + 1)));
  const globs: string[] = [];
  for (const d of dirs) {
    if (GLOB_META.test(d)) return undefined;
    if (d === '.' || tree.dirs.has(d)) globs.push(under(d));
  }
  for (const l of literals) {
    if (GLOB_META.test(l)) return undefined;
    if (tree.files.has(l)) globs.push(l);
  }
  // Every member manifest: the workspace (and so what a path dependency resolves to) is read from them.
  const manifests = ws === '.' ? '**/Cargo.toml' : `${ws}/**/Cargo.toml`;
  if (GLOB_META.test(ws)) return undefined;
  if (tree.files.has(joinRel(ws, 'Cargo.toml'))) globs.push(manifests);
  // Build output never belongs to a crate's identity: the crate digest leaves out the top-level
  // `target/` of each crate only, so a nested `src/target/` it digests is captured too.
  return {
    globs: [...globs, ...[...crateRoots].map((d) => `!${targetOf(d)}`)],
    tree: commitSubject && itemTree !== undefined,
  };
}

/** Files a package names beyond its subject: `[spec] path`, evidence records and cited packages, evidence inputs. */
function citedFiles(pkg: Table | undefined, pkgDir: string, subjectRoot: string): string[] {
  const out: string[] = [];
  const add = (base: string, p: unknown) => {
    if (typeof p !== 'string' || p === '' || posix.isAbsolute(p)) return;
    const rel = joinRel(base, p);
    if (!outside(rel)) out.push(rel);
  };
  add(pkgDir, table(pkg, 'spec')?.path);
  for (const claim of tables(pkg, 'claim'))
    for (const ev of tables(claim, 'evidence')) {
      add(pkgDir, ev.record);
      add(pkgDir, ev.manifest);
      for (const key of ['inputs', 'build_inputs'])
        for (const i of Array.isArray(ev[key]) ? ev[key].filter(isTable) : []) add(subjectRoot, i.path);
    }
  return out;
}

/** One `self-verify` node per claim with a well-formed recipe; a malformed one is the record's own check's to report. */
function runNodes(projectRoot: string, item: ResolvedAcceptance, tree: Tree): AcceptanceNode[] {
  const pkg = readToml(join(projectRoot, item.package));
  const cwd = subjectRootOf(projectRoot, item);
  if (!pkg || outside(cwd) || GLOB_META.test(cwd) || GLOB_META.test(item.package)) return [];
  if (cwd !== '.' && !tree.dirs.has(cwd)) return [];
  const inputs = [...new Set([under(cwd), item.package])];
  const seen = new Set<string>();
  const nodes: AcceptanceNode[] = [];
  for (const claim of tables(pkg, 'claim')) {
    const claimId = str(claim, 'id');
    const sv = table(claim, 'self_verify');
    if (!claimId || seen.has(claimId) || !sv) continue;
    seen.add(claimId);
    const stream = sv.expect_stream ?? 'stdout';
    if (
      typeof sv.command !== 'string' ||
      typeof sv.expect !== 'string' ||
      typeof stream !== 'string' ||
      !STREAMS.includes(stream)
    )
      continue;
    const id = `${item.id}/run:${claimId}`;
    const attrs = {
      id,
      root: item.root,
      package: item.package,
      claim: claimId,
      cwd,
      command: sv.command,
      expect: sv.expect,
      expect_stream: stream,
    };
    nodes.push({ label: `accept:${id}`, kind: 'self-verify', id, attrs, inputs, after: [] });
  }
  return nodes;
}
