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
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { DecisionCheck, DecisionContext, DecisionPaths, StackElement, StackReport } from '../model.js';
import { insideRoot } from '../paths.js';
import { noteRead } from '../reads.js';
import { Findings } from '../report.js';
import { subjectRoot } from '../subject.js';
import { parseDoc, str, table, tables, type Doc, type FieldPath, type Table } from '../toml.js';
import { CargoError, closure, isForeign, readWorkspace, type LockPackage, type Workspace } from './cargo.js';
import { crateDigest, digestCacheFor, DigestError, primeDigestCache } from './crate-digest.js';
import { findLibrary } from './stores.js';
import { findWorkspace, fsReaders } from './workspace.js';

/**
 * Checks a library's three documents like any decision (recursive-checks.ts hands in
 * `checkDecisionFiles`): the recursion of the stack check, passed down so this module imports
 * nothing above it.
 */
export type LibraryCheck = (paths: DecisionPaths, ctx: DecisionContext) => Promise<DecisionCheck>;

/** Libraries checked at once. */
const CONCURRENCY = 16;

const RELATIONS = ['build-tool', 'language', 'platform', 'runtime', 'verification-tool'] as const;

interface ChainRule {
  id: string;
  relations: string[];
  depth: number | 'all';
  level: 'C1' | 'C2';
  completeness: 'verified' | 'declared';
  acceptors: string[];
  allowConditions: boolean;
  unaccepted: 'refuse' | 'gap';
  maxElements: number;
}

/** The rule as written; the specification check reports malformed fields, here they fail closed. */
function readRule(requirement: Table, errors: string[]): ChainRule {
  const chain = table(requirement, 'chain') ?? {};
  const id = str(requirement, 'id') ?? '?';
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const depth =
    chain.depth === 'all'
      ? 'all'
      : Number.isInteger(chain.depth) && (chain.depth as number) >= 1
        ? (chain.depth as number)
        : undefined;
  const max =
    Number.isInteger(chain.max_elements) && (chain.max_elements as number) >= 1
      ? (chain.max_elements as number)
      : undefined;
  const bad = (what: string) => errors.push(`chain requirement '${id}': ${what}`);
  if (depth === undefined) bad('depth must be "all" or a positive integer');
  if (max === undefined) bad('max_elements must be a positive integer');
  if (chain.level !== 'C1' && chain.level !== 'C2') bad('level must be C1 or C2');
  if (chain.completeness !== 'verified' && chain.completeness !== 'declared')
    bad('completeness must be verified or declared');
  if (chain.binds !== 'consumed') bad(`binds must be "consumed" (the only binding this vkit checks)`);
  if (chain.unaccepted !== 'refuse' && chain.unaccepted !== 'gap') bad('unaccepted must be refuse or gap');
  if (!strings(chain.relations).length) bad('relations must name at least one relation');
  return {
    id,
    relations: strings(chain.relations),
    depth: depth ?? 1,
    level: chain.level === 'C1' ? 'C1' : 'C2',
    completeness: chain.completeness === 'declared' ? 'declared' : 'verified',
    acceptors: strings(chain.acceptors),
    allowConditions: chain.allow_conditions === true,
    unaccepted: chain.unaccepted === 'gap' ? 'gap' : 'refuse',
    maxElements: max ?? 0,
  };
}

