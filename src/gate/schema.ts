/** valibot schema of `vkit.gate/1`, the published contract of `vkit gate --json`. */
import * as v from 'valibot';

const GateItemSchema = v.object({
  id: v.string(),
  required: v.boolean(),
  status: v.picklist(['PASS', 'FAIL', 'BLOCKED', 'MISSING', 'STALE']),
  reason: v.string(),
  run: v.nullable(v.string()),
  receipt: v.optional(v.nullable(v.string())),
  /** How strongly the evidence is known (from its receipt). */
  assurance: v.optional(v.picklist(['empirical', 'finite_model', 'kernel_proof', 'trusted_engine'])),
  /** When the evidence's attempt ended (ISO time), for a "last run" age. */
  ended_at: v.optional(v.nullable(v.string())),
  /** What a reader should know that does not change the status (inputs differing in line endings only from those the evidence's check read). */
  notes: v.optional(v.array(v.string())),
});

export const GateSchema = v.object({
  schema: v.literal('vkit.gate/1'),
  status: v.picklist(['READY', 'REJECTED', 'BLOCKED']),
  reason: v.string(),
  items: v.array(GateItemSchema),
});
