/**
 * Coverage: how far a package's claims meet a specification's requirements (acceptance-details.md
 * section 3), pure. Per requirement, in this order: a requirement no claim answers is `missing`;
 * one with at least one claim meeting its floor is `satisfied` (those claims are the basis); one
 * whose claims are evidenced or partial but all fall short is `partial`; otherwise (only gap,
 * parked, blocked, ... claims) it is `deviation-declared` when the package declares a deviation
 * for it, else `gap`. A claim's floor is judged in a fixed order and only the first failed
 * reason is reported, so a reader fixes one thing at a time. A requirement whose floor holds
 * keys vkit cannot evaluate is never `satisfied`: it is `indeterminate` instead.
 *
 * Chain requirements are not judged here: they are satisfied exactly when the stack check passes,
 * so the caller passes that result in (`opts.chain`); without it they are `missing`, and an
 * undecidable stack is `indeterminate`.
 *
 * This is the one coverage computation: the package check runs it (`overPackage` then refuses
 * acceptance over a package that is not valid) and every verb prints what it returned.
 */
import {
  tierAtLeast,
  type ClaimView,
  type CoverageCount,
  type CoverageResult,
  type CoverageStatus,
  type EvidenceView,
  type PackageCheck,
  type RequirementCoverage,
  type RequirementView,
  type SpecificationCheck,
  type StackReport,
} from './model.js';
import { clip } from './report.js';
import { INDEPENDENCE } from './specification.js';
import { isTable, tables, type Doc, type Table } from './toml.js';

export interface CoverageOptions {
  /** The package's subject commit (40 hex); delivered-revision freshness compares records with it. */
  subjectCommit?: string;
  /** Party names from the specification: independence is judged from each record's author against them. */
  producer?: string;
  consumer?: string;
  /** Stack check status per chain requirement id. */
  chain?: Record<string, StackReport['status']>;
}

type Floor = RequirementView['evidence'];
type Independence = Floor['independence'];
type Judged = Pick<RequirementCoverage, 'status' | 'basis' | 'failures'>;

export function computeCoverage(
  spec: SpecificationCheck,
  claims: ClaimView[],
  pkg: Doc,
  opts: CoverageOptions = {},
): CoverageResult {
  const deviations = new Set(
    tables(pkg.data, 'deviation')
      .map((d) => d.requirement)
      .filter((r): r is string => typeof r === 'string'),
  );
  const rawClaims = Array.isArray(pkg.data.claim) ? (pkg.data.claim as unknown[]) : [];
  const judge = (req: RequirementView): Judged => {
    if (req.kind === 'chain') return chainStatus(opts.chain?.[req.id], deviations.has(req.id));
    if (req.kind === 'cross-cutting') return crossCutting(req, claims, rawClaims, deviations);
    return itemCoverage(req, claims, deviations, opts);
  };
  const requirements = spec.requirements.map(
    (req): RequirementCoverage => ({
      requirement: req.id,
      mandatory: req.mandatory,
      ...withUnevaluatedFloor(req, judge(req)),
    }),
  );
  const count = (mandatory: boolean): CoverageCount => {
    const rs = requirements.filter((r) => r.mandatory === mandatory);
    const indeterminate = rs.filter((r) => r.status === 'indeterminate').length;
    return {
      met: rs.filter((r) => r.status === 'satisfied').length,
      total: rs.length,
      ...(indeterminate ? { indeterminate } : {}),
    };
  };
  const mandatory = count(true);
  // No requirement at all is never acceptable: the specification is invalid then, and nothing was checked.
  return {
    requirements,
    mandatory,
    optional: count(false),
    acceptable: mandatory.total > 0 && mandatory.met === mandatory.total,
  };
}

/** Coverage over a package that is not a valid answer to the specification is never acceptable, whatever the counts say. */
export function overPackage(result: CoverageResult, status: PackageCheck['status']): CoverageResult {
  return status === 'valid' ? result : { ...result, acceptable: false, blockedBy: `the package check is ${status}` };
}

function itemCoverage(
  req: RequirementView,
  claims: ClaimView[],
  deviations: Set<string>,
  opts: CoverageOptions,
): Judged {
  const answering = claims.filter((c) => c.clause === req.id);
  if (answering.length === 0) return { status: 'missing', basis: [], failures: [] };
  const basis: string[] = [];
  const failures: RequirementCoverage['failures'] = [];
  for (const claim of answering) {
    const reason = floorFailure(claim, req.evidence, opts);
    if (reason === undefined) basis.push(claim.id);
    else failures.push({ claim: claim.id, reason });
  }
  let status: CoverageStatus;
  if (basis.length) status = 'satisfied';
  else if (answering.some((c) => c.status === 'evidenced' || c.status === 'partial')) status = 'partial';
  else status = deviations.has(req.id) ? 'deviation-declared' : 'gap';
  return { status, basis, failures };
}

/**
 * A floor with keys vkit cannot evaluate never computes satisfied: what the evaluated part would
 * satisfy is `indeterminate` (its basis named in the reason, never as a basis a decision could
 * rely on); any other status already fails on what was evaluated and stays, with the keys named.
 */
