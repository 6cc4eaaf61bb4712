/**
 * `vkit.receipt/1`: what one attempt established, bound to everything that identifies it. Written to
 * the CAS only after every artifact it names is there (invariant 1). Holds environment variable
 * names only, never values or their digests.
 */
import * as v from 'valibot';
import { AssuranceSchema, ClaimSchema as Claim, OutcomeSchema as Outcome } from '../config/evidence-terms.js';
import { sha256Field } from '../config/schema.js';

const ArtifactSchema = v.object({
  name: v.string(),
  sha256: sha256Field,
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** A process log kept capped (head and tail): how many bytes of the stream were dropped between them. */
  dropped_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

export const CheckerSchema = v.object({
  tool: v.string(),
  sha256: sha256Field,
  interpreter: v.optional(sha256Field),
  shell: v.optional(sha256Field),
  toolchain: v.optional(v.string()),
});

const DepResultSchema = v.object({
  label: v.string(),
  key: sha256Field,
  outcome: Outcome,
  artifacts: v.array(v.object({ name: v.string(), sha256: sha256Field })),
});

export const ReceiptSchema = v.object({
  schema: v.literal('vkit.receipt/1'),
  label: v.string(),
  kind: v.string(),
  /** The job identity; for checks it is the action key. */
  job: sha256Field,
  key: sha256Field,
  run: v.string(),
  attempt: v.string(),
  rule: v.object({ kind: v.string(), version: v.number(), source: v.optional(sha256Field) }),
  policy_sha256: sha256Field,
  definition_sha256: sha256Field,
  definition: v.record(v.string(), v.unknown()),
  /**
   * The captured inputs. A text-mode capture (CRLF -> LF) written by this vkit also records the raw
   * bytes: `raw_digest`, the tree digest over raw bytes, and per file `raw_sha256` where it differs
   * from `sha256`. Receipts without them (older ones, raw-mode captures) stay valid.
   */
  capture: v.object({
    digest: sha256Field,
    files: v.array(
      v.object({ path: v.string(), mode: v.string(), sha256: sha256Field, raw_sha256: v.optional(sha256Field) }),
    ),
    raw_digest: v.optional(sha256Field),
  }),
  checker: v.nullable(CheckerSchema),
  deps: v.array(DepResultSchema),
  env: v.array(v.string()),
  outcome: Outcome,
  reason: v.nullable(v.string()),
  claim: Claim,
  assurance: AssuranceSchema,
  /** What the result is about beyond the captured files, e.g. both model digests of a comparison. */
  subject: v.optional(v.record(v.string(), v.unknown())),
  obligations: v.array(v.object({ id: v.string(), outcome: Outcome, claim: Claim })),
  artifacts: v.array(ArtifactSchema),
  exit_code: v.nullable(v.number()),
  /** The sandboxes that confined the attempt's processes, with their versions (not in the key: their guarantees are the same). */
  confined_by: v.optional(v.array(v.string())),
  timings: v.object({ started_at: v.string(), ended_at: v.string(), ms: v.number() }),
});

export type Receipt = v.InferOutput<typeof ReceiptSchema>;

/** Parses a receipt read from the CAS; a receipt that does not parse is treated as altered. */
export function parseReceipt(data: unknown): Receipt | undefined {
  const r = v.safeParse(ReceiptSchema, data);
  return r.success ? r.output : undefined;
}
