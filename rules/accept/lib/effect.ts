/**
 * Effect eligibility (acceptance-details.md §3, `check-decision --effect`): may a publish/deploy
 * gate act on this decision today? Pure over the decision's table, the specification's view and
 * the evaluation date. A decision valid as a historical record can still be ineligible for effect.
 *
 * All dates are UTC calendar dates: `issued_at` is turned into its UTC date and time parts are
 * ignored everywhere. Effect is judged at evaluation time: `now` never enters an action key.
 */
import { addDays, parseIsoDate, utcDateOf } from '../../../src/text/dates.js';
import { durationDays } from './durations.js';

import type { DecisionCheck, EffectJudgement, EffectOptions, SpecificationCheck } from './model.js';
import { str, table, tables, type Table } from './toml.js';

/**
 * `status` is the decision check's own result: only a `valid` decision can have effect (an
 * `indeterminate` one makes the effect indeterminate, never eligible). Then, all reasons collected
 * so the user sees every one: not provisional (final); `[validity] stale_after` present; within
 * issued_at + the specification's `stale_after` duration when it sets one; not expired
 * (stale_after < now; the day itself still passes); no condition lapsed (due < now); verdict
 * `accepted`, or `accepted-with-conditions` with `allowConditions`.
 */
export function judgeEffect(
  decision: Table,
  spec: SpecificationCheck,
  opts: EffectOptions,
  status: DecisionCheck['status'],
): EffectJudgement {
  if (status === 'indeterminate')
    return {
      eligible: false,
      indeterminate: true,
      reason: 'the decision cannot be checked from the documents at hand (indeterminate)',
    };
  if (status !== 'valid')
    return {
      eligible: false,
      indeterminate: false,
      reason: status === 'stale' ? 'the decision is stale: renewed decision required' : 'the decision is not valid',
    };
  const now = parseIsoDate(opts.now);
  if (now === undefined)
    return { eligible: false, indeterminate: false, reason: `--now '${opts.now}' is not a YYYY-MM-DD date` };
  const reasons: string[] = [];
  const document = table(decision, 'document');
  if (document?.provisional === true) reasons.push('the decision is provisional, not final');

  const validity = table(decision, 'validity');
  const staleAfter = validity?.stale_after;
  const until = parseIsoDate(staleAfter);
  if (staleAfter === undefined)
    reasons.push('no [validity] stale_after date: a decision without an expiry date cannot have effect');
  else if (until === undefined) reasons.push(`[validity] stale_after '${String(staleAfter)}' is not a YYYY-MM-DD date`);
  else {
    if (spec.staleAfter !== undefined) {
      const days = durationDays(spec.staleAfter);
      const issued = utcDateOf(str(document, 'issued_at') ?? '');
      if (days === undefined)
        reasons.push(`the specification's stale_after '${spec.staleAfter}' is not an ISO-8601 duration`);
      else if (issued === undefined)
        reasons.push("the decision has no RFC 3339 issued_at to measure the specification's stale_after from");
      else {
        const cap = addDays(issued, days);
        if (until > parseIsoDate(cap)!)
          reasons.push(
            `[validity] stale_after ${String(staleAfter)} is later than issued_at ${issued} + the specification's stale_after ${spec.staleAfter} (${cap})`,
          );
      }
    }
    if (until < now) reasons.push(`expired: [validity] stale_after ${String(staleAfter)} is before ${opts.now}`);
  }

  for (const c of tables(decision, 'condition')) {
    const due = parseIsoDate(c.due);
    if (due === undefined) reasons.push(`condition '${str(c, 'id') ?? '?'}' has no YYYY-MM-DD due date`);
    else if (due < now)
      reasons.push(`condition '${str(c, 'id') ?? '?'}' lapsed: due ${String(c.due)} is before ${opts.now}`);
  }

  const verdict = str(document, 'verdict');
  if (verdict === 'accepted-with-conditions') {
    if (!opts.allowConditions) reasons.push('verdict accepted-with-conditions needs --allow-conditions');
  } else if (verdict !== 'accepted') reasons.push(`verdict ${verdict ?? '(none)'} is not an acceptance`);

  if (reasons.length) return { eligible: false, indeterminate: false, reason: reasons.join('; ') };
  const conditions = tables(decision, 'condition').length;
  return {
    eligible: true,
    indeterminate: false,
    reason: `verdict ${verdict}${conditions ? ` with ${conditions} open condition${conditions > 1 ? 's' : ''}` : ''}, valid through ${String(staleAfter)} (now ${opts.now})`,
  };
}
