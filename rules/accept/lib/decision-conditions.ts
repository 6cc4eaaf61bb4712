/**
 * The `[[condition]]` steps of judging a decision: each condition's own fields, then (once the
 * dispositions are read) that it binds to a mandatory requirement whose disposition admits one.
 */
import { parseIsoDate } from '../../../src/text/dates.js';
import { type DecisionState, nonEmpty, oneOf, q } from './decision-state.js';
import { str, type FieldPath } from './toml.js';
import { CONDITION_OWNERS } from './verdict.js';

/** Each `[[condition]]` on its own; fills `conditionIds`. */
export function checkConditions(s: DecisionState): void {
  const { f, d, conditions, conditionIds } = s;
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
}

/** Conditions bind to conditional, waived or insufficient-evidence mandatory requirements. */
export function bindConditions(s: DecisionState): void {
  const { f, conditions, requirements, dispositions } = s;
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
}
