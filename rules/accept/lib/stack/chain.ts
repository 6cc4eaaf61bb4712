/**
 * The stack check of a `kind = "chain"` requirement (acceptance-details.md section 4).
 *
 * The app's package lists what it is built with (`[[inventory]]` with `[[inventory.element]]`);
 * for the runtime relation that list is checked against the Cargo workspace the app crate lives
 * in (the nearest directory at or above the subject root holding a Cargo.lock, never above
 * --root). Each element is then checked in stack order:
 *
 * - identity (C1 and C2): the element's `digest` must equal the crate digest of the bytes the
 *   build consumes (its directory in the workspace); `binds = "consumed"` is the only binding.
 * - acceptance (C2): the element's documents are looked up in the trusted acceptor stores and the
 *   library's decision is checked like any decision (recursively: a library's own chain
 *   requirement re-checks what it was built on), with --root = the workspace root so a library's
 *   `[subject] root` is its crate directory, the same path as its `path+` source. The library's
 *   package subject digest must equal the element's digest; the decision must be valid and
 *   current, its verdict `accepted` (or `accepted-with-conditions` under `allow_conditions`),
 *   and, under --effect, effect-eligible at --now.
 *
 * - boundary: an element listed with `boundary = "<reason>"` is declared outside the checked
 *   boundary. It must still be listed (completeness) and a digest it records must still match,
 *   but no acceptance is asked of it and it is never counted as accepted: the relation table's
 *   Boundary column lists it and a NOTE says so.
 *
 * Everything that fails names the library. What cannot be decided from the files at hand is
 * indeterminate, never accepted: a registry or git crate in the closure, a cycle, a stack deeper
 * than `depth` or larger than `max_elements`, no --store for any trusted acceptor.
 *
 * This module runs those steps in order; the rule, the inventory and closure, and the check of one
 * element are modules of their own (rule.ts, inventory.ts, element.ts).
 */
import { relative, resolve } from 'node:path';
import type { DecisionContext, StackReport } from '../model.js';
import { Findings } from '../report.js';
import { subjectRoot } from '../subject.js';
import { str, table, tables, type Doc, type FieldPath, type Table } from '../toml.js';
import { CargoError, readWorkspace, type Workspace } from './cargo.js';
import { digestCacheFor, primeDigestCache } from './crate-digest.js';
import { checkElement, type Element, elementAt, type LibraryCheck, view } from './element.js';
import {
  attachListing,
  type CargoInventory,
  closureElements,
  declaredElements,
  findCargoInventory,
} from './inventory.js';
import { type ChainRule, readRule } from './rule.js';
import { findWorkspace, fsReaders } from './workspace.js';

/** Libraries checked at once. */
const CONCURRENCY = 16;

const RELATIONS = ['build-tool', 'language', 'platform', 'runtime', 'verification-tool'] as const;

export async function checkChain(
  requirement: Table,
  pkg: Doc,
  ctx: DecisionContext,
  findings: Findings,
  checkLibrary: LibraryCheck,
): Promise<StackReport> {
  const f = new Findings(pkg.file, pkg);
  const report = await runChain(requirement, pkg, ctx, f, checkLibrary);
  findings.merge(f);
  return report;
}

/** The stack check's steps, in order; each one that finds the stack unfit to go on returns the report so far. */
async function runChain(
  requirement: Table,
  pkg: Doc,
  ctx: DecisionContext,
  f: Findings,
  checkLibrary: LibraryCheck,
): Promise<StackReport> {
  const ruleErrors: string[] = [];
  const rule = readRule(requirement, ruleErrors);
  const inventories = tables(pkg.data, 'inventory');
  const relations = relationsTable(rule, inventories);
  const report: StackReport = { relations, elements: [], status: 'pass' };
  const done = () => {
    report.status = f.errors ? 'fail' : f.indeterminateReasons.length ? 'indeterminate' : 'pass';
    return report;
  };
  for (const e of ruleErrors) f.error(e);
  if (ruleErrors.length) return done();

  const visiting = ctx.visiting ?? [];
  if (rule.depth !== 'all' && visiting.length > rule.depth) {
    f.indeterminate(
      `chain requirement '${rule.id}': recursion through ${visiting.join(' -> ')} is deeper than depth ${rule.depth}`,
    );
    return done();
  }
  const inventory = findCargoInventory(rule, inventories, f);
  if (!inventory) return done();
  const workspace = openWorkspace(pkg, ctx, f, inventory);
  if (!workspace) return done();
  const { appName, wsDir, ws } = workspace;
  const invAt = inventory.at;

  let elements: Element[];
  if (inventory.verify) {
    const closure = closureElements(f, inventory, ws, appName);
    if (!closure) return done();
    elements = closure.elements;
    if (closure.foreign) {
      report.elements = elements.map((e) => view(e, 'indeterminate'));
      return done();
    }
  } else elements = declaredElements(f, inventory);
  attachListing(elements, inventory.listed);

  checkShape(f, rule, elements, visiting, invAt);
  // Nothing past an undecidable shape is checked element by element: the answer is already "not accepted".
  if (f.indeterminateReasons.length) {
    report.elements = elements.map((e) => view(e, 'indeterminate'));
    return done();
  }

  const gaps = relations.find((r) => r.relation === 'runtime')!.gaps;
  // A top-level stack check gets its own copy of the stores map: the key of its digest cache
  // (crate-digest.ts), shared by every nested check below it and by nothing after it.
  const inner: DecisionContext = visiting.length ? ctx : { ...ctx, stores: { ...ctx.stores } };
  await primeDigestCache(digestCacheFor(inner.stores), wsDir);
  // Elements are independent: checked concurrently (the work is mostly file I/O), reported in stack order.
  const results = await inStackOrder(elements.length, async (i) => {
    const own = new Findings(pkg.file, pkg);
    const ownGaps: string[] = [];
    const e = elements[i]!;
    return {
      view: await checkElement(
        e,
        rule,
        wsDir,
        inner,
        [...visiting, appName],
        own,
        elementAt(invAt, e),
        ownGaps,
        checkLibrary,
      ),
      f: own,
      gaps: ownGaps,
    };
  });
  for (const r of results) {
    report.elements.push(r.view);
    f.merge(r.f);
    gaps.push(...r.gaps);
  }
  relations
    .find((r) => r.relation === 'runtime')!
    .boundary.push(...report.elements.filter((e) => e.status === 'boundary').map((e) => e.name));
  return done();
}

