/**
 * The accepted-policy lock, `vkit.lock.json` at the root (committed by the user): per component the
 * digests acceptance bound (policy slice, package, checker tool tree), the profile and when it was
 * accepted. Written deterministically (sorted keys, two-space indent, final newline) so it diffs
 * well; an unchanged component keeps its `accepted_at`, so accepting twice changes nothing.
 * `compareLock` is the pure judgement every formal action makes before running.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import type { KindNode } from '../config/kind.js';
import { sha256Field } from '../config/schema.js';
import { canonicalJson } from '../hash/index.js';
import { invalid } from '../errors.js';

export const LOCK_FILE = 'vkit.lock.json';

/**
 * The one graph node a lock-bound entry (a formal component, a model, a qualification) expands into:
 * its key covers the raw bytes of `inputs` plus the lock, whose entry binds the accepted digests.
 */
export function lockBoundNode(
  prefix: string,
  rule: string,
  entry: { id: string; required: boolean },
  inputs: readonly string[],
): KindNode {
  return {
    label: `${prefix}:${entry.id}`,
    kind: rule,
    id: entry.id,
    attrs: entry as unknown as Record<string, unknown>,
    inputs: [...inputs, LOCK_FILE],
    hash: 'raw',
    required: entry.required,
    after: [],
  };
}

const LockEntrySchema = v.strictObject({
  policy_sha256: sha256Field,
  /** The pinned package's digest; none for a model item, which checks no package. */
  package_sha256: v.optional(sha256Field),
  checker_sha256: sha256Field,
  profile: v.pipe(v.string(), v.minLength(1)),
  accepted_at: v.pipe(v.string(), v.isoTimestamp('Expected an ISO 8601 timestamp')),
});

/** A writer whose signed remote evidence counts (`vkit policy trust-signer`): a reviewed change like any policy. */
const TrustedSignerSchema = v.strictObject({
  /** `sha256:` of the key's SPKI DER encoding. */
  keyid: sha256Field,
  /** The Ed25519 public key, SPKI PEM. */
  public_key: v.pipe(v.string(), v.minLength(1)),
  name: v.optional(v.string()),
  added_at: v.pipe(v.string(), v.isoTimestamp('Expected an ISO 8601 timestamp')),
});

export const LockSchema = v.strictObject({
  schema: v.literal('vkit.lock/1', 'Expected schema `vkit.lock/1`'),
  components: v.record(v.string(), LockEntrySchema),
  /** Absent until a signer is trusted, so a lock without one keeps its bytes. */
  trusted_signers: v.optional(v.array(TrustedSignerSchema)),
});

export type LockEntry = v.InferOutput<typeof LockEntrySchema>;
export type Lock = v.InferOutput<typeof LockSchema>;

export function emptyLock(): Lock {
  return { schema: 'vkit.lock/1', components: {} };
}

/** Parses lock text; a broken lock is invalid input (exit 2) naming the field. */
export function parseLock(text: string, file = LOCK_FILE): Lock {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(
      'ERR_LOCK_INVALID',
      `Invalid JSON: ${(error as Error).message}`,
      { file },
      'Restore vkit.lock.json from version control, or delete it and run `vkit policy accept`.',
    );
  }
  const parsed = v.safeParse(LockSchema, data);
  if (!parsed.success) {
    const i = parsed.issues[0]!;
    const path = (i.path ?? []).map((p) => String((p as { key: unknown }).key)).join('.');
    throw invalid(
      'ERR_LOCK_INVALID',
      i.message,
      { file, path },
      'Restore vkit.lock.json from version control, or delete it and run `vkit policy accept`.',
    );
  }
  return parsed.output;
}

/** The lock at `root`, or undefined when there is none. */
export function readLock(root: string): Lock | undefined {
  const file = join(root, LOCK_FILE);
  if (!existsSync(file)) return undefined;
  return parseLock(readFileSync(file, 'utf8'));
}

/** Deterministic text: canonical key order, indented for review. */
export function lockText(lock: Lock): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(lock)), null, 2)}\n`;
}

export function writeLock(root: string, lock: Lock): void {
  const file = join(root, LOCK_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, lockText(lock));
  renameSync(temp, file);
}

export interface CurrentIdentity {
  policy_sha256: string;
  /** Absent for a model item (no package). */
  package_sha256?: string;
  profile: string;
  /** The actual checker tool tree digest, when it has been resolved (a worker before running). */
  checker_sha256?: string;
}

/**
 * Whether the accepted entry still covers the current identities. Any difference is a reason for
 * renewed acceptance, naming everything that changed.
 */
export function compareLock(
  entry: LockEntry | undefined,
  current: CurrentIdentity,
): { ok: true } | { ok: false; reason: string } {
  if (!entry) return { ok: false, reason: 'not accepted: run `vkit policy accept` (no entry in vkit.lock.json)' };
  const changed: string[] = [];
  if (entry.policy_sha256 !== current.policy_sha256) changed.push('policy slice changed');
  if (entry.package_sha256 !== current.package_sha256) changed.push('package digest changed');
  if (entry.profile !== current.profile) changed.push('profile changed');
  if (current.checker_sha256 !== undefined && entry.checker_sha256 !== current.checker_sha256)
    changed.push('checker digest changed');
  return changed.length
    ? { ok: false, reason: `renewed acceptance required (${changed.join(', ')}): run \`vkit policy accept\`` }
    : { ok: true };
}
