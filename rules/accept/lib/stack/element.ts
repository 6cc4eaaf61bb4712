/**
 * One element of a stack, checked on its own: its consumed bytes must match its digest, and (at
 * C2) its library's decision, found in a trusted acceptor store, must be valid, current, accepted
 * and certify those very bytes. An element outside the checked boundary is listed, never accepted.
 */
import { readFileSync } from 'node:fs';
import type { DecisionCheck, DecisionContext, DecisionPaths, StackElement } from '../model.js';
import { insideRoot } from '../paths.js';
import { noteRead } from '../reads.js';
import type { Findings } from '../report.js';
import { parseDoc, str, table, type FieldPath } from '../toml.js';
import type { LockPackage } from './cargo.js';
import { crateDigest, digestCacheFor, DigestError } from './crate-digest.js';
import type { ChainRule } from './rule.js';
import { findLibrary } from './stores.js';

/**
 * Checks a library's three documents like any decision (recursive-checks.ts hands in
 * `checkDecisionFiles`): the recursion of the stack check, passed down so this module imports
 * nothing above it.
 */
export type LibraryCheck = (paths: DecisionPaths, ctx: DecisionContext) => Promise<DecisionCheck>;

export interface Element {
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

export const elementAt = (invAt: (...k: (string | number)[]) => FieldPath, e: Element): FieldPath =>
  e.listed !== undefined ? invAt('element', e.listed) : invAt();

export function view(e: Element, status: StackElement['status'], reason?: string): StackElement {
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

export async function checkElement(
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
