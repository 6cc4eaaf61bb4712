/**
 * `vkit acceptance check-decision` and `vkit acceptance decide`: the I/O around the decision core.
 * Paths are relative to `root`; stores and trees arrive already absolute.
 */
import { lstatSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { invalid } from '../../../src/errors.js';
import { m11Digest } from '../../../src/hash/index.js';
import { draftDecision } from '../lib/decide.js';
import { checkDecisionFiles, checkPackage } from '../lib/recursive-checks.js';
import { parseIsoDate, todayUtc } from '../../../src/text/dates.js';
import type { DecisionCheck, DecisionContext, EffectJudgement, StackReport } from '../lib/model.js';
import { findingLine, type Finding, type Outcome } from '../lib/report.js';
import { parties } from '../lib/specification.js';
import { readDoc, str, table } from '../lib/toml.js';
import { refuseVersion03 } from '../lib/versions.js';
import { writeTarget, writeTargetFile } from '../../../src/evidence/write-target.js';

export interface CheckDecisionRequest {
  root: string;
  decision: string;
  spec: string;
  package: string;
  stores: Record<string, string>;
  trees: Record<string, string>;
  /** Judge effect; `now` defaults to today (UTC). */
  effect?: { now?: string; allowConditions?: boolean };
}

export interface DecisionCheckJson {
  schema: 'vkit.acceptance-decision-check/1';
  decision: string;
  specification: string;
  package: string;
  status: DecisionCheck['status'];
  verdict: string | null;
  issued_at: string | null;
  issuer: { name: string; role: string } | null;
  errors: number;
  warnings: number;
  findings: Finding[];
  effect: (EffectJudgement & { now: string; allow_conditions: boolean }) | null;
  stack: StackReport | null;
}

/** A malformed `--now` is a usage error (exit 2), never a silent "today". */
function effectDate(now: string | undefined): string {
  if (now === undefined) return todayUtc();
  if (parseIsoDate(now) === undefined)
    throw invalid('ERR_USAGE', `Expected --now YYYY-MM-DD (a real calendar date), got \`${now}\``, { path: '--now' });
  return now;
}

/** `DECISION STALE D: stale: renewed decision required (1 error, 0 warnings)`: check-decision's verdict line, render's headline. */
export function decisionVerdictLine(check: DecisionCheck, file: string): string {
  const counts = `${check.findings.errors} error${check.findings.errors === 1 ? '' : 's'}, ${check.findings.warnings} warning${check.findings.warnings === 1 ? '' : 's'}`;
  const by = check.issuer ? ` by ${check.issuer.name} / ${check.issuer.role}` : '';
  if (check.status === 'valid')
    return `DECISION VALID ${file}: verdict ${check.verdict}${by} at ${check.issued_at} (${counts})`;
  if (check.status === 'stale') return `DECISION STALE ${file}: stale: renewed decision required (${counts})`;
  if (check.status === 'indeterminate')
    return `DECISION INDETERMINATE ${file}: ${check.findings.indeterminateReasons.join('; ') || 'the documents at hand cannot decide it'} (${counts})`;
  return `DECISION INVALID ${file} (${counts})`;
}

/**
 * Exit codes: 0 valid whatever the verdict, 1 invalid or stale, 3 indeterminate; with effect:
 * 0 eligible, 1 ineligible, 3 indeterminate. Unreadable documents throw (exit 2).
 */
export async function checkDecision(req: CheckDecisionRequest): Promise<Outcome<DecisionCheckJson>> {
  const at = (file: string) => ({ abs: resolve(req.root, file), file });
  const effect = req.effect
    ? { now: effectDate(req.effect.now), allowConditions: req.effect.allowConditions ?? false }
    : undefined;
  const ctx: DecisionContext = { root: req.root, stores: req.stores, trees: req.trees, ...(effect ? { effect } : {}) };
  const check = await checkDecisionFiles(
    { spec: at(req.spec), package: at(req.package), decision: at(req.decision) },
    ctx,
  );

  const lines = [...check.findings.list.map(findingLine), decisionVerdictLine(check, req.decision)];
  if (check.effect)
    lines.push(
      `${check.effect.eligible ? 'EFFECT-ELIGIBLE' : check.effect.indeterminate ? 'EFFECT-INDETERMINATE' : 'EFFECT-INELIGIBLE'}: ${check.effect.reason}`,
    );

  const exitCode = check.effect
    ? check.effect.eligible
      ? 0
      : check.effect.indeterminate
        ? 3
        : 1
    : check.status === 'valid'
      ? 0
      : check.status === 'indeterminate'
        ? 3
        : 1;
  return {
    exitCode,
    lines,
    json: {
      schema: 'vkit.acceptance-decision-check/1',
      decision: req.decision,
      specification: req.spec,
      package: req.package,
      status: check.status,
      verdict: check.verdict ?? null,
      issued_at: check.issued_at ?? null,
      issuer: check.issuer ?? null,
      errors: check.findings.errors,
      warnings: check.findings.warnings,
      findings: check.findings.list,
      effect:
        check.effect && effect ? { ...check.effect, now: effect.now, allow_conditions: effect.allowConditions } : null,
      stack: check.stack ?? null,
    },
  };
}

export interface DecideRequest {
  root: string;
  package: string;
  spec: string;
  issuer: string;
  /** Defaults to the role of the party whose name is `issuer`. */
  role?: string;
  out: string;
  force?: boolean;
  id?: string;
  stores: Record<string, string>;
  trees: Record<string, string>;
}

export interface DecideJson {
  schema: 'vkit.acceptance-decide/1';
  out: string;
  written: boolean;
  verdict: string | null;
  dispositions: { requirement: string; status: string; basis: string[] }[];
  notes: string[];
  findings: Finding[];
}

/**
 * Writes a draft decision. Refuses (exit 2) an existing --out without `force`, an issuer who is not
 * the specification's authority, and an issuer whose role cannot be found; refuses (exit 1) to
 * draft on an invalid package or a dirty subject, and (exit 3) on an indeterminate package: a
 * decision on those could never be valid.
 */
export async function decide(req: DecideRequest): Promise<Outcome<DecideJson>> {
  const outAbs = resolve(req.root, req.out);
  // lstat, not exists: a dangling symlink at --out is a file there too, and is never written through.
  if (lstatSync(outAbs, { throwIfNoEntry: false }) && !req.force)
    throw invalid('ERR_USAGE', `Refusing to overwrite \`${req.out}\`: it exists (pass --force to replace it)`, {
      file: req.out,
      path: '--out',
    });
  // Never into a git directory or the store, whatever --force says.
  const target = await writeTarget(
    outAbs,
    { root: req.root },
    { arg: '--out', overwrite: true, overwriteHint: 'Pass --force to replace it.' },
  );
  const specDoc = await readDoc(resolve(req.root, req.spec), req.spec);
  const pkgDoc = await readDoc(resolve(req.root, req.package), req.package);
  refuseVersion03(specDoc);
  refuseVersion03(pkgDoc);
  const ctx: DecisionContext = { root: req.root, stores: req.stores, trees: req.trees };
  const pkg = await checkPackage(pkgDoc, specDoc, ctx);

  const authority = pkg.spec.authority;
  if (authority === undefined)
    throw invalid('ERR_USAGE', 'The specification names no [acceptance].authority: nobody may decide', {
      file: req.spec,
      path: 'acceptance.authority',
    });
  if (req.issuer !== authority)
    throw invalid('ERR_USAGE', `--issuer \`${req.issuer}\` is not the specification's authority \`${authority}\``, {
      path: '--issuer',
    });
  const party = ['consumer', 'producer']
    .map((p) => table(table(specDoc.data, 'parties'), p))
    .find((p) => str(p, 'name') === req.issuer);
  const role = req.role ?? str(party, 'role');
  if (!role) throw invalid('ERR_USAGE', `No role for issuer \`${req.issuer}\`: give --role ROLE`, { path: '--role' });

  const findings = [...pkg.findings.list];
  const refuse = (exitCode: number, why: string): Outcome<DecideJson> => ({
    exitCode,
    lines: [...findings.map(findingLine), `DECIDE REFUSED ${req.package}: ${why}; no draft written`],
    json: {
      schema: 'vkit.acceptance-decide/1',
      out: req.out,
      written: false,
      verdict: null,
      dispositions: [],
      notes: [],
      findings,
    },
  });
  if (pkg.status === 'invalid') return refuse(1, 'the package is invalid, so no decision on it can be valid');
  // Fail closed: a decision on an indeterminate package can never be valid, so no draft (not even one left unsatisfied) is written.
  if (pkg.status === 'indeterminate')
    return refuse(3, `the package check is indeterminate (${pkg.findings.indeterminateReasons.join('; ')})`);
  const subject = table(pkgDoc.data, 'subject');
  if (subject?.dirty === true)
    return refuse(1, 'the subject is dirty (dirty = true): a dirty subject cannot be decided on');
  if (str(subject, 'commit') === undefined && str(subject, 'digest') === undefined)
    return refuse(1, 'the subject has no certified identity (commit or digest)');

  const issuedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const pkgHex = m11Digest('manifest', pkgDoc.bytes).slice('manifest:sha-512:'.length, 'manifest:sha-512:'.length + 8);
  const draft = draftDecision({
    specDoc,
    pkgDoc,
    pkg,
    issuer: { name: req.issuer, role },
    producer: parties(specDoc).producer,
    id: req.id ?? `AD-${issuedAt.slice(0, 10)}-${pkgHex}`,
    issuedAt,
  });
  await mkdir(dirname(target.path), { recursive: true });
  writeTargetFile(target, draft.text, req.force === true);
  return {
    exitCode: 0,
    lines: [
      ...findings.map(findingLine),
      ...draft.notes.map((n) => `NOTE ${req.out}: ${n}`),
      `DRAFT ${req.out}: verdict ${draft.verdict} (${draft.dispositions.map((d) => `${d.requirement} ${d.status}`).join(', ')})`,
    ],
    json: {
      schema: 'vkit.acceptance-decide/1',
      out: req.out,
      written: true,
      verdict: draft.verdict,
      dispositions: draft.dispositions,
      notes: draft.notes,
      findings,
    },
  };
}
