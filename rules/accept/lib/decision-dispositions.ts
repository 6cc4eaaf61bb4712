/**
 * The `[[disposition]]` steps of judging a decision: exactly one disposition per requirement, and
 * each judged against the computed coverage, the runs, its conditions and its waiver. A disposition
 * never claims more than coverage and the runs support.
 */
import { type DecisionState, nonEmpty, oneOf, q } from './decision-state.js';
import type { PackageCheck, RequirementCoverage, RequirementView } from './model.js';
import type { Findings } from './report.js';
import { str, table, tables, type FieldPath, type Table } from './toml.js';
import { DISPOSITION_STATUSES } from './verdict.js';

const WAIVER_CODES = ['risk-accepted', 'alternative-evidence', 'not-applicable', 'deferred', 'other'] as const;

/** `[[disposition]]`: exactly one per requirement; fills `dispositions`. */
export function readDispositions(s: DecisionState): void {
  const { f, d, spec, requirements, dispositions } = s;
  if (d.disposition !== undefined && !Array.isArray(d.disposition))
    f.error('[[disposition]] must be an array of tables', ['disposition']);
  tables(d, 'disposition').forEach((t, i) => {
    const r = str(t, 'requirement');
    if (!nonEmpty(r)) return f.error(`[[disposition]] ${i + 1} names no requirement`, ['disposition', i]);
    if (!requirements.has(r))
      return f.error(`[[disposition]] names requirement ${q(r)}, which the specification does not have`, [
        'disposition',
        i,
        'requirement',
      ]);
    if (dispositions.has(r))
      return f.error(`requirement ${q(r)} has more than one [[disposition]]`, ['disposition', i, 'requirement']);
    dispositions.set(r, { t, i });
  });
  for (const r of spec.requirements)
    if (!dispositions.has(r.id))
      f.error(`requirement ${q(r.id)} has no [[disposition]] (one per requirement, mandatory and optional)`, [
        'disposition',
      ]);
}

/** Judges each disposition, in the order the dispositions were read. */
export function judgeDispositions(s: DecisionState): void {
  const { f, spec, pkg, requirements, dispositions } = s;
  const coverage = new Map(pkg.coverage.requirements.map((c) => [c.requirement, c]));
  const deviations = tables(s.pkgDoc.data, 'deviation');
  for (const [id, { t, i }] of dispositions) {
    const req = requirements.get(id)!;
    judgeDisposition(f, {
      req,
      t,
      i,
      cov: coverage.get(id),
      pkg,
      worstRun: s.worstRun,
      conditionIds: s.conditionIds,
      reExecuteAll: s.reExecuteAll,
      selfAccepted: s.selfAccepted,
      deviations,
      authority: spec.authority,
      issuer: s.issuer,
    });
  }
}

interface DispositionInput {
  req: RequirementView;
  t: Table;
  i: number;
  cov?: RequirementCoverage;
  pkg: PackageCheck;
  worstRun: Map<string, string>;
  conditionIds: Map<string, Table>;
  reExecuteAll: boolean;
  selfAccepted: boolean;
  deviations: Table[];
  authority?: string;
  issuer?: { name: string; role: string };
}

/** What a disposition's own fields give, for the checks of an accepting status. */
interface Grounds {
  /** The basis claims that are claims of the package answering the requirement. */
  basis: string[];
  /** The cited conditions that exist and are on the requirement. */
  cited: Table[];
  /** The coverage witnesses of the requirement. */
  witnesses: string[];
  /** Witnesses and basis together: every claim the runs are held against. */
  basisClaims: string[];
}

