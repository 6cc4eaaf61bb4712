/**
 * `check-package P --spec S`: is the package a valid answer to the specification
 * (acceptance-details.md section 3)? The format validator passes; the specification is valid and
 * binding; `[specification]` binds its id, exact bytes and requirement count; every claim's
 * clause resolves; every item requirement has a claim; every mandatory requirement coverage does
 * not find satisfied has a `[[deviation]]`; the subject has exactly one certified identity and the
 * presented bytes are its bytes; the required profiles are present; every chain requirement's
 * stack check passes. Reads files (through the format, subject and stack checks), runs nothing.
 */
import { m11Digest, parseM11 } from '../../../src/hash/index.js';
import { computeCoverage, overPackage } from './coverage.js';
import { digestsDiffer } from './digests.js';
import { unknownKeys } from './keys.js';
import { validateFormat } from './format.js';
import type { DecisionContext, PackageCheck, SpecificationCheck, StackReport } from './model.js';
import { Findings } from './report.js';
import { checkSpecification, notBindingReason, parties } from './specification.js';
import { checkChain } from './stack/chain.js';
import type { LibraryCheck } from './stack/element.js';
import { verifySubject } from './subject.js';
import { isTable, str, table, tables, type Doc } from './toml.js';
import { refuseVersion03 } from './versions.js';

const DEVIATION_KINDS = ['unmet', 'partial', 'alternative', 'not-applicable', 'requirement-defect'] as const;
/** `reason` is vkit's field; the 0.3.2 description fields are accepted alongside it. */
const DEVIATION_KEYS = ['requirement', 'kind', 'reason', 'statement', 'cause', 'impact', 'remedy'];
const BARE = /^sha-512:[0-9a-fA-F]{128}$/;
const COMMIT = /^[0-9a-f]{40}$/;

