/**
 * The stack's elements and the inventory that lists them: which inventory is checkable, the
 * elements read from the Cargo.lock closure (completeness verified, compared with the listing) or
 * taken as listed (declared), and what the listing records for each element.
 */
import type { Findings } from '../report.js';
import { str, tables, type FieldPath, type Table } from '../toml.js';
import { CargoError, closure, isForeign, type Workspace } from './cargo.js';
import type { Element } from './element.js';
import type { ChainRule } from './rule.js';

/** The one checkable inventory of a chain requirement: a runtime inventory read from Cargo.lock. */
export interface CargoInventory {
  inv: Table;
  index: number;
  /** The inventory's id, or `#<n>` when it has none. */
  id: string;
  /** A field path inside this inventory. */
  at: (...k: (string | number)[]) => FieldPath;
  listed: Table[];
  /** Completeness verified (by the rule or by the inventory): the listing is compared with Cargo.lock. */
  verify: boolean;
}

/** Which inventory carries each required relation; only Cargo.lock runtime inventories are checkable. */
export function findCargoInventory(rule: ChainRule, inventories: Table[], f: Findings): CargoInventory | undefined {
  let cargoInventory: { inv: Table; index: number } | undefined;
  for (const relation of rule.relations) {
    const found = inventories
      .map((inv, index) => ({ inv, index }))
      .filter(({ inv }) => str(inv, 'relation') === relation);
    if (!found.length) {
      f.error(
        `chain requirement '${rule.id}' covers relation '${relation}', but the package has no [[inventory]] for it`,
        ['inventory'],
      );
      continue;
    }
    for (const { inv, index } of found) {
      if (relation === 'runtime' && str(inv, 'source') === 'Cargo.lock') cargoInventory ??= { inv, index };
      else
        f.indeterminate(
          `inventory '${str(inv, 'id') ?? index}' (relation ${relation}, source ${JSON.stringify(inv.source)}): this vkit checks only runtime inventories read from Cargo.lock`,
          ['inventory', index, 'source'],
        );
    }
  }
  if (!cargoInventory) return undefined;
  const { inv, index: invIndex } = cargoInventory;
  return {
    inv,
    index: invIndex,
    id: str(inv, 'id') ?? `#${invIndex + 1}`,
    at: (...k: (string | number)[]): FieldPath => ['inventory', invIndex, ...k],
    listed: tables(inv, 'element'),
    verify: rule.completeness === 'verified' || str(inv, 'completeness') === 'verified',
  };
}

/**
 * Completeness verified: the elements are the app's Cargo.lock closure, each a path crate of the
 * workspace, and the listing must match it. Undefined (reported) when the closure cannot be read;
 * `foreign` when a registry or git crate in it leaves the whole stack undecided.
 */
export function closureElements(
  f: Findings,
  inventory: CargoInventory,
  ws: Workspace,
  appName: string,
): { elements: Element[]; foreign: boolean } | undefined {
  const { id: invId, at: invAt, listed } = inventory;
  const app = ws.lock.find((p) => p.name === appName && !isForeign(p));
  if (!app) {
    f.error(`inventory '${invId}': Cargo.lock has no workspace package '${appName}' (the package [subject] name)`, [
      'subject',
      'name',
    ]);
    return undefined;
  }
  let c;
  try {
    c = closure(ws.lock, app);
  } catch (error) {
    if (!(error instanceof CargoError)) throw error;
    f.error(`inventory '${invId}': ${error.message}`, invAt('source'));
    return undefined;
  }
  for (const cycle of c.cycles) f.indeterminate(`dependency cycle ${cycle.join(' -> ')}`, invAt());
  const elements: Element[] = c.elements.map((e) => ({
    name: e.pkg.name,
    version: e.pkg.version,
    ...(e.pkg.source ? { source: e.pkg.source } : {}),
    depth: e.depth,
    lock: e.pkg,
  }));
  // A registry or git crate anywhere in the closure leaves the whole stack undecided: nothing
  // else is compared (an inventory mismatch would only hide the reason).
  const foreign = elements.filter((e) => e.lock && isForeign(e.lock));
  for (const e of foreign)
    f.indeterminate(
      `package '${e.name}' ${e.version} comes from ${e.source}: the stack check follows path crates of one workspace only`,
      invAt(),
    );
  if (foreign.length) return { elements, foreign: true };
  for (const e of elements) {
    const crate = ws.crates.get(e.name);
    if (!crate)
      f.error(
        `library '${e.name}': path crate not found among the workspace members or their path dependencies`,
        invAt(),
      );
    else {
      e.dir = crate.dir;
      e.source = `path+${crate.dir || '.'}`;
    }
  }
  compareInventory(f, invId, listed, elements, invAt);
  return { elements, foreign: false };
}