function withUnevaluatedFloor(req: RequirementView, judged: Judged): Judged {
  if (!req.unevaluated.length) return judged;
  const reason = `not evaluated: ${req.unevaluated.join(', ')} (this vkit cannot evaluate ${req.unevaluated.length === 1 ? 'it' : 'them'})`;
  if (judged.status !== 'satisfied') return { ...judged, failures: [...judged.failures, { claim: '(floor)', reason }] };
  const rest = judged.basis.length
    ? `${judged.basis.join(', ')} ${judged.basis.length === 1 ? 'meets' : 'meet'} the rest`
    : 'the rest is met';
  return {
    status: 'indeterminate',
    basis: [],
    failures: [{ claim: '(floor)', reason: `${reason}; ${rest}` }, ...judged.failures],
  };
}

/**
 * The first floor condition `claim` fails, or undefined when it meets the floor. Order: status,
 * unreadable records, weight, tier, methods, control, recipe, freshness, independence.
 */
function floorFailure(claim: ClaimView, floor: Floor, opts: CoverageOptions): string | undefined {
  if (claim.status !== 'evidenced') return `status is '${claim.status}', not 'evidenced'`;
  const unread = unreadableFailure(claim, floor.weighted_required || floor.control_required);
  if (unread) return unread;
  if (floor.weighted_required && !claim.weightGranted) {
    if (!claim.weightRequested) return 'weight required but the claim is unweighted';
    return `weight required but refused: ${refusal(claim)}`;
  }
  if (!floor.min_tier) return 'the requirement has no valid min_tier';
  if (!claim.tier) return `no passing record gives a tier; min_tier is ${floor.min_tier}`;
  if (!tierAtLeast(claim.tier, floor.min_tier)) return `tier ${claim.tier} does not reach min_tier ${floor.min_tier}`;
  const passing = claim.evidence.filter((e) => e.result === 'pass');
  if (floor.methods.length && !passing.some((e) => e.kind !== undefined && floor.methods.includes(e.kind))) {
    return `no passing record's kind is in methods [${floor.methods.join(', ')}]`;
  }
  if (floor.control_required && !claim.witnessed)
    return 'control required but there is no observed-red control or watched-fail witness';
  if (floor.recipe_required && !claim.selfVerify)
    return 'recipe required but there is no [claim.self_verify] command and expect';
  const reliedOn = reliedOnRecords(claim, floor);
  if (floor.freshness === 'delivered-revision') {
    if (!opts.subjectCommit)
      return 'freshness delivered-revision but the subject has no commit to compare records with';
    for (const e of reliedOn) {
      if (e.captured_at_commit !== opts.subjectCommit) {
        const at = e.captured_at_commit ? `was captured at '${e.captured_at_commit}'` : 'has no captured_at_commit';
        return `freshness delivered-revision but evidence[${e.index}] ${at}, not the subject commit ${opts.subjectCommit}`;
      }
    }
  }
  if (floor.independence !== 'none') {
    if (!opts.producer)
      return `independence ${floor.independence} cannot be judged: the specification names no producer`;
    for (const e of reliedOn) {
      const level = authorLevel(e.author, opts);
      if (level === undefined) return `independence ${floor.independence} but evidence[${e.index}] names no author`;
      if (INDEPENDENCE.indexOf(level) < INDEPENDENCE.indexOf(floor.independence)) {
        return `independence ${floor.independence} but evidence[${e.index}] author '${e.author}' ${level === 'none' ? 'is the producer' : 'is the consumer'}`;
      }
    }
  }
  return undefined;
}

/**
 * A record that cannot be read cannot back anything (acceptance-details.md §2): the first passing
 * record (or, when a witness is asked for, witness control) whose record or inputs cannot be read
 * fails the claim, whatever its other records show. The format check only warns about it.
 */
function unreadableFailure(claim: ClaimView, witnessAsked: boolean): string | undefined {
  const relied = claim.evidence.find(
    (e) => e.unreadable && (e.result === 'pass' || (witnessAsked && e.witnessControl)),
  );
  if (!relied) return undefined;
  return `evidence[${relied.index}] ${relied.unreadable} cannot be read: a record that cannot be read backs nothing`;
}

/** The validator's first reason for not granting a requested weight (there is always one). */
const refusal = (claim: ClaimView) => claim.weightRefusals[0]!;

/** The records a floor relies on: the passing ones, plus the witness control record when a control is required. */
function reliedOnRecords(claim: ClaimView, floor: Floor): EvidenceView[] {
  const out = claim.evidence.filter((e) => e.result === 'pass');
  if (floor.control_required) for (const e of claim.evidence) if (e.witnessControl && !out.includes(e)) out.push(e);
  return out;
}

/**
 * How independent a record's author is of the parties: the producer (or no consumer distinction
 * possible) is `none`, the consumer `consumer-run`, anyone else `third-party`. An author who is
 * the producer is never more than `none`, even when the same name is also the consumer
 * (checking your own code).
 */
