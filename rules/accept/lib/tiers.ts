/**
 * Epistemic tiers and the evidence families whose ceilings they are (acceptance-details.md §2).
 * A record may not claim a tier above its family's ceiling; a record without `epistemic_tier`
 * sits at its family's ceiling; a claim's tier is its strongest passing record's. Pure.
 */
import { TIERS, type Tier } from './model.js';

/** The family whose ceiling each tier is. `reference` (evidence citing another package) has no
 * ceiling of its own: its tier is derived from the cited package. */
export const FAMILY_CEILING: Readonly<Record<string, Tier>> = {
  kernel: 'T1',
  bmc: 'T2',
  'smt-refinement': 'T2',
  'finite-model': 'T2',
  dynamic: 'T3',
  mechanical: 'T4',
  judgment: 'T5',
};

export const REFERENCE_FAMILY = 'reference';

/** Families that reason over a symbolic domain: a weighted `contract` claim needs one (weight rule 5). */
export const SYMBOLIC_FAMILIES: readonly string[] = ['kernel', 'bmc', 'smt-refinement', 'finite-model'];

export const isTier = (v: unknown): v is Tier => typeof v === 'string' && (TIERS as readonly string[]).includes(v);

/** 0 for T1 (strongest) .. 4 for T5. */
export const tierRank = (t: Tier): number => TIERS.indexOf(t);

/** The stronger of two tiers (T1 beats T2). */
const stronger = (a: Tier, b: Tier): Tier => (tierRank(a) <= tierRank(b) ? a : b);

/** The weaker of two tiers: a declared tier capped by a ceiling. */
export const weaker = (a: Tier, b: Tier): Tier => (tierRank(a) >= tierRank(b) ? a : b);

/**
 * A record's effective tier: its declared tier (or the ceiling when it declares none), never
 * stronger than its family's ceiling. Undefined for an unknown family (the validator reports it).
 */
export function recordTier(family: string | undefined, declared: Tier | undefined): Tier | undefined {
  const ceiling = family ? FAMILY_CEILING[family] : undefined;
  if (!ceiling) return undefined;
  return declared ? weaker(declared, ceiling) : ceiling;
}

/** The strongest tier among passing records; undefined when no record passes with a tier. */
export function claimTier(records: readonly { result?: string; tier?: Tier }[]): Tier | undefined {
  let best: Tier | undefined;
  for (const r of records) if (r.result === 'pass' && r.tier) best = best ? stronger(best, r.tier) : r.tier;
  return best;
}