/** Declared: trusted as listed, in listed order; only path elements can be checked. */
export function declaredElements(f: Findings, inventory: CargoInventory): Element[] {
  const { at: invAt, listed } = inventory;
  return listed.map((el, i) => {
    const source = str(el, 'source');
    const dir = source?.startsWith('path+') ? source.slice('path+'.length) : undefined;
    if (!source?.startsWith('path+'))
      f.indeterminate(
        `library '${str(el, 'name') ?? i}': source ${JSON.stringify(source)} is not a path crate of this workspace`,
        invAt('element', i, 'source'),
      );
    return {
      name: str(el, 'name') ?? `#${i + 1}`,
      ...(str(el, 'version') ? { version: str(el, 'version') } : {}),
      ...(source ? { source } : {}),
      ...(dir !== undefined ? { dir: dir === '.' ? '' : dir } : {}),
      depth: 1,
    };
  });
}

/** What the listing records for each element: its place, digest, binding and boundary. */
export function attachListing(elements: Element[], listed: Table[]): void {
  for (const e of elements) {
    const i = listed.findIndex((el) => str(el, 'name') === e.name);
    if (i >= 0) {
      e.listed = i;
      const d = str(listed[i], 'digest');
      const b = str(listed[i], 'binding');
      if (d) e.digest = d;
      if (b) e.binding = b;
      if (listed[i]!.boundary !== undefined) e.boundary = listed[i]!.boundary;
    }
  }
}

/** Completeness verified: the inventory lists exactly the closure, with Cargo.lock's versions and the crates' paths. */
function compareInventory(
  f: Findings,
  invId: string,
  listed: Table[],
  closure: Element[],
  invAt: (...k: (string | number)[]) => FieldPath,
): void {
  const byName = new Map(closure.map((e) => [e.name, e]));
  const seen = new Set<string>();
  listed.forEach((el, i) => {
    const name = str(el, 'name');
    if (!name) return f.error(`inventory '${invId}': element #${i + 1} has no name`, invAt('element', i));
    if (seen.has(name))
      return f.error(`inventory '${invId}': element '${name}' is listed twice`, invAt('element', i, 'name'));
    seen.add(name);
    const e = byName.get(name);
    if (!e)
      return f.error(
        `inventory '${invId}': '${name}' is not in what Cargo.lock resolves for the app`,
        invAt('element', i, 'name'),
      );
    if (str(el, 'version') !== e.version)
      f.error(
        `inventory '${invId}': '${name}' is listed at version ${JSON.stringify(el.version)}, Cargo.lock has ${e.version}`,
        invAt('element', i, 'version'),
      );
    if (e.source !== undefined && str(el, 'source') !== e.source)
      f.error(
        `inventory '${invId}': '${name}' is listed with source ${JSON.stringify(el.source)}, the workspace has ${e.source}`,
        invAt('element', i, 'source'),
      );
  });
  for (const e of closure)
    if (!seen.has(e.name))
      f.error(
        `inventory '${invId}': Cargo.lock resolves '${e.name}' ${e.version ?? ''} for the app, but the inventory does not list it`.replace(
          ' ,',
          ',',
        ),
        invAt(),
      );
}
