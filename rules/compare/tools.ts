/** The MCP tool the compare kind adds, `model_compare`: the same comparison as `vkit model compare`, on a request given inline. */
import * as z from 'zod';
import { defineTool } from '../../src/kit/tool.js';
import { compareRequestValue } from './service.js';

/** Request as an object or as JSON text, passed on untouched (a schema that parses it would copy, and drop `__proto__` keys). */
const compareRequestInput = z
  .unknown()
  .refine((v) => typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v)), {
    message: 'Expected `request` to be the request JSON object or that JSON as a string',
  })
  .meta({
    anyOf: [{ type: 'object' }, { type: 'string' }],
    description:
      'The model-comparison request (schema_version 1, before, after, optional max_contexts): the JSON object, or that JSON as a string. Only the string form gets the duplicate-key and integer-form checks.',
  });

export const compareTools = {
  model_compare: defineTool({
    description:
      'Compare the two finite models of a request (like `vkit model compare`): six exact categories with counts and shortest witnesses. Returns the `vkit.model-compare/1` report; an invalid request is a tool error listing every issue. Read-only.',
    readOnly: true,
    input: z.strictObject({ request: compareRequestInput }),
    handler: async (a) => (await compareRequestValue(a.request)).report,
  }),
};