interface Element {
  name: string;
  version?: string;
  source?: string;
  digest?: string;
  binding?: string;
  /** The `boundary` reason, when the package declares the element outside the checked boundary. */
  boundary?: unknown;
  /** Directory relative to the workspace root, when known. */
  dir?: string;
  /** Index in the inventory, when listed there. */
  listed?: number;
  depth: number;
  lock?: LockPackage;
}

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
  const relations: StackReport['relations'] = RELATIONS.map((relation) => {
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
  // Which inventory carries each required relation; only Cargo.lock runtime inventories are checkable.
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
  if (!cargoInventory) return done();
  const { inv, index: invIndex } = cargoInventory;
  const invAt = (...k: (string | number)[]): FieldPath => ['inventory', invIndex, ...k];
  const invId = str(inv, 'id') ?? `#${invIndex + 1}`;
  const listed = tables(inv, 'element');
  const verify = rule.completeness === 'verified' || str(inv, 'completeness') === 'verified';

  // The workspace the app crate lives in.
  const subject = table(pkg.data, 'subject');
  const appName = str(subject, 'name');
  const rootRel = subjectRoot(pkg, ctx, subject);
  if (!appName || rootRel === undefined) {
    f.error(
      `inventory '${invId}': the package [subject] needs a name (the app crate) and a root inside --root to find its Cargo workspace`,
      ['subject'],
    );
    return done();
  }
  const wsDir = findWorkspace(ctx.root, resolve(ctx.root, rootRel));
  if (!wsDir) {
    f.error(
      `inventory '${invId}': no Cargo.lock at or above the subject root \`${rootRel}\` (inside --root)`,
      invAt('source'),
    );
    return done();
  }
  let ws: Workspace;
  try {
    ws = readWorkspace(fsReaders(wsDir));
  } catch (error) {
    if (!(error instanceof CargoError)) throw error;
    f.error(`inventory '${invId}': ${error.message} (workspace ${relative(ctx.root, wsDir) || '.'})`, invAt('source'));
    return done();
  }

  let elements: Element[];
  if (verify) {
    const app = ws.lock.find((p) => p.name === appName && !isForeign(p));
    if (!app) {
      f.error(`inventory '${invId}': Cargo.lock has no workspace package '${appName}' (the package [subject] name)`, [
        'subject',
        'name',
      ]);
      return done();
    }
    let c;
    try {
      c = closure(ws.lock, app);
    } catch (error) {
      if (!(error instanceof CargoError)) throw error;
      f.error(`inventory '${invId}': ${error.message}`, invAt('source'));
      return done();
    }
    for (const cycle of c.cycles) f.indeterminate(`dependency cycle ${cycle.join(' -> ')}`, invAt());
    elements = c.elements.map((e) => ({
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
    if (foreign.length) {
      report.elements = elements.map((e) => view(e, 'indeterminate'));
      return done();
    }
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
  } else {
    // Declared: trusted as listed, in listed order; only path elements can be checked.
    elements = listed.map((el, i) => {
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
  const results = new Array<{ view: StackElement; f: Findings; gaps: string[] }>(elements.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < elements.length; i = next++) {
      const own = new Findings(pkg.file, pkg);
      const ownGaps: string[] = [];
      const e = elements[i]!;
      results[i] = {
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
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, elements.length) }, worker));
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

const elementAt = (invAt: (...k: (string | number)[]) => FieldPath, e: Element): FieldPath =>
  e.listed !== undefined ? invAt('element', e.listed) : invAt();

function view(e: Element, status: StackElement['status'], reason?: string): StackElement {
  return {
    name: e.name,
    ...(e.version ? { version: e.version } : {}),
    ...(e.source ? { source: e.source } : {}),
    ...(e.binding ? { binding: e.binding } : {}),
    ...(e.digest ? { digest: e.digest } : {}),
    status,
    ...(reason ? { reason } : {}),
  };
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

async function checkElement(
  e: Element,
  rule: ChainRule,
  wsDir: string,
  ctx: DecisionContext,
  visiting: string[],
  f: Findings,
  at: FieldPath,
  gaps: string[],
  checkLibrary: LibraryCheck,
): Promise<StackElement> {
  const fail = (reason: string): StackElement => {
    f.error(`library '${e.name}': ${reason}`, at);
    return view(e, 'failed', reason);
  };
  if (e.listed === undefined) return view(e, 'failed', 'not listed in the inventory');
  if (e.boundary !== undefined) {
    if (typeof e.boundary !== 'string' || !e.boundary.trim())
      return fail('`boundary` must be a nonempty reason (why the element is outside the checked boundary)');
    // Outside the boundary: no acceptance is asked, but a digest the package records must be true.
    if (e.digest) {
      const mismatch = await consumedMismatch(e, wsDir, ctx);
      if (mismatch) return fail(mismatch);
    }
    f.note(`library '${e.name}': declared outside the checked boundary (${e.boundary}): listed, not accepted`, at);
    return view(e, 'boundary', e.boundary);
  }
  if (!e.digest) return fail('the inventory element has no digest (binds = "consumed" needs the crate digest)');
  const mismatch = await consumedMismatch(e, wsDir, ctx);
  if (mismatch) return fail(mismatch);
  if (rule.level === 'C1') return view(e, 'accepted');

  const found = await findLibrary(ctx.stores, rule.acceptors, e.name);
  if (found.kind === 'no-store') {
    f.indeterminate(
      `library '${e.name}': no --store given for the trusted acceptor(s) ${found.acceptors.join(', ')}`,
      at,
    );
    return view(e, 'indeterminate', 'no acceptor store');
  }
  const unaccepted = (reason: string): StackElement => {
    if (rule.unaccepted === 'gap') {
      f.warn(`library '${e.name}': ${reason} (recorded as a gap: unaccepted = "gap")`, at);
      gaps.push(e.name);
      return view(e, 'gap', reason);
    }
    return fail(reason);
  };
  if (found.kind === 'absent')
    return unaccepted(`no accepted decision in the trusted acceptor store(s) ${found.searched.join(', ')}`);
  const where = `${found.acceptor}:${e.name}/`;
  if (found.missing.length) return unaccepted(`${where} lacks ${found.missing.join(', ')}`);

  // The library's package must certify the very bytes the app consumes.
  let libDigest: string | undefined;
  try {
    const libBytes = readFileSync(found.paths.package.abs);
    noteRead(found.paths.package.abs);
    const lib = parseDoc(libBytes, found.paths.package.file, found.paths.package.abs);
    const s = table(lib.data, 'subject');
    libDigest = str(s, 'digest');
  } catch (error) {
    return fail(`${where}acceptance-package.toml cannot be read: ${(error as Error).message}`);
  }
  if (libDigest !== e.digest)
    return fail(
      `its package (${where}acceptance-package.toml) certifies ${libDigest ? `subject ${libDigest.slice(0, 32)}...` : 'no subject digest'}, not the inventory's digest`,
    );

  const libCtx: DecisionContext = {
    root: wsDir,
    stores: ctx.stores,
    trees: ctx.trees,
    ...(ctx.effect ? { effect: { now: ctx.effect.now, allowConditions: rule.allowConditions } } : {}),
    visiting,
  };
  let check: DecisionCheck;
  try {
    check = await checkLibrary(found.paths, libCtx);
  } catch (error) {
    // A library document that cannot be parsed is that library's failure, not a crash of the app's check.
    return fail(`its documents in ${where} cannot be checked: ${(error as Error).message}`);
  }
  f.merge(check.findings);
  const accepted: StackElement = {
    ...view(e, 'accepted'),
    acceptor: found.acceptor,
    ...(check.issuer ? { issuer: check.issuer } : {}),
    ...(check.issued_at ? { issued_at: check.issued_at } : {}),
  };
  const failed = (reason: string): StackElement => ({ ...fail(reason), acceptor: found.acceptor });
  if (check.status === 'indeterminate' || check.stack?.status === 'indeterminate') {
    f.indeterminate(`library '${e.name}': its own acceptance cannot be decided`, at);
    return { ...accepted, status: 'indeterminate', reason: 'its own acceptance is indeterminate' };
  }
  if (check.status === 'stale')
    return failed(`its decision is stale (a bound hash changed): renewed decision required`);
  if (check.status !== 'valid') {
    const first = check.findings.list.find((x) => x.level === 'ERROR');
    return failed(`its decision is not valid${first ? ` (${first.file}: ${first.message})` : ''}`);
  }
  if (check.stack && check.stack.status !== 'pass') return failed(`its own stack is not accepted`);
  const verdict = check.verdict;
  if (verdict === 'accepted-with-conditions' && !rule.allowConditions)
    return {
      ...unaccepted('its decision is accepted-with-conditions and the chain requirement does not allow conditions'),
      acceptor: found.acceptor,
    };
  if (verdict !== 'accepted' && verdict !== 'accepted-with-conditions')
    return { ...unaccepted(`its decision's verdict is ${verdict ?? 'missing'}`), acceptor: found.acceptor };
  if (ctx.effect) {
    if (!check.effect) return failed('its decision was not judged for effect');
    if (check.effect.indeterminate) {
      f.indeterminate(`library '${e.name}': effect cannot be decided: ${check.effect.reason}`, at);
      return { ...accepted, status: 'indeterminate', reason: check.effect.reason };
    }
    if (!check.effect.eligible)
      return failed(`its decision is not effect-eligible at ${ctx.effect.now}: ${check.effect.reason}`);
  }
  return accepted;
}

/** Why the bytes the build consumes are not the element's recorded digest, or undefined when they are. */
async function consumedMismatch(e: Element, wsDir: string, ctx: DecisionContext): Promise<string | undefined> {
  if (e.dir === undefined) return 'crate directory unknown';
  const crateAbs = insideRoot(wsDir, e.dir || '.');
  if (!crateAbs) return `source path \`${e.dir}\` leaves the workspace`;
  let consumed: string;
  try {
    consumed = (await crateDigest(crateAbs, digestCacheFor(ctx.stores))).digest;
  } catch (error) {
    if (!(error instanceof DigestError)) throw error;
    return `cannot digest ${e.dir || '.'}: ${error.message}`;
  }
  return consumed === e.digest
    ? undefined
    : `the bytes consumed from ${e.dir || '.'} changed: their crate digest is not the inventory's digest`;
}
