/** A node of a user rule kind (section `actions`, gate item `<rule>:<id>`). */
import * as v from 'valibot';
import { globList, id, nonEmptyString } from '../../src/config/schema.js';

export const ActionSchema = v.strictObject({
  id,
  rule: nonEmptyString,
  inputs: globList,
  after: v.optional(v.array(id), []),
  attrs: v.optional(v.record(v.string(), v.unknown()), {}),
});

/** An action as a config writes it. */
export type ActionConfig = v.InferInput<typeof ActionSchema>;
/** An action with its defaults filled, as the manifest holds it. */
export type ResolvedAction = v.InferOutput<typeof ActionSchema>;