/** The report's relation table: each relation and the inventories that cover it. */
function relationsTable(rule: ChainRule, inventories: Table[]): StackReport['relations'] {
  return RELATIONS.map((relation) => {
    const covering = inventories.filter((inv) => str(inv, 'relation') === relation);
    const applied = (inv: Table) =>
      rule.completeness === 'verified' || str(inv, 'completeness') === 'verified' ? 'verified' : 'declared';
    return {
      relation,
      inventories: covering.length
        ? covering.map((inv) => `${str(inv, 'id') ?? '?'} / ${applied(inv)}`).join(', ')
        : 'uncovered',
      boundary: [],
      gaps: [],
    };
  });
}

/** The Cargo workspace the app crate lives in; undefined (reported) when it cannot be found or read. */
function openWorkspace(
  pkg: Doc,
  ctx: DecisionContext,
  f: Findings,
  inventory: CargoInventory,
): { appName: string; wsDir: string; ws: Workspace } | undefined {
  const { id: invId, at: invAt } = inventory;
  const subject = table(pkg.data, 'subject');
  const appName = str(subject, 'name');
  const rootRel = subjectRoot(pkg, ctx, subject);
  if (!appName || rootRel === undefined) {
    f.error(
      `inventory '${invId}': the package [subject] needs a name (the app crate) and a root inside --root to find its Cargo workspace`,
      ['subject'],
    );
    return undefined;
  }
  const wsDir = findWorkspace(ctx.root, resolve(ctx.root, rootRel));
  if (!wsDir) {
    f.error(
      `inventory '${invId}': no Cargo.lock at or above the subject root \`${rootRel}\` (inside --root)`,
      invAt('source'),
    );
    return undefined;
  }
  let ws: Workspace;
  try {
    ws = readWorkspace(fsReaders(wsDir));
  } catch (error) {
    if (!(error instanceof CargoError)) throw error;
    f.error(`inventory '${invId}': ${error.message} (workspace ${relative(ctx.root, wsDir) || '.'})`, invAt('source'));
    return undefined;
  }
  return { appName, wsDir, ws };
}

/** The stack's shape: too many elements, too deep, or a cycle through the libraries being checked. */
function checkShape(
  f: Findings,
  rule: ChainRule,
  elements: Element[],
  visiting: readonly string[],
  invAt: (...k: (string | number)[]) => FieldPath,
): void {
  if (elements.length > rule.maxElements)
    f.indeterminate(
      `chain requirement '${rule.id}': the stack has ${elements.length} elements, more than max_elements = ${rule.maxElements}`,
      invAt(),
    );
  if (rule.depth !== 'all')
    for (const e of elements)
      if (e.depth > rule.depth)
        f.indeterminate(
          `library '${e.name}' is at depth ${e.depth}, deeper than depth = ${rule.depth}`,
          elementAt(invAt, e),
        );
  for (const e of elements)
    if (visiting.includes(e.name)) f.indeterminate(`cycle: ${[...visiting, e.name].join(' -> ')}`, elementAt(invAt, e));
}

/** Runs `check` over 0..count-1, at most CONCURRENCY at once; the results come back in that order. */
async function inStackOrder<T>(count: number, check: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await check(i);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return results;
}
