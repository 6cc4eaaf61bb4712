/** How a check runs (docs/sandbox.md): its schema and type, read by the config schema and the rule API. */
import * as v from 'valibot';

/** How a check runs (docs/sandbox.md): a reason is required to run one unsandboxed. */
export const sandbox = v.union(
  [
    v.picklist(['isolated', 'hermetic']),
    v.strictObject({
      none: v.pipe(v.string(), v.regex(/\S/, 'Expected the reason this check must run without a sandbox')),
    }),
  ],
  'Expected `isolated`, `hermetic` or `{ none: "<why this check cannot run sandboxed>" }`',
);

export type SandboxMode = v.InferOutput<typeof sandbox>;
