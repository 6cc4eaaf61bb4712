/**
 * The format validator's check of one `[[claim]]`: its fields, how its status, grade and evidence
 * cohere, its `self_verify`, and whether the weight it asks for is granted.
 */
import { COMMIT, type Ctx, nonempty, show, unknownKeys } from './format-context.js';
import { checkEvidence } from './format-evidence.js';
import { KEYS } from './format-keys.js';
import type { ClaimView, EvidenceView, SelfVerify } from './model.js';
import type { Finding } from './report.js';
import { claimTier } from './tiers.js';
import { isTable, str, table, type FieldPath, type Table } from './toml.js';
import { CLAUSE_SOURCES, GRADES, validBounds, watchedFailProblems, weightRefusals } from './weight.js';

const STATUSES = ['evidenced', 'partial', 'gap', 'parked', 'blocked', 'not-applicable'] as const;
/** Statuses that say no check succeeded: no evidence, and the field that says why. */
export const REASON_FIELD: Readonly<Record<string, string>> = {
  gap: 'gap_reason',
  parked: 'parked_reason',
  blocked: 'blocked_by',
  'not-applicable': 'applicability_reason',
};
/** Which grades each status may carry (a gap cannot be a proof). */
const COHERENT: Readonly<Record<string, readonly string[]>> = {
  evidenced: ['contract', 'probe', 'test-only', 'mechanical', 'inspection-argued', 'ungraded'],
  partial: ['contract', 'probe', 'test-only', 'mechanical', 'inspection-argued', 'ungraded'],
  gap: ['not-covered', 'out-of-scope', 'unspecified', 'ungraded'],
  parked: ['not-covered', 'out-of-scope', 'unspecified', 'ungraded'],
  blocked: ['not-covered', 'out-of-scope', 'unspecified', 'ungraded'],
  'not-applicable': ['out-of-scope'],
};
const STREAMS = ['stdout', 'stderr', 'combined'];

export async function checkClaim(ctx: Ctx, c: Table, i: number, seen: Set<string>): Promise<ClaimView> {
  const f = ctx.f;
  const findingsBefore = f.list.length;
  const at = (...k: (string | number)[]): FieldPath => ['claim', i, ...k];
  const id = nonempty(c.id) ? c.id : undefined;
  const label = id ? `claim '${id}'` : `claim[${i}]`;
  unknownKeys(ctx, c, ['claim', i], KEYS.claim, label);

  if (!id) f.error(`${label}: id must be a nonempty string`, at('id'));
  else if (seen.has(id))
    f.error(
      `${label}: duplicate claim id (ids are unique and never reused; a replacement takes a new id and supersedes)`,
      at('id'),
    );
  if (id) seen.add(id);
  for (const k of ['clause', 'statement'])
    if (!nonempty(c[k])) f.error(`${label}: ${k} must be a nonempty string`, at(k));
  for (const k of ['item', 'scope_ref'])
    if (c[k] !== undefined && !nonempty(c[k])) f.error(`${label}: ${k} must be a nonempty string when present`, at(k));
  if (c.supersedes !== undefined && (!nonempty(c.supersedes) || c.supersedes === id))
    f.error(`${label}: supersedes must name the id of the claim this one replaces`, at('supersedes'));
  if (
    c.captured_at_commit !== undefined &&
    !(typeof c.captured_at_commit === 'string' && COMMIT.test(c.captured_at_commit))
  )
    f.error(`${label}: captured_at_commit must be 40 lowercase hex characters`, at('captured_at_commit'));

  const status =
    typeof c.status === 'string' && (STATUSES as readonly string[]).includes(c.status) ? c.status : undefined;
  if (!status) f.error(`${label}: status must be one of ${STATUSES.join(', ')}, got ${show(c.status)}`, at('status'));
  const weighted = c.weight === 'weighted';
  if (c.weight !== undefined && c.weight !== 'weighted' && c.weight !== 'unweighted')
    f.error(
      `${label}: weight must be weighted or unweighted (absent means unweighted), got ${show(c.weight)}`,
      at('weight'),
    );

  const grade = typeof c.grade === 'string' && (GRADES as readonly string[]).includes(c.grade) ? c.grade : undefined;
  if (c.grade !== undefined && !grade)
    f.error(`${label}: grade must be one of ${GRADES.join(', ')}, got ${show(c.grade)}`, at('grade'));
  else if (c.grade === undefined && status !== 'not-applicable')
    f.error(`${label}: grade is required (one of ${GRADES.join(', ')})`, at());
  if (status && grade && !COHERENT[status]!.includes(grade)) {
    const msg = `${label}: status '${status}' does not cohere with grade '${grade}' (allowed at this status: ${COHERENT[status]!.join(', ')})`;
    if (weighted) f.error(msg, at('grade'));
    else f.warn(msg, at('grade'));
  }
  if (c.bounds !== undefined && !validBounds(c.bounds))
    f.error(
      `${label}: bounds must start with 'bounded' or 'unbounded' and then say what the limit was (e.g. 'bounded: 5 concrete input strings'), got ${show(c.bounds)}`,
      at('bounds'),
    );
  if (c.clause_source !== undefined) {
    if (typeof c.clause_source !== 'string' || !(CLAUSE_SOURCES as readonly string[]).includes(c.clause_source))
      f.error(
        `${label}: clause_source must be one of ${CLAUSE_SOURCES.join(', ')}, got ${show(c.clause_source)}`,
        at('clause_source'),
      );
    else if (c.clause_source === 'test-name')
      f.warn(
        `${label}: clause_source 'test-name': the clause and its evidence are the same artifact, so the test can never fail the requirement`,
        at('clause_source'),
      );
  }

  // Evidence and reasons by status.
  const rawEvidence = c.evidence;
  if (rawEvidence !== undefined && !Array.isArray(rawEvidence))
    f.error(`${label}: evidence must be an array of [[claim.evidence]] tables`, at('evidence'));
  const evList = Array.isArray(rawEvidence) ? rawEvidence : [];
  if (status === 'evidenced' || status === 'partial') {
    if (evList.length === 0)
      f.error(`${label}: status '${status}' needs at least one [[claim.evidence]] record`, at('status'));
  } else if (status) {
    if (evList.length > 0) f.error(`${label}: status '${status}' must have no evidence records`, at('evidence'));
    const reason = REASON_FIELD[status]!;
    if (!nonempty(c[reason])) f.error(`${label}: status '${status}' needs a nonempty ${reason}`, at('status'));
  }
  for (const [st, field] of Object.entries(REASON_FIELD))
    if (c[field] !== undefined && status !== st) f.error(`${label}: ${field} belongs to status '${st}'`, at(field));
  if (status === 'not-applicable' && weighted)
    f.error(`${label}: a not-applicable claim cannot ask for weight`, at('weight'));

  const selfVerify = checkSelfVerify(ctx, c, i, label);
  const evidence: EvidenceView[] = [];
  for (let j = 0; j < evList.length; j++) {
    const e = evList[j];
    if (!isTable(e)) {
      f.error(`${label} evidence[${j}] must be a table`, at('evidence', j));
      continue;
    }
    evidence.push(await checkEvidence(ctx, e, i, j, id, label));
  }

  const refusals = weightRefusals(c, evidence);
  const ownErrors = f.list.slice(findingsBefore).filter((x) => x.level === 'ERROR');
  for (const reason of refusals) {
    const msg = `${label}: WEIGHT REFUSED: ${reason}`;
    if (ctx.opts.strictWeight) f.error(msg, at('weight'));
    else f.warn(msg, at('weight'));
  }
  const sv = table(c, 'self_verify');
  const witnessed =
    (sv !== undefined && watchedFailProblems(sv).length === 0) || evidence.some((e) => e.witnessControl);
  return {
    index: i,
    id: id ?? `claim[${i}]`,
    clause: str(c, 'clause'),
    status: status ?? String(c.status),
    grade,
    weightRequested: weighted,
    // A claim with any error of its own is never weighted, whatever the rules say; the reason names the error.
    weightGranted: weighted && refusals.length === 0 && ownErrors.length === 0,
    weightRefusals: weighted && ownErrors.length ? [...refusals, ownErrorReason(ownErrors, label)] : refusals,
    tier: claimTier(evidence),
    evidence,
    witnessed,
    selfVerify,
  };
}

