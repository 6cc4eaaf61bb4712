/**
 * The decision verdict table (acceptance-details.md §3, "Decision"): the verdict is a function of
 * the MANDATORY dispositions and of the decision's conditions only, first matching row wins.
 * Pure: the decision checker compares the recorded verdict with this one, and `decide` writes it.
 */

export const DISPOSITION_STATUSES = [
  'satisfied',
  'satisfied-with-conditions',
  'unsatisfied',
  'waived',
  'insufficient-evidence',
  'not-applicable',
] as const;
export type DispositionStatus = (typeof DISPOSITION_STATUSES)[number];

export const DECISION_VERDICTS = ['accepted', 'accepted-with-conditions', 'evidence-requested', 'rejected'] as const;
type DecisionVerdict = (typeof DECISION_VERDICTS)[number];

/** Who must act on a condition; `producer` conditions are what row 2 asks for. */
export const CONDITION_OWNERS = ['producer', 'consumer', 'verifier'] as const;

export interface TableVerdict {
  /** Undefined when no row matches: the decision is invalid. */
  verdict?: DecisionVerdict;
  /** The row that matched (1-4), or undefined. */
  row?: 1 | 2 | 3 | 4;
  /** Why the row matched, or why none did (used in messages). */
  reason: string;
}

const CONDITIONAL_OK = new Set<string>(['satisfied', 'satisfied-with-conditions', 'waived']);

/**
 * `mandatory`: the statuses of the mandatory requirements' dispositions (any order, duplicates
 * allowed). `conditions`: the owner of every `[[condition]]` of the decision.
 *
 * Rows: 1 any unsatisfied -> rejected; 2 any insufficient-evidence and at least one producer-owned
 * condition -> evidence-requested; 3 all in {satisfied, satisfied-with-conditions, waived}, not all
 * satisfied, at least one condition -> accepted-with-conditions; 4 all satisfied, no condition ->
 * accepted. Anything else (e.g. all satisfied but conditions present, a waiver without any
 * condition, insufficient evidence without a producer condition, a mandatory not-applicable) is an
 * invalid decision. With no mandatory requirement at all, row 4 holds vacuously when there is no
 * condition (the specification checker decides whether such a specification is acceptable).
 */
export function tableVerdict(mandatory: readonly string[], conditions: readonly { owner?: string }[]): TableVerdict {
  if (mandatory.includes('unsatisfied'))
    return { verdict: 'rejected', row: 1, reason: 'a mandatory requirement is unsatisfied' };
  const producerConditions = conditions.filter((c) => c.owner === 'producer').length;
  if (mandatory.includes('insufficient-evidence')) {
    if (producerConditions > 0)
      return {
        verdict: 'evidence-requested',
        row: 2,
        reason: 'a mandatory requirement has insufficient evidence and a producer-owned condition asks for it',
      };
    return {
      reason:
        'a mandatory requirement has insufficient evidence but no condition is owned by the producer (evidence-requested needs at least one)',
    };
  }
  const allOk = mandatory.every((s) => CONDITIONAL_OK.has(s));
  const allSatisfied = mandatory.every((s) => s === 'satisfied');
  if (allOk && !allSatisfied) {
    if (conditions.length > 0)
      return {
        verdict: 'accepted-with-conditions',
        row: 3,
        reason:
          'every mandatory requirement is satisfied, satisfied with conditions or waived, with conditions recorded',
      };
    return {
      reason:
        'mandatory requirements are satisfied with conditions or waived but the decision records no [[condition]]',
    };
  }
  if (allSatisfied) {
    if (conditions.length === 0)
      return {
        verdict: 'accepted',
        row: 4,
        reason: 'every mandatory requirement is satisfied and no condition is recorded',
      };
    return {
      reason:
        'every mandatory requirement is satisfied but the decision records conditions (a condition belongs to a conditional, waived or insufficient-evidence requirement)',
    };
  }
  const odd = [...new Set(mandatory.filter((s) => !CONDITIONAL_OK.has(s)))];
  return {
    reason: `no verdict row admits the mandatory disposition status${odd.length > 1 ? 'es' : ''} ${odd.map((s) => `'${s}'`).join(', ')}`,
  };
}
