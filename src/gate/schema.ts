/** valibot schema of `vkit.gate/1`, the published contract of `vkit gate --json`. */
import * as v from 'valibot';
import { AssuranceSchema } from '../config/evidence-terms.js';

/** The gate's verdict: READY only when every required item passes. */
const GateStatusSchema = v.picklist(['READY', 'REJECTED', 'BLOCKED']);
/** One item's state: its evidence's outcome, or why there is none that stands (MISSING, STALE). */
const ItemStatusSchema = v.picklist(['PASS', 'FAIL', 'BLOCKED', 'MISSING', 'STALE']);

const GateItemSchema = v.object({
  /** `check:<id>`, `formal:<id>`, ... */
  id: v.string(),
  required: v.boolean(),
  status: ItemStatusSchema,
  reason: v.string(),
  run: v.nullable(v.string()),
  receipt: v.optional(v.nullable(v.string())),
  /** How strongly the evidence is known (from its receipt). */
  assurance: v.optional(AssuranceSchema),
  /** When the evidence's attempt ended (ISO time), for a "last run" age. */
  ended_at: v.optional(v.nullable(v.string())),
  /** What a reader should know that does not change the status (inputs differing in line endings only from those the evidence's check read). */
  notes: v.optional(v.array(v.string())),
});

export const GateSchema = v.object({
  schema: v.literal('vkit.gate/1'),
  status: GateStatusSchema,
  reason: v.string(),
  items: v.array(GateItemSchema),
});

export type GateStatus = v.InferOutput<typeof GateStatusSchema>;
export type ItemStatus = v.InferOutput<typeof ItemStatusSchema>;
export type GateItem = v.InferOutput<typeof GateItemSchema>;
export type Gate = v.InferOutput<typeof GateSchema>;