/** `the claim has an error of its own (line 27): unknown key 'x' (...) (and 1 more)`, the message without the claim's label. */
function ownErrorReason(errors: Finding[], label: string): string {
  const first = errors[0]!;
  const message = first.message.startsWith(label)
    ? first.message.slice(label.length).replace(/^:?\s*/, '')
    : first.message;
  return `the claim has an error of its own${first.line ? ` (line ${first.line})` : ''}: ${message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
}

function checkSelfVerify(ctx: Ctx, c: Table, i: number, label: string): SelfVerify | undefined {
  const raw = c.self_verify;
  if (raw === undefined) return undefined;
  const at = (...k: string[]): FieldPath => ['claim', i, 'self_verify', ...k];
  if (!isTable(raw)) {
    ctx.f.error(`${label}: self_verify must be a [claim.self_verify] table`, at());
    return undefined;
  }
  unknownKeys(ctx, raw, at(), KEYS.self_verify, `${label} self_verify`);
  for (const k of ['command', 'expect', 'expect_stream', 'positive_control'])
    if (raw[k] !== undefined && typeof raw[k] !== 'string')
      ctx.f.error(`${label}: self_verify.${k} must be a string`, at(k));
  const command = str(raw, 'command');
  const expect = str(raw, 'expect');
  if (command !== undefined && !command.trim())
    ctx.f.error(`${label}: self_verify.command must be nonempty`, at('command'));
  if (command?.trim() && !expect)
    ctx.f.error(`${label}: self_verify.command needs self_verify.expect: the output that means pass`, at('expect'));
  if (expect !== undefined && command === undefined)
    ctx.f.error(`${label}: self_verify.expect without a command`, at('expect'));
  const stream = raw.expect_stream ?? 'stdout';
  if (!STREAMS.includes(stream as string))
    ctx.f.error(
      `${label}: self_verify.expect_stream must be one of ${STREAMS.join(', ')} (default stdout), got ${show(raw.expect_stream)}`,
      at('expect_stream'),
    );
  if (raw.positive_control !== undefined && !nonempty(raw.positive_control))
    ctx.f.error(`${label}: self_verify.positive_control must be nonempty when present`, at('positive_control'));
  if (raw.watched_fail !== undefined) {
    for (const p of watchedFailProblems(raw))
      ctx.f.error(`${label}: ${p.message}`, p.key ? at('watched_fail', p.key) : at('watched_fail'));
  }
  if (!command?.trim() || !expect) return undefined;
  return {
    command,
    expect,
    expect_stream: STREAMS.includes(stream as string) ? (stream as SelfVerify['expect_stream']) : 'stdout',
    ...(nonempty(raw.positive_control) ? { positive_control: raw.positive_control } : {}),
  };
}
