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
