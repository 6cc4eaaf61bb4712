/**
 * `check-decision`: a decision is valid only if everything it decided about is valid and current.
 * `checkDecisionFiles` (recursive-checks.ts) reads the three documents, re-validates the
 * specification and the package (which also recomputes the subject and runs the stack check of
 * chain requirements), then `judgeDecision` here (pure) recomputes the bound hashes and judges the
 * decision itself.
 *
 * Fail-closed readings where the details page is silent are marked "decision:" below and listed
 * in the project docs.
 */
import { m11Digest, parseM11, type M11Domain } from '../hash/index.js';
import { isRfc3339, parseIsoDate } from './dates.js';
import { digestsDiffer } from './digests.js';
import { DECISION_DATE_FIELDS, decisionKeys } from './document-keys.js';
import { judgeEffect } from './effect.js';
import { datesOutside } from './keys.js';
import type { DecisionCheck, DecisionContext, PackageCheck, RequirementCoverage, RequirementView } from './model.js';
import { Findings, type Finding } from './report.js';
import { parties } from './specification.js';
import { isTable, str, table, tables, type Doc, type FieldPath, type Table } from './toml.js';
import { CONDITION_OWNERS, DECISION_VERDICTS, DISPOSITION_STATUSES, tableVerdict } from './verdict.js';
import { PROTOCOL_ID } from './versions.js';

const VERIFICATION_MODES = ['package-trusted', 'spot-check', 're-execute-all'] as const;
const RUN_RESULTS = ['pass', 'fail', 'not-run', 'error'] as const;
const WAIVER_CODES = ['risk-accepted', 'alternative-evidence', 'not-applicable', 'deferred', 'other'] as const;

/** The text every stale finding starts with (gates and tests look for it). */
const STALE = 'stale: renewed decision required';

