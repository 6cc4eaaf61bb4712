/**
 * The verb the change kind adds, `vkit change certify`: its declaration (read by `vkit --help`, so
 * nothing heavy is imported here); `index.ts` binds it to its handler in `cli.ts`.
 */
import { defineVerb } from '../../src/kit/verb.js';

export const changeCertify = defineVerb({
  name: 'change certify',
  summary: "accept an agent's strengthened finite claim about a function only with proof",
  readme:
    "accept an agent's strengthened claim only with proof (basis, Z3 logic, Kani code); exit 0 accepted, 1 refuted, 2 invalid, 3 unknown or BLOCKED",
  flags: {
    request: { type: 'string' },
    target: { type: 'string' },
    root: { type: 'string' },
    json: { type: 'boolean', default: false },
    'solver-timeout': { type: 'string' },
  },
  help: `Usage: vkit change certify --request FILE [--target REF] [--root DIR] [--json] [--solver-timeout MS]

Checks a change request (vkit.change-request/1) against the target commit the host chooses (--target,
default HEAD; a request never chooses it): the basis is registered in the target's
verification/change-claims/ and the candidate preserves those records byte for byte; Z3 proves the
claim is entailed by the intent under the assumptions, implies the baseline, drops no legal input,
and that the witness is legal, baseline-permitted and forbidden by both intent and claim; Kani
verifies the candidate's code and rejects the near-miss mutation. Each check is an obligation:
holds, refuted (with its counterexample) or unknown (with the reason). The shadow change result
(does the candidate keep the baseline) is reported apart and never decides acceptance.

  --solver-timeout MS   Z3's limit per query (default 60000); a timeout is unknown, never a proof

Exit codes: 0 accepted, 1 refuted, 2 invalid request or basis, 3 unknown or BLOCKED (Kani missing).
`,
});
