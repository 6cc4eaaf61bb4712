/**
 * A formal component as the config declares it (section `formal.components`, gate item `formal:<id>`),
 * and its types. The schema lives with the formal library, which reads components; the `formal` kind
 * (rules/formal/) uses it as its entry schema.
 */
import * as v from 'valibot';
import { globList, id, nonEmptyString, sha256Field } from '../config/schema.js';

export const ComponentSchema = v.strictObject({
  id,
  package: v.strictObject({ id: nonEmptyString, version: nonEmptyString, sha256: sha256Field }),
  contract: nonEmptyString,
  source: v.strictObject({ entry: nonEmptyString }),
  profile: nonEmptyString,
  parameters: v.optional(v.record(v.string(), v.unknown()), {}),
  bindings: v.record(v.string(), nonEmptyString),
  representation: v.optional(nonEmptyString),
  required: v.optional(v.boolean(), true),
  /** Source, specification, configuration and trusted dependencies: vkit cannot infer a dependency closure. */
  inputs: globList,
});

/** A component as a config writes it. */
export type ComponentConfig = v.InferInput<typeof ComponentSchema>;
/** A component with its defaults filled, as the manifest holds it. */
export type ResolvedComponent = v.InferOutput<typeof ComponentSchema>;

/** The manifest's formal components (its `formal.components` section). */
export function declaredComponents(manifest: Readonly<Record<string, unknown>>): ResolvedComponent[] {
  return (manifest.formal as { components?: ResolvedComponent[] } | undefined)?.components ?? [];
}