const q = (v: unknown) => (v === undefined ? 'nothing' : typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const oneOf = (values: readonly string[]) => values.join(', ');

/** The worst of several runs on one claim: fail > error > not-run > pass. */
const RUN_RANK: Record<string, number> = { pass: 0, 'not-run': 1, error: 2, fail: 3 };

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
  const spec = pkg.spec;
  let stale = false;

  // [document]
  const document = table(d, 'document');
  let issuer: { name: string; role: string } | undefined;
  if (!document) f.error('[document] is missing');
  else {
    if (document.protocol !== PROTOCOL_ID)
      f.error(`[document].protocol must be '${PROTOCOL_ID}', got ${q(document.protocol)}`, ['document', 'protocol']);
    if (document.kind !== 'decision')
      f.error(`[document].kind must be 'decision', got ${q(document.kind)}`, ['document', 'kind']);
    if (!nonEmpty(document.id)) f.error('[document].id must be a non-empty string', ['document', 'id']);
    if (!isRfc3339(document.issued_at))
      f.error(
        `[document].issued_at must be an RFC 3339 date-time with an offset (2026-09-01T10:00:00Z), got ${q(document.issued_at)}`,
        ['document', 'issued_at'],
      );
    if (!(DECISION_VERDICTS as readonly unknown[]).includes(document.verdict))
      f.error(`[document].verdict must be one of ${oneOf(DECISION_VERDICTS)}, got ${q(document.verdict)}`, [
        'document',
        'verdict',
      ]);
    if (document.provisional !== undefined && typeof document.provisional !== 'boolean')
      f.error('[document].provisional must be a boolean', ['document', 'provisional']);
    const i = document.issuer;
    if (!isTable(i) || !nonEmpty(i.name) || !nonEmpty(i.role))
      f.error(`[document].issuer must be a table {name, role} of non-empty strings, got ${q(i)}`, [
        'document',
        'issuer',
      ]);
    else {
      issuer = { name: i.name, role: i.role };
      if (spec.authority === undefined)
        f.error('the specification names no [acceptance].authority: nobody may decide', ['document', 'issuer']);
      else if (i.name !== spec.authority)
        f.error(`[document].issuer.name ${q(i.name)} is not the specification's authority ${q(spec.authority)}`, [
          'document',
          'issuer',
        ]);
    }
  }

  // Self-acceptance: valid, but the decision's independence is none.
  const { producer } = parties(specDoc);
  const selfAccepted = issuer !== undefined && producer !== undefined && issuer.name === producer;
  if (selfAccepted)
    f.note(
      `self-acceptance: the issuer ${q(issuer!.name)} is also the producer; the decision's independence is none, so no requirement demanding more independence can be satisfied`,
      ['document', 'issuer'],
    );

  // [binds]: what the decision judged, recomputed from the presented files.
  const binds = table(d, 'binds');
  if (!binds) f.error('[binds] is missing: a decision must bind the specification, the package and the subject');
  else {
    const specBind = table(binds, 'specification');
    if (!specBind) f.error('[binds].specification must be a table {id, hash}', ['binds', 'specification']);
    else {
      const specId = str(table(specDoc.data, 'document'), 'id');
      if (specBind.id !== specId)
        f.error(`[binds].specification.id ${q(specBind.id)} is not the specification's id ${q(specId)}`, [
          'binds',
          'specification',
          'id',
        ]);
      stale =
        bindHash(f, specBind.hash, 'specification', specDoc, 'specification', ['binds', 'specification', 'hash']) ||
        stale;
    }
    const pkgBind = table(binds, 'package');
    if (!pkgBind) f.error('[binds].package must be a table {hash}', ['binds', 'package']);
    else stale = bindHash(f, pkgBind.hash, 'manifest', pkgDoc, 'package', ['binds', 'package', 'hash']) || stale;
    checkSubjectBind(f, table(binds, 'subject'), table(pkgDoc.data, 'subject'));
  }

  // [verification]
  const verification = table(d, 'verification');
  const mode = str(verification, 'mode');
  if (!verification) f.error('[verification] is missing');
  else if (!(VERIFICATION_MODES as readonly unknown[]).includes(mode))
    f.error(`[verification].mode must be one of ${oneOf(VERIFICATION_MODES)}, got ${q(verification.mode)}`, [
      'verification',
      'mode',
    ]);
  else if (
    spec.consumerVerification &&
    VERIFICATION_MODES.indexOf(mode as never) < VERIFICATION_MODES.indexOf(spec.consumerVerification)
  ) {
    f.error(
      `[verification].mode '${mode}' is weaker than the specification's consumer_verification '${spec.consumerVerification}'`,
      ['verification', 'mode'],
    );
  }
  const reExecuteAll = mode === 're-execute-all';
  const claimIds = new Set(pkg.format.claims.map((c) => c.id));
  const worstRun = new Map<string, string>();
  const runs = Array.isArray(verification?.run) ? (verification!.run as unknown[]) : [];
  if (verification?.run !== undefined && !Array.isArray(verification.run))
    f.error('[verification].run must be an array of tables [[verification.run]]', ['verification', 'run']);
  runs.forEach((run, i) => {
    const at: FieldPath = ['verification', 'run', i];
    if (!isTable(run)) return f.error('[[verification.run]] must be a table', at);
    const missing = ['claim', 'command', 'result', 'at'].filter((k) => !nonEmpty(run[k]));
    if (typeof run.observed !== 'string') missing.push('observed');
    if (missing.length)
      f.error(
        `[[verification.run]] ${i + 1} is incomplete: ${missing.join(', ')} missing (every run carries claim, command, observed, result and at)`,
        at,
      );
    if (nonEmpty(run.claim) && !claimIds.has(run.claim))
      f.error(`[[verification.run]] names claim ${q(run.claim)}, which is not a claim of the package`, [
        ...at,
        'claim',
      ]);
    if (run.result !== undefined && !(RUN_RESULTS as readonly unknown[]).includes(run.result))
      f.error(`[[verification.run]].result must be one of ${oneOf(RUN_RESULTS)}, got ${q(run.result)}`, [
        ...at,
        'result',
      ]);
    if (run.at !== undefined && !isRfc3339(run.at))
      f.error(`[[verification.run]].at must be an RFC 3339 date-time, got ${q(run.at)}`, [...at, 'at']);
    if (nonEmpty(run.claim) && typeof run.result === 'string' && run.result in RUN_RANK) {
      const prev = worstRun.get(run.claim);
      if (prev === undefined || RUN_RANK[run.result]! > RUN_RANK[prev]!) worstRun.set(run.claim, run.result);
    }
  });

  // [[condition]]
  const conditions = tables(d, 'condition');
  const conditionIds = new Map<string, Table>();
  if (
    d.condition !== undefined &&
    (!Array.isArray(d.condition) || conditions.length !== (d.condition as unknown[]).length)
  )
    f.error('[[condition]] must be an array of tables', ['condition']);
  conditions.forEach((c, i) => {
    const at: FieldPath = ['condition', i];
    const missing = ['id', 'requirement', 'statement', 'owner'].filter((k) => !nonEmpty(c[k]));
    if (missing.length) f.error(`[[condition]] ${i + 1} is incomplete: ${missing.join(', ')} missing`, at);
    if (nonEmpty(c.id)) {
      if (conditionIds.has(c.id)) f.error(`condition id ${q(c.id)} is used twice`, [...at, 'id']);
      conditionIds.set(c.id, c);
    }
    if (parseIsoDate(c.due) === undefined)
      f.error(`condition ${q(c.id)}: due must be a YYYY-MM-DD date, got ${q(c.due)}`, [...at, 'due']);
    if (nonEmpty(c.owner) && !(CONDITION_OWNERS as readonly string[]).includes(c.owner))
      f.error(`condition ${q(c.id)}: owner must be one of ${oneOf(CONDITION_OWNERS)}, got ${q(c.owner)}`, [
        ...at,
        'owner',
      ]);
  });

  // [[disposition]]: exactly one per requirement.
  const requirements = new Map(spec.requirements.map((r) => [r.id, r]));
  const coverage = new Map(pkg.coverage.requirements.map((c) => [c.requirement, c]));
  const dispositions = new Map<string, { t: Table; i: number }>();
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

  const deviations = tables(pkgDoc.data, 'deviation');
  for (const [id, { t, i }] of dispositions) {
    const req = requirements.get(id)!;
    judgeDisposition(f, {
      req,
      t,
      i,
      cov: coverage.get(id),
      pkg,
      worstRun,
      conditionIds,
      reExecuteAll,
      selfAccepted,
      deviations,
      authority: spec.authority,
      issuer,
    });
  }

  // Conditions bind to conditional, waived or insufficient-evidence mandatory requirements.
  conditions.forEach((c, i) => {
    const r = str(c, 'requirement');
    if (!nonEmpty(r)) return;
    const req = requirements.get(r);
    const status = str(dispositions.get(r)?.t, 'status');
    if (!req)
      f.error(`condition ${q(c.id)} names requirement ${q(r)}, which the specification does not have`, [
        'condition',
        i,
        'requirement',
      ]);
    else if (!req.mandatory)
      f.error(
        `condition ${q(c.id)} is on optional requirement ${q(r)}: conditions bind only to mandatory requirements`,
        ['condition', i, 'requirement'],
      );
    else if (status !== undefined && !['satisfied-with-conditions', 'waived', 'insufficient-evidence'].includes(status))
      f.error(
        `condition ${q(c.id)} is on requirement ${q(r)}, dispositioned ${q(status)}: a condition belongs to a satisfied-with-conditions, waived or insufficient-evidence requirement`,
        ['condition', i, 'requirement'],
      );
  });

  // The verdict table, from mandatory dispositions only.
  const mandatory = spec.requirements.filter((r) => r.mandatory);
  const statuses = mandatory.map((r) => str(dispositions.get(r.id)?.t, 'status'));
  if (statuses.every((s): s is string => s !== undefined)) {
    const table_ = tableVerdict(
      statuses,
      conditions.map((c) => ({ owner: str(c, 'owner') })),
    );
    const recorded = str(document, 'verdict');
    if (table_.verdict === undefined) f.error(`invalid decision: ${table_.reason}`, ['document', 'verdict']);
    else if (recorded !== undefined && recorded !== table_.verdict)
      f.error(
        `[document].verdict ${q(recorded)} does not follow from the dispositions: the verdict table gives '${table_.verdict}' (row ${table_.row}: ${table_.reason})`,
        ['document', 'verdict'],
      );
    if (table_.verdict !== undefined) coherence(f, table_.verdict, mandatory, dispositions, conditionIds);
  }

  // [validity]
  const validity = d.validity;
  if (validity !== undefined) {
    if (!isTable(validity)) f.error('[validity] must be a table', ['validity']);
    else if (validity.stale_after !== undefined && parseIsoDate(validity.stale_after) === undefined)
      f.error(`[validity].stale_after must be a YYYY-MM-DD date, got ${q(validity.stale_after)}`, [
        'validity',
        'stale_after',
      ]);
  }

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

/** Checks a bound hash; returns true when it is well formed but no longer matches (stale). */
function bindHash(f: Findings, value: unknown, domain: M11Domain, doc: Doc, what: string, at: FieldPath): boolean {
  if (typeof value === 'string' && /^sha-512:[0-9a-f]{128}$/.test(value)) {
    f.error(`${at.join('.')} uses the retired bare form 'sha-512:<hex>': write '${domain}:sha-512:<hex>'`, at);
    return false;
  }
  const parsed = parseM11(value);
  if (!parsed) {
    f.error(`${at.join('.')} must be '${domain}:sha-512:<128 lowercase hex>', got ${q(value)}`, at);
    return false;
  }
  if (parsed.domain !== domain) {
    f.error(`${at.join('.')} is in domain '${parsed.domain}'; a ${what} binds in domain '${domain}'`, at);
    return false;
  }
  const now = m11Digest(domain, doc.bytes);
  if (now === value) return false;
  f.error(
    `${STALE}: the ${what} ${doc.file} changed since the decision (bound and presented digests ${digestsDiffer(value as string, now)})`,
    at,
  );
  return true;
}

/** `[binds].subject` is `{commit}` or `{digest}`, the same form and value as the package's subject identity. */
function checkSubjectBind(f: Findings, bind: Table | undefined, subject: Table | undefined): void {
  const at: FieldPath = ['binds', 'subject'];
  if (subject?.dirty === true)
    f.error(
      'the package subject is dirty (dirty = true): a dirty subject cannot be decided on; commit it and issue a package for the commit',
      at,
    );
  const pkgCommit = str(subject, 'commit');
  const pkgDigest = str(subject, 'digest');
  if (pkgCommit === undefined && pkgDigest === undefined) {
    f.error('the package subject has no certified identity (commit or digest): there is nothing to decide on', at);
    return;
  }
  if (!bind) return f.error('[binds].subject must be a table {commit} or {digest}', at);
  const keys = ['commit', 'digest'].filter((k) => bind[k] !== undefined);
  if (keys.length !== 1)
    return f.error(
      `[binds].subject must carry exactly one of commit, digest; got ${keys.length ? keys.join(' and ') : 'neither'}`,
      at,
    );
  const want = pkgCommit !== undefined ? { key: 'commit', value: pkgCommit } : { key: 'digest', value: pkgDigest! };
  if (keys[0] !== want.key)
    return f.error(`[binds].subject binds a ${keys[0]}, but the package subject is identified by its ${want.key}`, at);
  if (bind[want.key] !== want.value)
    f.error(
      `[binds].subject.${want.key} ${q(bind[want.key])} is not the package subject's ${want.key} ${q(want.value)}`,
      [...at, want.key],
    );
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

  // basis: claim ids of the package that answer this requirement.
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
  // cited conditions
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

  if (accepting) {
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

/**
 * The reverse coherence rules: under accepted-with-conditions every mandatory waiver carries its own
 * remedy condition; under evidence-requested every mandatory insufficient-evidence requirement cites
 * a producer-owned condition asking for that evidence.
 */
function coherence(
  f: Findings,
  verdict: string,
  mandatory: RequirementView[],
  dispositions: Map<string, { t: Table; i: number }>,
  conditionIds: Map<string, Table>,
): void {
  for (const r of mandatory) {
    const disp = dispositions.get(r.id);
    if (!disp) continue;
    const status = str(disp.t, 'status');
    const cited = (Array.isArray(disp.t.conditions) ? (disp.t.conditions as unknown[]) : [])
      .map((c) => conditionIds.get(String(c)))
      .filter((c): c is Table => c !== undefined && c.requirement === r.id);
    if (verdict === 'accepted-with-conditions' && status === 'waived' && cited.length === 0)
      f.error(
        `disposition ${q(r.id)}: a mandatory waiver under accepted-with-conditions needs its own condition (cite it in conditions)`,
        ['disposition', disp.i, 'conditions'],
      );
    if (
      verdict === 'evidence-requested' &&
      status === 'insufficient-evidence' &&
      !cited.some((c) => c.owner === 'producer')
    )
      f.error(
        `disposition ${q(r.id)}: under evidence-requested it must cite a producer-owned condition asking for the evidence`,
        ['disposition', disp.i, 'conditions'],
      );
  }
}
