/**
 * The last steps of judging a decision: the verdict must follow from the mandatory dispositions by
 * the verdict table (and cohere with their conditions), and `[validity]` must be well formed.
 */
import { parseIsoDate } from '../../../src/text/dates.js';
import { type DecisionState, type Disposition, q } from './decision-state.js';
import type { RequirementView } from './model.js';
import type { Findings } from './report.js';
import { isTable, str, table, type Table } from './toml.js';
import { tableVerdict } from './verdict.js';

/** The verdict table, from mandatory dispositions only; judged only once every one has a status. */
export function checkVerdict(s: DecisionState): void {
  const { f, spec, conditions, dispositions, conditionIds } = s;
  const document = table(s.d, 'document');
  const mandatory = spec.requirements.filter((r) => r.mandatory);
  const statuses = mandatory.map((r) => str(dispositions.get(r.id)?.t, 'status'));
  if (statuses.every((status): status is string => status !== undefined)) {
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
}

/** `[validity]`: when present, a table whose stale_after is a date. */
export function checkValidity(s: DecisionState): void {
  const { f } = s;
  const validity = s.d.validity;
  if (validity !== undefined) {
    if (!isTable(validity)) f.error('[validity] must be a table', ['validity']);
    else if (validity.stale_after !== undefined && parseIsoDate(validity.stale_after) === undefined)
      f.error(`[validity].stale_after must be a YYYY-MM-DD date, got ${q(validity.stale_after)}`, [
        'validity',
        'stale_after',
      ]);
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
  dispositions: Map<string, Disposition>,
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
