/**
 * The words every result is described in, spelled once: receipts, gate items, rule results, formal
 * outcomes and evidence bundles all take their types from these schemas.
 */
import * as v from 'valibot';

/** What an attempt concluded. */
export const OutcomeSchema = v.picklist(['PASS', 'FAIL', 'BLOCKED']);
export type Outcome = v.InferOutput<typeof OutcomeSchema>;

/** What the outcome says about the property checked: `unknown` when nothing was decided. */
export const ClaimSchema = v.picklist(['established', 'refuted', 'unknown']);
export type Claim = v.InferOutput<typeof ClaimSchema>;

/**
 * How strongly a result is known: `empirical` (a command's exit code), `finite_model` (an exhaustive
 * comparison of finite models), `kernel_proof` (a proof checked by a proof assistant's kernel),
 * `trusted_engine` (a verifier whose engine is trusted, not a kernel).
 */
export const AssuranceSchema = v.picklist(['empirical', 'finite_model', 'kernel_proof', 'trusted_engine']);
export type Assurance = v.InferOutput<typeof AssuranceSchema>;
