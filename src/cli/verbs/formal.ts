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

export const qualify = defineVerb({
  name: 'formal qualify',
  summary: 'qualify a mathematical package: run its catalogue of wrong candidates and report which it rejects',
  readme:
    "qualify a package by mutation: each mutant of the package's catalogue is a real job in the restricted worker, classified detected (the checker rejected it), survivor (it passed) or inconclusive (never counted as detected); exit 0 all detected, 1 a survivor, 3 inconclusive or the reference does not pass",
  flags: {
    ...ROOT_STORE_JSON,
    package: { type: 'string' },
    profile: { type: 'string' },
    catalogue: { type: 'string' },
    mutant: { type: 'string', multiple: true },
    'compare-package': { type: 'string' },
    out: { type: 'string' },
    jobs: { type: 'string' },
  },
  help: `Usage: vkit formal qualify --package ID --profile PROFILE [--catalogue DIR] [--mutant ID]... [--compare-package PREVIOUS] [--out FILE] [--jobs N] [--root DIR] [--store DIR] [--json]

Qualifies a mathematical package: its catalogue for the profile holds a known-good reference
candidate and deliberate mutations of it, each a small named edit with the behaviour it breaks.
The reference and every mutant are checked by the profile, each as a real job in the restricted
worker (its own run, receipt and log: \`vkit run show RUN\`), cached like every action. A mutant is
  detected      the checker rejected it (a failed obligation, a module that does not match the
                package's module type, an observation that differs);
  survivor      it passed: the package cannot tell it from a correct candidate (a survivor stays one
                until a human marks it equivalent, with a reason, in the catalogue);
  inconclusive  anything else (timeout, tool error, cancelled): never counted as detected.

  --package ID       the package (\`vkit formal package digest\` lists them)
  --profile PROFILE  the profile (coq-linux-x86_64-v1)
  --catalogue DIR    a catalogue directory (default: vkit's own for the package and profile)
  --mutant ID        only these mutants (the report covers only them)
  --compare-package PREVIOUS
                     also compare the package with an earlier report or a package directory:
                     changed files, obligations (statement digests) and trust identities
                     (accepted axioms, checker, pins); semantic equivalence is always unknown
  --out FILE         also write the report (vkit.qualification/1) to FILE
  --jobs N           mutants checked at once (default 1)
  --root DIR         where the store is found (default: the nearest directory up from here
                     that holds a vkit config)
  --store DIR        evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)

Exit codes: 0 every mutant detected (or marked equivalent), 1 a survivor, 2 invalid usage or
catalogue, 3 an inconclusive mutant or a reference that does not pass, 4 internal error.
`,
});
