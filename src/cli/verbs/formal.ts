/** `vkit policy accept` and `vkit formal package digest [ID]`. Declarations only; `table.ts` binds them to `../formal.ts`. */
import { defineVerb, ROOT_STORE_JSON } from '../../kit/verb.js';

export const policyAccept = defineVerb({
  name: 'policy accept',
  summary: "accept formal components' policy, package and checker digests into vkit.lock.json",
  flags: { ...ROOT_STORE_JSON, component: { type: 'string', multiple: true } },
  help: `Usage: vkit policy accept [--component ID]... [--root DIR] [--store DIR] [--json]

Accepts the formal components' policy: writes vkit.lock.json at the root (commit it) with, per
component, the policy slice digest (its canonical manifest entry), the installed package digest,
the checker digest (the tool tree inside the worker image, hashed through the container engine),
the profile and when it was accepted. Changing any of them later makes the component BLOCKED
("renewed acceptance required") until it is accepted again. A component whose package, profile,
engine or assets cannot be resolved is refused, naming what is missing; nothing new is written for it
(an earlier entry stays, and still binds only what it accepted).

  --component ID   accept only these components (others keep their entries)
  --store DIR      evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)

Exit codes: 0 all accepted, 2 invalid config or usage, 3 a component refused, 4 internal error.
`,
});

/** A three-word verb: `digest` is its first positional (the handler insists on it), ID the second. */
export const packageDigest = defineVerb({
  name: 'formal package',
  label: 'formal package digest [ID]',
  summary: 'the identity of installed mathematical packages',
  flags: { json: { type: 'boolean', default: false } },
  positionals: true,
  help: `Usage: vkit formal package digest [ID] [--json]

Prints the identity of installed mathematical packages: sha256 over every file of the package
(sorted relative path, mode, sha256 of the raw bytes), the vkit-package.json manifest included.
With ID, the digest of that package (the value for a component's package.sha256); without, every
installed package as "ID VERSION DIGEST".

Exit codes: 0 printed, 2 unknown package, 3 a broken installed package, 4 internal error.
`,
});
