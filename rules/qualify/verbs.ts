/** `vkit formal qualify`, the verb the qualify kind adds. Declaration only; `index.ts` binds it to `cli.ts`. */
import { defineVerb, ROOT_STORE_JSON } from '../../src/kit/verb.js';

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
