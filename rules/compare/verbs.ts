/**
 * The verb the compare kind adds to the CLI, `vkit model compare`: its declaration (read by `vkit
 * --help`, so nothing heavy is imported here); `index.ts` binds it to its handler in `cli.ts`.
 */
import { COMMON, defineVerb } from '../../src/kit/verb.js';

export const modelCompare = defineVerb({
  name: 'model compare',
  summary: 'compare two explicit finite models (exact categories, shortest witnesses)',
  readme:
    'compare two finite models; exit 0 equivalent, 1 different, 2 invalid, 3 incomparable or unknown; an invalid request names its first problem, `--json` lists every one',
  flags: { ...COMMON, request: { type: 'string' } },
  help: `Usage: vkit model compare --request FILE [--json]

Compares the two finite models of a request (schema_version 1: before, after, optional max_contexts)
over the complete declared space: initial states, reachable states, assumption contexts, enabled
contexts, transitions and observations, each with its count and a shortest deterministic witness.
Probes name contexts to inspect; they are not executed transitions. Read-only: writes no policy.
--root, --store and --jobs are accepted, for scripts that pass them to every verb, and ignored.

Exit codes: 0 equivalent, 1 different, 2 invalid request, 3 incomparable or unknown (a budget ran out).
`,
});
