/** A formal component as the config declares it (section `formal.components`, gate item `formal:<id>`). */
import * as v from 'valibot';
import { globList, id, nonEmptyString, sha256Field } from '../../src/config/schema.js';

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