function authorLevel(author: string | undefined, opts: CoverageOptions): Independence | undefined {
  if (!author?.trim()) return undefined;
  if (author === opts.producer) return 'none';
  if (author === opts.consumer) return 'consumer-run';
  return 'third-party';
}

function crossCutting(
  req: RequirementView,
  claims: ClaimView[],
  rawClaims: unknown[],
  deviations: Set<string>,
): Judged {
  const over = req.over ?? [];
  const candidates = claims.filter(
    (c) => c.status === 'evidenced' && (over === 'all' || (c.clause !== undefined && over.includes(c.clause))),
  );
  const basis: string[] = [];
  const failures: RequirementCoverage['failures'] = [];
  for (const c of candidates) {
    const raw = rawClaims[c.index];
    const reason = demandFailure(c, isTable(raw) ? raw : {}, req.demands);
    if (reason === undefined) basis.push(c.id);
    else failures.push({ claim: c.id, reason });
  }
  if (candidates.length && !failures.length) return { status: 'satisfied', basis, failures };
  // Never vacuously satisfied: with no evidenced claim in scope there is nothing the demands held for.
  if (!candidates.length)
    failures.push({ claim: '(none)', reason: 'no evidenced claim answers a requirement in over' });
  return { status: deviations.has(req.id) ? 'deviation-declared' : 'partial', basis, failures };
}

function demandFailure(claim: ClaimView, raw: Table, demands: RequirementView['demands']): string | undefined {
  if (!demands) return 'the requirement has no valid [requirement.demands]';
  const unread = unreadableFailure(claim, demands.weighted_required || demands.control_required);
  if (unread) return unread;
  if (demands.min_tier && !(claim.tier && tierAtLeast(claim.tier, demands.min_tier)))
    return `tier ${claim.tier ?? 'none'} does not reach demanded min_tier ${demands.min_tier}`;
  if (demands.weighted_required && !claim.weightGranted)
    return claim.weightRequested
      ? `weight demanded but refused: ${refusal(claim)}`
      : 'weight demanded but the claim is unweighted';
  if (demands.control_required && !claim.witnessed)
    return 'control demanded but there is no observed-red control or watched-fail witness';
  for (const [field, token] of Object.entries(demands.fields)) {
    const v = raw[field];
    const lead = typeof v === 'string' ? (v.trim().split(/\s+/)[0] ?? '').replace(/[:,;]+$/, '') : undefined;
    if (lead !== token)
      return `field ${field} must start with '${token}', got ${typeof v === 'string' ? `'${v}'` : 'nothing'}`;
  }
  for (const [field, want] of Object.entries(demands.fields_exact)) {
    if (raw[field] !== want)
      return `field ${field} must be exactly '${want}', got ${typeof raw[field] === 'string' ? `'${raw[field]}'` : 'nothing'}`;
  }
  return undefined;
}

/** An undecidable stack stays indeterminate even under a declared deviation: nothing says it is unmet. */
function chainStatus(stack: StackReport['status'] | undefined, declared: boolean): Judged {
  if (stack === 'pass') return { status: 'satisfied', basis: [], failures: [] };
  if (stack === 'indeterminate')
    return {
      status: 'indeterminate',
      basis: [],
      failures: [{ claim: '(stack)', reason: 'the stack check is indeterminate' }],
    };
  const failures = [
    { claim: '(stack)', reason: stack === 'fail' ? 'the stack check fails' : 'the stack was not checked' },
  ];
  if (declared) return { status: 'deviation-declared', basis: [], failures };
  return { status: stack === 'fail' ? 'gap' : 'missing', basis: [], failures };
}

/** `R1: satisfied [mandatory] basis=['WT-1']`, each failing claim's first reason below, then the summary. */
export function renderCoverage(result: CoverageResult): string[] {
  const lines: string[] = [];
  for (const r of result.requirements) {
    lines.push(
      clip(
        `${r.requirement}: ${r.status} [${r.mandatory ? 'mandatory' : 'optional'}] basis=[${r.basis.map((b) => `'${b}'`).join(', ')}]`,
      ),
    );
    for (const f of r.failures) lines.push(clip(`  ${f.claim}: ${f.reason}`));
  }
  return [...lines, ...summaryLines('summary', result)];
}

/**
 * `<label>: mandatory 0/1 (1 indeterminate), optional 1/1, acceptable=false`, then why it is not
 * acceptable when the counts alone do not say it. `coverage`, `check-package` and `render` print these.
 */
export function summaryLines(label: string, result: CoverageResult): string[] {
  const count = (c: CoverageCount) =>
    `${c.met}/${c.total}${c.indeterminate ? ` (${c.indeterminate} indeterminate)` : ''}`;
  const lines = [
    `${label}: mandatory ${count(result.mandatory)}, optional ${count(result.optional)}, acceptable=${result.acceptable}`,
  ];
  if (result.blockedBy) lines.push(`not acceptable: ${result.blockedBy} (see above)`);
  return lines;
}