const q = (v: unknown) => (v === undefined ? 'nothing' : typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/**
 * `checkPackage` (recursive-checks.ts) with the check of a stack library's decision handed in: the
 * stack check of a chain requirement calls it for every library, whose package is checked here again.
 */
export async function checkPackageWith(
  pkg: Doc,
  spec: Doc,
  ctx: DecisionContext,
  checkLibrary: LibraryCheck,
): Promise<PackageCheck> {
  refuseVersion03(pkg);
  const specCheck = checkSpecification(spec);
  const format = await validateFormat(pkg, { root: ctx.root, files: ctx.files });
  const f = new Findings(pkg.file, pkg);

  if (format.verdict === 'FAIL')
    f.error(
      `the format validator fails (${format.findings.errors} error${format.findings.errors === 1 ? '' : 's'} above)`,
    );
  if (specCheck.findings.errors > 0)
    f.error(
      `the specification ${spec.file} is invalid (${specCheck.findings.errors} error${specCheck.findings.errors === 1 ? '' : 's'} above)`,
    );
  const why = notBindingReason(spec);
  if (why !== undefined)
    f.error(`the specification ${spec.file} is not binding (${why}): a package binds only a binding specification`, [
      'specification',
    ]);
  checkSpecificationBinding(pkg, spec, specCheck, f);
  checkClaims(pkg, specCheck, f);
  checkDeviations(pkg, specCheck, f);
  checkIdentity(pkg, f);
  checkProfiles(pkg, spec, f);
  await verifySubject(pkg, ctx, f);

  // Chain requirements are satisfied exactly when their stack check passes.
  const chain: Record<string, StackReport['status']> = {};
  let stack: StackReport | undefined;
  const rawRequirements = Array.isArray(spec.data.requirement) ? (spec.data.requirement as unknown[]) : [];
  for (const req of specCheck.requirements.filter((r) => r.kind === 'chain')) {
    const raw = rawRequirements[req.index];
    if (!isTable(raw) || !isTable(raw.chain)) continue; // already an error of the specification
    const report = await checkChain(raw, pkg, ctx, f, checkLibrary);
    chain[req.id] = report.status;
    stack ??= report;
    if (report.status === 'fail') f.error(`requirement '${req.id}': the stack check fails`, ['inventory']);
    else if (report.status === 'indeterminate')
      f.indeterminate(`requirement '${req.id}': the stack check is indeterminate`, ['inventory']);
  }

  const names = parties(spec);
  const subject = table(pkg.data, 'subject');
  const commit = str(subject, 'commit');
  const coverage = computeCoverage(specCheck, format.claims, pkg, {
    subjectCommit: commit && COMMIT.test(commit) ? commit : undefined,
    producer: names.producer,
    consumer: names.consumer,
    chain,
  });

  // An unmet mandatory requirement must be declared, never left for the consumer to discover.
  // Skipped where the evidence or the floor could not be judged (indeterminate): that status already blocks.
  const deviations = new Set(tables(pkg.data, 'deviation').map((d) => d.requirement));
  const undecided = format.verdict === 'INDETERMINATE';
  for (const r of coverage.requirements) {
    if (!r.mandatory || r.status === 'satisfied' || deviations.has(r.requirement)) continue;
    if (undecided || r.status === 'indeterminate') continue;
    f.error(`requirement '${r.requirement}' is mandatory and coverage is '${r.status}', but no [[deviation]] names it`);
  }

  const findings = new Findings(pkg.file, pkg);
  findings.merge(specCheck.findings);
  findings.merge(format.findings);
  findings.merge(f);
  const status: PackageCheck['status'] =
    findings.errors > 0 ? 'invalid' : findings.indeterminateReasons.length > 0 ? 'indeterminate' : 'valid';
  return {
    findings,
    format,
    spec: specCheck,
    coverage: overPackage(coverage, status),
    ...(stack ? { stack } : {}),
    status,
  };
}

/** `[specification] id, hash, requirements_total` against the presented specification's bytes. */
function checkSpecificationBinding(pkg: Doc, spec: Doc, specCheck: SpecificationCheck, f: Findings): void {
  const b = pkg.data.specification;
  if (!isTable(b)) {
    f.error(
      '[specification] {id, hash, requirements_total} is missing: a package binds the specification it answers',
      b === undefined ? undefined : ['specification'],
    );
    return;
  }
  const specId = str(table(spec.data, 'document'), 'id');
  if (b.id !== specId)
    f.error(`[specification].id ${q(b.id)} does not match the specification's [document].id ${q(specId)}`, [
      'specification',
      'id',
    ]);
  const computed = m11Digest('specification', spec.bytes);
  if (typeof b.hash === 'string' && BARE.test(b.hash)) {
    f.error(
      `[specification].hash uses the retired bare form 'sha-512:<hex>'; write 'specification:sha-512:<128 hex>'`,
      ['specification', 'hash'],
    );
  } else if (parseM11(b.hash)?.domain !== 'specification') {
    f.error(`[specification].hash must be 'specification:sha-512:<128 lowercase hex>', got ${q(b.hash)}`, [
      'specification',
      'hash',
    ]);
  } else if (b.hash !== computed) {
    f.error(
      `[specification].hash does not match ${spec.file}: recorded and computed digests ${digestsDiffer(b.hash as string, computed)} (the specification changed since the package bound it; \`vkit acceptance digest --domain specification ${spec.file}\` prints the current hash)`,
      ['specification', 'hash'],
    );
  }
  const total = specCheck.requirements.length;
  if (b.requirements_total !== total)
    f.error(
      `[specification].requirements_total ${q(b.requirements_total)} does not equal the specification's ${total} requirement${total === 1 ? '' : 's'}`,
      ['specification', 'requirements_total'],
    );
}

/** Every claim's clause names a requirement; every item requirement has at least one claim. */
function checkClaims(pkg: Doc, specCheck: SpecificationCheck, f: Findings): void {
  const ids = new Set(specCheck.requirements.map((r) => r.id));
  const specId = str(table(pkg.data, 'specification'), 'id');
  const claims = Array.isArray(pkg.data.claim) ? (pkg.data.claim as unknown[]) : [];
  const answered = new Set<string>();
  claims.forEach((c, i) => {
    if (!isTable(c)) return; // the format validator reports it
    const label = nonEmpty(c.id) ? `claim '${c.id}'` : `claim[${i}]`;
    if (c.clause === undefined) return; // a claim outside the specification answers nothing: harmless
    if (typeof c.clause !== 'string' || !ids.has(c.clause))
      f.error(`${label}: clause ${q(c.clause)} is not a requirement of specification ${q(specId)}`, [
        'claim',
        i,
        'clause',
      ]);
    else answered.add(c.clause);
  });
  for (const r of specCheck.requirements) {
    if (r.kind === 'item' && !answered.has(r.id))
      f.error(
        `requirement '${r.id}': no [[claim]] answers it; every item requirement needs at least one claim (a gap claim when nothing checks it yet)`,
      );
  }
}

function checkDeviations(pkg: Doc, specCheck: SpecificationCheck, f: Findings): void {
  const raw = pkg.data.deviation;
  if (raw === undefined) return;
  if (!Array.isArray(raw)) {
    f.error('deviation must be an array of [[deviation]] tables', ['deviation']);
    return;
  }
  const ids = new Set(specCheck.requirements.map((r) => r.id));
  raw.forEach((d, i) => {
    const at = (k?: string) => (k ? ['deviation', i, k] : ['deviation', i]);
    if (!isTable(d)) {
      f.error(`deviation[${i}] must be a table`, at());
      return;
    }
    const label = `deviation[${i}]${nonEmpty(d.requirement) ? ` (requirement '${d.requirement}')` : ''}`;
    unknownKeys(f, d, at(), DEVIATION_KEYS, label);
    if (!(typeof d.requirement === 'string' && ids.has(d.requirement)))
      f.error(`${label}: requirement ${q(d.requirement)} is not a requirement of the specification`, at('requirement'));
    if (!(DEVIATION_KINDS as readonly unknown[]).includes(d.kind))
      f.error(`${label}: kind must be one of ${DEVIATION_KINDS.join(', ')}, got ${q(d.kind)}`, at('kind'));
    if (!nonEmpty(d.reason)) f.error(`${label}: reason must be a non-empty string`, at('reason'));
  });
}

/** Exactly one certified identity: commit (+ dirty), digest, or components + aggregate digest. */
function checkIdentity(pkg: Doc, f: Findings): void {
  const s = pkg.data.subject;
  if (!isTable(s)) return; // the format validator reports a missing [subject]
  const components = Array.isArray(s.components) && s.components.length > 0;
  const identities = (typeof s.commit === 'string' ? 1 : 0) + (components || typeof s.digest === 'string' ? 1 : 0);
  if (identities !== 1) {
    const what =
      identities === 0 ? (s.mode === 'prospective' ? 'none (mode = "prospective")' : 'none') : 'more than one';
    f.error(
      `[subject] must carry exactly one certified identity (commit + dirty, digest, or components + digest) to answer a specification; it carries ${what}`,
      ['subject'],
    );
  }
}

/** Every profile the specification requires is the package's own `[format] profile`. */
function checkProfiles(pkg: Doc, spec: Doc, f: Findings): void {
  const required = table(spec.data, 'acceptance')?.profiles_required;
  if (!Array.isArray(required)) return; // the specification check reports it
  const own = str(table(pkg.data, 'format'), 'profile');
  for (const p of required) {
    if (typeof p === 'string' && p !== own)
      f.error(`required profile '${p}' is not the package's [format].profile (${q(own)})`, ['format', 'profile']);
  }
}