function judgeDisposition(f: Findings, x: DispositionInput): void {
  const { req, t, i, cov } = x;
  const at: FieldPath = ['disposition', i];
  const status = t.status;
  if (!(DISPOSITION_STATUSES as readonly unknown[]).includes(status))
    return f.error(`disposition ${q(req.id)}: status must be one of ${oneOf(DISPOSITION_STATUSES)}, got ${q(status)}`, [
      ...at,
      'status',
    ]);
  const r = `requirement ${q(req.id)}`;

  const basis = readBasis(f, x, at);
  const cited = readCited(f, x, at);

  // Adverse runs bind every mode and every disposition: the union of coverage witnesses and the cited basis.
  const witnesses = cov?.basis ?? [];
  const basisClaims = [...new Set([...witnesses, ...basis])];
  const failed = basisClaims.filter((c) => x.worstRun.get(c) === 'fail');
  const unproven = basisClaims.filter((c) => ['error', 'not-run'].includes(x.worstRun.get(c) ?? ''));
  const accepting = status === 'satisfied' || status === 'satisfied-with-conditions';
  if (failed.length && status !== 'unsatisfied' && !(status === 'waived' && req.waivable)) {
    f.error(
      `disposition ${q(req.id)}: a failing run on basis claim ${failed.map((c) => q(c)).join(', ')} forces ${r} unsatisfied${req.waivable ? ' (or waived: it is waivable)' : ''}, not ${q(status)}`,
      [...at, 'status'],
    );
  } else if (x.reExecuteAll && unproven.length && accepting) {
    f.error(
      `disposition ${q(req.id)}: under re-execute-all basis claim ${unproven.map((c) => `${q(c)} (${x.worstRun.get(c)})`).join(', ')} did not pass, so ${r} cannot be ${q(status)}`,
      [...at, 'status'],
    );
  }

  if (accepting) checkAccepting(f, x, at, status, { basis, cited, witnesses, basisClaims });

  if (status === 'waived') {
    if (!req.waivable) f.error(`disposition ${q(req.id)}: 'waived' but ${r} is not waivable`, [...at, 'status']);
    const waiver = table(t, 'waiver');
    if (!waiver) f.error(`disposition ${q(req.id)}: 'waived' needs [disposition.waiver] {reason, code, authority}`, at);
    else checkWaiver(f, waiver, x, at);
  }
  if (status === 'not-applicable') {
    if (req.mandatory)
      f.error(
        `disposition ${q(req.id)}: 'not-applicable' is admissible only on an optional requirement (waive a mandatory one with code = "not-applicable")`,
        [...at, 'status'],
      );
    else if (!x.deviations.some((dv) => dv.requirement === req.id && dv.kind === 'not-applicable'))
      f.error(
        `disposition ${q(req.id)}: 'not-applicable' needs a [[deviation]] of kind 'not-applicable' on ${q(req.id)} in the package`,
        [...at, 'status'],
      );
  }
}

/** basis: claim ids of the package that answer this requirement. */
function readBasis(f: Findings, x: DispositionInput, at: FieldPath): string[] {
  const { req, t, cov } = x;
  const basis: string[] = [];
  if (t.basis !== undefined && (!Array.isArray(t.basis) || !t.basis.every(nonEmpty)))
    f.error(`disposition ${q(req.id)}: basis must be an array of claim ids`, [...at, 'basis']);
  else
    for (const c of (t.basis as string[] | undefined) ?? []) {
      const claim = x.pkg.format.claims.find((v) => v.id === c);
      if (!claim)
        f.error(`disposition ${q(req.id)}: basis claim ${q(c)} is not a claim of the package`, [...at, 'basis']);
      else if (claim.clause !== req.id && !(cov?.basis ?? []).includes(c))
        f.error(`disposition ${q(req.id)}: basis claim ${q(c)} answers ${q(claim.clause)}, not ${q(req.id)}`, [
          ...at,
          'basis',
        ]);
      else basis.push(c);
    }
  return basis;
}

/** The conditions the disposition cites, each one existing and on this requirement. */
function readCited(f: Findings, x: DispositionInput, at: FieldPath): Table[] {
  const { req, t } = x;
  const cited: Table[] = [];
  if (t.conditions !== undefined && (!Array.isArray(t.conditions) || !t.conditions.every(nonEmpty)))
    f.error(`disposition ${q(req.id)}: conditions must be an array of condition ids`, [...at, 'conditions']);
  else
    for (const c of (t.conditions as string[] | undefined) ?? []) {
      const cond = x.conditionIds.get(c);
      if (!cond)
        f.error(`disposition ${q(req.id)} cites condition ${q(c)}, which the decision does not have`, [
          ...at,
          'conditions',
        ]);
      else if (cond.requirement !== req.id)
        f.error(`disposition ${q(req.id)} cites condition ${q(c)}, which is on requirement ${q(cond.requirement)}`, [
          ...at,
          'conditions',
        ]);
      else cited.push(cond);
    }
  return cited;
}

