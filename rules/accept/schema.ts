/**
 * An acceptance record as the config declares it (section `acceptance`), and its types. The schema
 * lives with the acceptance library, which reads records; the `accept` kind (rules/accept/) uses it as
 * its entry schema.
 */
import * as v from 'valibot';
import { globList, id, relativeDir, relativePath } from '../../src/config/schema.js';

/**
 * An acceptance record (gate item `accept:<id>`): PASS needs a valid decision that is effect-eligible
 * on the day the gate is evaluated. `inputs` default to the documents, the package's subject root,
 * the acceptor stores, the `tree` directory and the enclosing Cargo workspace.
 */
export const AcceptanceSchema = v.strictObject({
  id,
  /** The acceptance root: the directory paths inside the documents are relative to (`--root`). */
  root: v.optional(relativeDir, '.'),
  spec: relativePath,
  package: relativePath,
  decision: relativePath,
  /** Acceptor name -> directory of accepted libraries (`DIR/<crate>/acceptance-*.toml`). */
  acceptors: v.optional(
    v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'Expected an acceptor name')), relativePath),
    {},
  ),
  /** `COMMIT=DIR`: where the subject commit's bytes can be read (DIR relative to the root). */
  tree: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9a-f]{7,40}=[^=]+$/, 'Expected `COMMIT=DIR` (hex commit, a directory relative to the root)'),
    ),
  ),
  allow_conditions: v.optional(v.boolean(), false),
  run_commands: v.optional(v.boolean(), false),
  inputs: v.optional(globList),
});

/** A record as a config writes it. */
export type AcceptanceConfig = v.InferInput<typeof AcceptanceSchema>;

/** A record with its defaults filled, as the manifest holds it. */
export type ResolvedAcceptance = v.InferOutput<typeof AcceptanceSchema> & {
  /** Derived when the workspace opens, never part of the policy digest: the nodes the record expands into. */
  expansion?: AcceptanceExpansion;
};

/** A node an acceptance record expands into: one library's own acceptance, or one claim's self_verify run. */
export interface AcceptanceNode {
  /** `accept:<id>/<crate>`, `accept:<id>/run:<claim id>`. */
  label: string;
  kind: string;
  id: string;
  attrs: Record<string, unknown>;
  /** Root-relative globs, captured raw. */
  inputs: string[];
  /** Labels this node depends on. */
  after: string[];
}

export interface AcceptanceExpansion {
  nodes: AcceptanceNode[];
  /** Labels the record's own `accept:<id>` node depends on. */
  after: string[];
}
