/**
 * The MCP tool the change kind adds, `change_certify`: the same certification as `vkit change certify`,
 * on a request given inline. The target is the host's: the server's environment names it
 * (`VKIT_CHANGE_TARGET`, a full commit id, since a ref could be moved by the agent the server
 * serves); without one the tool refuses rather than let the agent's own HEAD become the trusted target.
 */
import * as z from 'zod';
import { invalid } from '../../src/errors.js';
import { defineTool } from '../../src/kit/tool.js';

const COMMIT = /^[0-9a-f]{40}$/;

/** The request as an object or as JSON text, passed on untouched (a parsing schema would copy it). */
const requestInput = z
  .unknown()
  .refine((v) => typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v)), {
    message: 'Expected `request` to be the change request JSON object or that JSON as a string',
  })
  .meta({
    anyOf: [{ type: 'object' }, { type: 'string' }],
    description:
      'The change request (vkit.change-request/1: candidate, basis, claim, delegation.witness, optional samples).',
  });

/** The host's target: `VKIT_CHANGE_TARGET` as the server was started with it. */
function hostTarget(env: NodeJS.ProcessEnv): string {
  const target = env.VKIT_CHANGE_TARGET;
  if (!target || !COMMIT.test(target))
    throw invalid(
      'ERR_CHANGE_TARGET',
      target
        ? `VKIT_CHANGE_TARGET must be a full 40-hex commit id (a ref can move), got \`${target}\``
        : 'No target commit: the host chooses it, never the request',
      { path: 'VKIT_CHANGE_TARGET' },
      'Start `vkit mcp` with VKIT_CHANGE_TARGET=<full commit id> of the trusted target.',
    );
  return target;
}

export const changeTools = {
  change_certify: defineTool({
    description:
      "Certify an agent's strengthened finite claim about a function (like `vkit change certify`) against the host's target commit: basis, Z3 logic obligations with counterexamples, Kani code step. Returns the `vkit.change-certification/1` report (acceptance accepted, refuted or unknown); an invalid request is a tool error. Read-only.",
    readOnly: true,
    input: z.strictObject({ request: requestInput }),
    handler: async (a, ctx) => {
      const { certify } = await import('./service/certify.js');
      const { jsonOf } = await import('./lib/records.js');
      let request = a.request;
      if (typeof request === 'string') {
        const parsed = jsonOf(request, 'request');
        if (parsed.issues.length) throw invalid('ERR_CHANGE_REQUEST', parsed.issues[0]!.message, parsed.issues[0]!);
        request = parsed.value;
      }
      return (await certify(request, { root: ctx.root, target: hostTarget(process.env) })).report;
    },
  }),
};