/** A satisfied or satisfied-with-conditions disposition: independence, coverage, conditions, basis and runs. */
function checkAccepting(f: Findings, x: DispositionInput, at: FieldPath, status: unknown, g: Grounds): void {
  const { req, t, cov } = x;
  const { basis, cited, witnesses, basisClaims } = g;
  const r = `requirement ${q(req.id)}`;
  if (x.selfAccepted && req.evidence.independence !== 'none' && req.kind !== 'chain') {
    f.error(
      `disposition ${q(req.id)}: ${r} demands independence '${req.evidence.independence}', but the issuer is also the producer (decision independence none): it is not satisfied`,
      [...at, 'status'],
    );
  }
  // A chain requirement records the stack result: coverage carries it per requirement (satisfied exactly when its stack check passes).
  const covered =
    cov !== undefined ? cov.status === 'satisfied' : req.kind === 'chain' && x.pkg.stack?.status === 'pass';
  const covText =
    req.kind === 'chain'
      ? `the stack check ${covered ? 'passes' : `does not pass (coverage ${cov?.status ?? 'none'})`}`
      : `coverage computes ${cov?.status ?? 'nothing'}`;
  // What coverage cannot decide (an undecidable stack, a floor vkit cannot evaluate) makes the whole decision indeterminate (exit 3), not invalid.
  const undecided = cov?.status === 'indeterminate';
  if (status === 'satisfied') {
    if (!covered && !undecided)
      f.error(
        `disposition ${q(req.id)}: 'satisfied' but ${covText}: a disposition cannot claim more than the computed coverage${firstFailure(cov)}`,
        [...at, 'status'],
      );
    if (req.kind !== 'chain' && basis.length === 0 && covered)
      f.error(`disposition ${q(req.id)}: 'satisfied' needs a basis (the claims relied on)`, [...at, 'basis']);
  } else {
    if (!cited.some((c) => c.requirement === req.id))
      f.error(`disposition ${q(req.id)}: 'satisfied-with-conditions' cites no condition on ${q(req.id)}`, [
        ...at,
        'conditions',
      ]);
    if (!covered) {
      const waiver = table(t, 'waiver');
      if (!req.waivable)
        f.error(
          `disposition ${q(req.id)}: 'satisfied-with-conditions' but ${covText}, and ${r} is not waivable${firstFailure(cov)}`,
          [...at, 'status'],
        );
      else if (str(waiver, 'code') !== 'deferred')
        f.error(
          `disposition ${q(req.id)}: 'satisfied-with-conditions' below coverage (${covText}) is a deferred waiver: it needs [disposition.waiver] with code = "deferred"`,
          [...at, 'waiver'],
        );
      else checkWaiver(f, waiver!, x, at);
    }
  }
  // Every accepted claim is the consumer's own claim: each must be a coverage witness.
  for (const c of basis)
    if (covered && req.kind !== 'chain' && !witnesses.includes(c))
      f.error(
        `disposition ${q(req.id)}: basis claim ${q(c)} does not meet the requirement's floor in the computed coverage`,
        [...at, 'basis'],
      );
  // Under re-execute-all (or a consumer-run floor) every basis claim needs its own passing run.
  if (x.reExecuteAll || req.evidence.independence === 'consumer-run' || req.evidence.independence === 'third-party') {
    const noPass = basisClaims.filter((c) => x.worstRun.get(c) === undefined);
    if (noPass.length)
      f.error(
        `disposition ${q(req.id)}: basis claim ${noPass.map((c) => q(c)).join(', ')} has no [[verification.run]]; ${x.reExecuteAll ? 'under re-execute-all' : `independence '${req.evidence.independence}'`} every basis claim needs its own passing run`,
        [...at, 'basis'],
      );
  }
}

/** ` (WT-1: <its first failed floor reason>)`: why coverage falls short, on the line that says it does. */
function firstFailure(cov: RequirementCoverage | undefined): string {
  const first = cov?.failures[0];
  return first ? ` (${first.claim}: ${first.reason})` : '';
}

/**
 * A waiver is complete (reason, code, authority) and the authority is the one who may decide:
 * decision: the specification's authority name, or the issuer written `name / role`.
 */
function checkWaiver(f: Findings, waiver: Table, x: DispositionInput, at: FieldPath): void {
  const missing = ['reason', 'code', 'authority'].filter((k) => !nonEmpty(waiver[k]));
  if (missing.length)
    f.error(`disposition ${q(x.req.id)}: [disposition.waiver] is incomplete: ${missing.join(', ')} missing`, [
      ...at,
      'waiver',
    ]);
  if (nonEmpty(waiver.code) && !(WAIVER_CODES as readonly string[]).includes(waiver.code))
    f.error(`disposition ${q(x.req.id)}: waiver code must be one of ${oneOf(WAIVER_CODES)}, got ${q(waiver.code)}`, [
      ...at,
      'waiver',
      'code',
    ]);
  if (nonEmpty(waiver.authority) && x.authority !== undefined) {
    const allowed = [x.authority, ...(x.issuer ? [`${x.issuer.name} / ${x.issuer.role}`] : [])];
    if (!allowed.includes(waiver.authority))
      f.error(
        `disposition ${q(x.req.id)}: waiver authority ${q(waiver.authority)} is not the specification's authority ${q(x.authority)}`,
        [...at, 'waiver', 'authority'],
      );
  }
}
