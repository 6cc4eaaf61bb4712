/**
 * The `[verification]` step of judging a decision: the mode (no weaker than the specification's
 * consumer_verification) and the runs, whose worst result per claim the dispositions are held to.
 */
import { isRfc3339 } from '../../../src/text/dates.js';
import { type DecisionState, nonEmpty, oneOf, q } from './decision-state.js';
import { isTable, str, table, type FieldPath } from './toml.js';

const VERIFICATION_MODES = ['package-trusted', 'spot-check', 're-execute-all'] as const;
const RUN_RESULTS = ['pass', 'fail', 'not-run', 'error'] as const;

/** The worst of several runs on one claim: fail > error > not-run > pass. */
const RUN_RANK: Record<string, number> = { pass: 0, 'not-run': 1, error: 2, fail: 3 };

/** `[verification]`: sets `reExecuteAll` and fills `worstRun`. */
export function checkVerification(s: DecisionState): void {
  const { f, d, spec, pkg, worstRun } = s;
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
  s.reExecuteAll = mode === 're-execute-all';
  const claimIds = new Set(pkg.format.claims.map((c) => c.id));
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
}
