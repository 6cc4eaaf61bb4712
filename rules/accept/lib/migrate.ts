/**
 * 0.3 -> 0.4 migration, pure part. A 0.3 specification was called a contract: `[document] kind =
 * "contract"`, protocol `acceptance-protocol/0`; a 0.3 package has `[format] id = "acceptance/0"`
 * (or `acceptance/0.3`) and binds its contract with `[contract] {id, hash = "contract:sha-512:..."}`.
 * Migration splices the text (comments and layout stay) and recomputes the hashes whose domain
 * changed:
 *
 * - the package's binding becomes `[specification]`, hashed in domain `specification` over the
 *   MIGRATED specification bytes; it is rebound only after the old hash is verified against the
 *   old specification bytes (a package bound to other bytes stays unbound: rebinding it would
 *   turn a stale binding into a current one);
 * - a legacy `record_hash` (bare `sha-512:` over the raw bytes or over `evidence-record:` + bytes,
 *   or `evidence-record:sha-512:`) becomes `record:sha-512:` after the same verification.
 *
 * - an authority written `"Name / role"` becomes the party name, and the role fills that party's
 *   missing `role`; a deviation's `statement` becomes its `reason`.
 *
 * A retired bare `sha-512:` binding is refused, as 0.3.2 refuses it. Any other 0.3-only hash form
 * is reported, never guessed. Fields without a 0.4 meaning are not converted: they come back as
 * `attention` (see migrate-attention.ts). Decisions are never migrated: a decision is the
 * consumer's judgement of exact bytes, and the consumer must issue a new one.
 *
 * The specification's transforms are in migrate-specification.ts, the package's in
 * migrate-package.ts; this module tells the documents apart and exports both.
 */
import { str, table, type Doc } from './toml.js';

export type { Migrated } from './migrate-edits.js';
export { LEGACY_RECORD } from './migrate-hashes.js';
export { migratePackage, type SpecCandidate } from './migrate-package.js';
export { migrateSpecification } from './migrate-specification.js';

export type DocKind = 'specification' | 'package' | 'decision' | 'other';

export function classify(doc: Doc): DocKind {
  const kind = str(table(doc.data, 'document'), 'kind');
  if (kind === 'decision') return 'decision';
  if (kind === 'contract' || kind === 'specification') return 'specification';
  if (kind !== undefined) return 'other';
  if (
    table(doc.data, 'format') ||
    table(doc.data, 'contract') ||
    table(doc.data, 'specification') ||
    Array.isArray(doc.data.claim)
  )
    return 'package';
  return 'other';
}
