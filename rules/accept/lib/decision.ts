/**
 * `check-decision`: a decision is valid only if everything it decided about is valid and current.
 * `checkDecisionFiles` (recursive-checks.ts) reads the three documents, re-validates the
 * specification and the package (which also recomputes the subject and runs the stack check of
 * chain requirements), then `judgeDecision` here (pure) recomputes the bound hashes and judges the
 * decision itself.
 *
 * The judging runs as named steps over one `DecisionState` (decision-state.ts), each in its own
 * decision-*.ts module, in the order their findings are reported.
 *
 * Fail-closed readings where the details page is silent are marked "decision:" in these modules
 * and listed in the project docs.
 */
import { bindConditions, checkConditions } from './decision-conditions.js';
import { judgeDispositions, readDispositions } from './decision-dispositions.js';
import { checkBinds, checkDocument, noteSelfAcceptance } from './decision-document.js';
import { newDecisionState } from './decision-state.js';
import { checkValidity, checkVerdict } from './decision-verdict.js';
import { checkVerification } from './decision-verification.js';
import { DECISION_DATE_FIELDS, decisionKeys } from './document-keys.js';
import { judgeEffect } from './effect.js';
import { datesOutside } from './keys.js';
import type { DecisionCheck, DecisionContext, PackageCheck } from './model.js';
import { Findings, type Finding } from './report.js';
import { str, table, type Doc } from './toml.js';

/**
 * Judges the decision document against the checked specification and package. Pure apart from the
 * effect date already in `ctx.effect`.
 */
export function judgeDecision(
  decisionDoc: Doc,
  specDoc: Doc,
  pkgDoc: Doc,
  pkg: PackageCheck,
  ctx: Pick<DecisionContext, 'effect'>,
): DecisionCheck {
  const f = new Findings(decisionDoc.file, decisionDoc);
  mergeUnique(f, pkg.spec.findings, pkg.findings);
  const d = decisionDoc.data;
  decisionKeys(d, f);
  datesOutside(decisionDoc, f, DECISION_DATE_FIELDS);
  const s = newDecisionState(f, decisionDoc, specDoc, pkgDoc, pkg);
  // The steps run in a fixed order: tests compare the findings, so their order is part of the output.
  checkDocument(s);
  noteSelfAcceptance(s);
  checkBinds(s);
  checkVerification(s);
  checkConditions(s);
  readDispositions(s);
  judgeDispositions(s);
  bindConditions(s);
  checkVerdict(s);
  checkValidity(s);

  const { spec, stale, issuer } = s;
  const document = table(d, 'document');
  const status: DecisionCheck['status'] = stale
    ? 'stale'
    : f.errors > 0 || pkg.status === 'invalid'
      ? 'invalid'
      : pkg.status === 'indeterminate' || f.indeterminateReasons.length > 0
        ? 'indeterminate'
        : 'valid';
  if (status === 'invalid' && pkg.status === 'invalid' && f.errors === 0)
    f.error(`the package ${pkgDoc.file} is invalid, so no decision on it is valid`);
  return {
    status,
    verdict: str(document, 'verdict'),
    issued_at: str(document, 'issued_at'),
    issuer,
    findings: f,
    ...(ctx.effect ? { effect: judgeEffect(d, spec, ctx.effect, status) } : {}),
    ...(pkg.stack ? { stack: pkg.stack } : {}),
  };
}

/** Adds the specification's and the package's findings once (the package check may already carry the specification's). */
function mergeUnique(into: Findings, ...sources: Findings[]): void {
  const key = (x: Finding) => `${x.level}\u0000${x.file}\u0000${x.message}\u0000${x.line ?? ''}`;
  const seen = new Set<string>();
  // A Set, not includes(): a specification may carry 100,000 unevaluable keys (quadratic otherwise).
  const reasons = new Set(into.indeterminateReasons);
  for (const src of sources) {
    for (const x of src.list) {
      if (seen.has(key(x))) continue;
      seen.add(key(x));
      into.list.push(x);
    }
    for (const r of src.indeterminateReasons) {
      if (reasons.has(r)) continue;
      reasons.add(r);
      into.indeterminateReasons.push(r);
    }
  }
}
