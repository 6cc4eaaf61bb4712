/** valibot schema of `vkit.build/1`, the published contract of `vkit build --json`. */
import * as v from 'valibot';
import { OutcomeSchema } from '../config/evidence-terms.js';
import { GateSchema } from '../gate/schema.js';

const ActionReportSchema = v.object({
  /** The gate label (`check:<id>`). */
  label: v.string(),
  kind: v.string(),
  key: v.nullable(v.string()),
  status: v.picklist(['ran', 'cached', 'failed', 'blocked']),
  outcome: OutcomeSchema,
  reason: v.nullable(v.string()),
  run: v.nullable(v.string()),
  receipt: v.nullable(v.string()),
  ms: v.number(),
  explain: v.optional(v.array(v.string())),
  /** Last lines of a failing or blocked action's output (added by the service). */
  tail: v.optional(v.array(v.string())),
  /** The wait ended before the run did: `run` is still going in its worker. */
  pending: v.optional(v.boolean()),
  /** What a reader of a cached result should know that does not change it (inputs differing in line endings only). */
  notes: v.optional(v.array(v.string())),
  /** The shared remote cache's part: a hit it supplied (who signed it), or an entry refused (which check failed). */
  remote: v.optional(
    v.object({
      state: v.picklist(['hit', 'refused']),
      url: v.string(),
      keyid: v.optional(v.string()),
      signer: v.optional(v.string()),
      reason: v.optional(v.string()),
    }),
  ),
});

export const BuildSchema = v.object({
  schema: v.literal('vkit.build/1'),
  actions: v.array(ActionReportSchema),
  gate: GateSchema,
  stats: v.object({
    ran: v.number(),
    cached: v.number(),
    hashed: v.number(),
    reused_hashes: v.number(),
    /** Results a remote cache supplied (counted in `cached` too); absent without a remote. */
    remote_hits: v.optional(v.number()),
    ms: v.number(),
  }),
});

export type ActionReport = v.InferOutput<typeof ActionReportSchema>;
export type BuildReport = v.InferOutput<typeof BuildSchema>;
