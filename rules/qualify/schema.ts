/**
 * A qualification the config requires (section `formal.qualifications`, gate item `qualify:<id>`),
 * and its types: the kind's entry schema, which its rule and its lock entries (`vkit policy accept`)
 * read. Light on purpose: `vkit --help` loads it with the registry.
 */
import * as v from 'valibot';
import { globList, id, nonEmptyString, relativeDir, sha256Field } from '../../src/config/schema.js';
import { jsonId } from '../../src/hash/index.js';

export const QualificationEntrySchema = v.strictObject({
  id,
  /** The package qualified, pinned like a component's: its digest binds its bytes. */
  package: v.strictObject({ id: nonEmptyString, version: nonEmptyString, sha256: sha256Field }),
  profile: nonEmptyString,
  /** A catalogue in the repository (a directory relative to the root); default vkit's own for the package and profile. */
  catalogue: v.optional(relativeDir),
  /** Globs of what the qualification reads in the repository; default the catalogue directory when it is there. */
  inputs: v.optional(globList),
  /** Only required qualifications change the gate. @default true */
  required: v.optional(v.boolean(), true),
});

export type QualificationConfig = v.InferInput<typeof QualificationEntrySchema>;
export type ResolvedQualification = v.InferOutput<typeof QualificationEntrySchema>;

/** The lock entry's key: `qualify:<id>` (a component id holds no `:`, so the two never meet). */
export const lockKeyOf = (q: Pick<ResolvedQualification, 'id'>) => `qualify:${q.id}`;

/** What acceptance binds besides package and checker: the entry and the catalogue it runs. */
export function qualificationPolicyDigest(q: ResolvedQualification, catalogueSha256: string): string {
  return jsonId({ qualification: q, catalogue: catalogueSha256 });
}
