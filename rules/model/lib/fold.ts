/**
 * A model item's outcome from its properties (pure): PASS only when every required property is
 * established; FAIL when a required property is refuted (by a witness that replayed); anything else
 * (a property unknown, none required) is BLOCKED. Optional properties are reported, never decisive.
 */
import type { Claim, Outcome } from '../../../src/config/evidence-terms.js';
import type { PropertyResult } from './types.js';

export interface ModelFold {
  outcome: Outcome;
  claim: Claim;
  reason: string;
  totals: { properties: number; established: number; refuted: number; unknown: number };
}

export function foldModel(
  results: readonly Pick<PropertyResult, 'name' | 'required' | 'claim' | 'reason'>[],
): ModelFold {
  const count = (c: Claim) => results.filter((r) => r.claim === c).length;
  const totals = {
    properties: results.length,
    established: count('established'),
    refuted: count('refuted'),
    unknown: count('unknown'),
  };
  const required = results.filter((r) => r.required);
  const named = (rs: typeof results) => rs.map((r) => `${r.name} (${r.reason})`).join('; ');
  const refuted = required.filter((r) => r.claim === 'refuted');
  if (refuted.length) return { outcome: 'FAIL', claim: 'refuted', reason: `refuted: ${named(refuted)}`, totals };
  if (required.length === 0)
    return { outcome: 'BLOCKED', claim: 'unknown', reason: 'no required property: nothing is established', totals };
  const open = required.filter((r) => r.claim !== 'established');
  if (open.length) return { outcome: 'BLOCKED', claim: 'unknown', reason: `unknown: ${named(open)}`, totals };
  return {
    outcome: 'PASS',
    claim: 'established',
    reason: `${required.length} required propert${required.length === 1 ? 'y' : 'ies'} established`,
    totals,
  };
}
