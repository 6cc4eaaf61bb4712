/**
 * `vkit.evidence/1`: the manifest of an evidence bundle. It binds the job, the frozen source
 * capture, the recorded outcome, the obligations, the checker and every artifact to digests, and
 * lists every other entry of the bundle with its size and digest.
 *
 * The manifest is derived entirely from the bundle's other entries (plus whether assets were asked
 * for), so a reader rebuilds it and requires byte equality: any byte changed in the manifest, or
 * any entry that disagrees with it, is refused. That is integrity relative to whatever the reader
 * already trusts, never authentication: anyone can write a consistent bundle, which is why replay
 * runs the check again and never takes the recorded outcome.
 */
import * as v from 'valibot';
import { ClaimSchema as Claim, OutcomeSchema as Outcome } from '../config/evidence-terms.js';
import { sha256Field } from '../config/schema.js';
import { canonicalJson } from '../hash/index.js';
import { CheckerSchema, type Receipt } from '../store/receipt.js';

const BUNDLE_SCHEMA = 'vkit.evidence/1';

/** Said by every export and replay, in text and JSON. */
export const INTEGRITY_NOTE =
  'Hashes give integrity relative to trusted state; they do not authenticate whoever wrote the bundle or prove the checker sound. Replay runs the check again and never accepts the recorded outcome.';

export const MANIFEST_ENTRY = 'manifest.json';
export const JOB_ENTRY = 'job.json';
export const RECEIPT_ENTRY = 'receipt.json';
export const artifactEntry = (sha256: string) => `artifacts/${sha256.replace(/^sha256:/, '')}`;

const Size = v.pipe(v.number(), v.integer(), v.minValue(0));
const EntrySchema = v.strictObject({ name: v.string(), sha256: sha256Field, size: Size });

/** One capsule entry: which asset it is, its size and digest (and a tool tree's file count). */
const CapsuleEntrySchema = v.strictObject({
  name: v.string(),
  role: v.picklist(['image', 'archive', 'tool-tree']),
  sha256: sha256Field,
  size: Size,
  files: v.optional(Size),
});

/**
 * Formal profile assets (the worker image by id, archives, expanded tool trees) carried in a
 * capsule (src/evidence/capsule.ts). Registered checks, comparisons and acceptance items have none.
 */
const CapsuleSchema = v.strictObject({
  profile: v.string(),
  kind: v.literal('formal-assets'),
  /** The exact worker image id the run used; identity is this id plus the tool-tree digest, never a tag. */
  image: sha256Field,
  /** The reference the profile looks the image up by, tagged after restore only where it is absent. */
  image_ref: v.nullable(v.string()),
  /** The tool-tree digest the lock accepted (the run's checker digest). */
  checker_sha256: sha256Field,
  tool_paths: v.array(v.string()),
  entries: v.array(CapsuleEntrySchema),
  sha256: sha256Field,
});

const ManifestSchema = v.strictObject({
  schema: v.literal(BUNDLE_SCHEMA),
  run: v.string(),
  label: v.string(),
  kind: v.string(),
  job: v.strictObject({ key: sha256Field, sha256: sha256Field }),
  receipt: v.strictObject({ sha256: sha256Field }),
  source: v.strictObject({ capture: sha256Field, files: Size }),
  outcome: v.strictObject({ outcome: Outcome, claim: Claim, reason: v.nullable(v.string()) }),
  obligations: v.array(v.strictObject({ id: v.string(), outcome: Outcome, claim: Claim })),
  checker: v.nullable(CheckerSchema),
  artifacts: v.array(EntrySchema),
  entries: v.array(EntrySchema),
  assets: v.strictObject({ requested: v.boolean(), capsules: v.array(CapsuleSchema) }),
  integrity: v.string(),
});

export type BundleManifest = v.InferOutput<typeof ManifestSchema>;
export type BundleEntry = v.InferOutput<typeof EntrySchema>;
export type Capsule = v.InferOutput<typeof CapsuleSchema>;

/** Every part the manifest is derived from. */
export interface ManifestParts {
  receipt: Receipt;
  receiptSha256: string;
  job: { key: string; sha256: string };
  /** Every entry except the manifest, in bundle order. */
  entries: BundleEntry[];
  assets: { requested: boolean; capsules: Capsule[] };
}

/** The manifest for these parts (pure). */
export function buildManifest(p: ManifestParts): BundleManifest {
  const r = p.receipt;
  return {
    schema: BUNDLE_SCHEMA,
    run: r.run,
    label: r.label,
    kind: r.kind,
    job: p.job,
    receipt: { sha256: p.receiptSha256 },
    source: { capture: r.capture.digest, files: r.capture.files.length },
    outcome: { outcome: r.outcome, claim: r.claim, reason: r.reason },
    obligations: r.obligations,
    checker: r.checker,
    artifacts: r.artifacts.map((a) => ({ name: a.name, sha256: a.sha256, size: a.size })),
    entries: p.entries,
    assets: p.assets,
    integrity: INTEGRITY_NOTE,
  };
}

/** The manifest's bytes: canonical JSON, so the same parts always give the same bytes. */
export function manifestBytes(m: BundleManifest): Buffer {
  return Buffer.from(canonicalJson(m), 'utf8');
}

/** Parses manifest bytes strictly: UTF-8, JSON, the schema. Returns the problem as a string. */
export function parseManifest(bytes: Buffer): BundleManifest | string {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return 'is not valid UTF-8';
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return `is not JSON (${(error as Error).message})`;
  }
  const parsed = v.safeParse(ManifestSchema, data);
  if (!parsed.success) {
    const first = parsed.issues[0]!;
    return `is not a ${BUNDLE_SCHEMA} manifest (${v.getDotPath(first) ?? '(root)'}: ${first.message})`;
  }
  return parsed.output;
}
