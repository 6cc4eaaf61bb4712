/** `vkit evidence export|replay`. Declarations only; `table.ts` binds each to its handler in `../evidence.ts`. */
import { defineVerb, ROOT_STORE_JSON } from '../../kit/verb.js';

export const exportBundle = defineVerb({
  name: 'evidence export',
  summary: "write a run's evidence as a deterministic, validated tar bundle",
  flags: {
    ...ROOT_STORE_JSON,
    run: { type: 'string' },
    out: { type: 'string' },
    'include-assets': { type: 'boolean' },
  },
  help: `Usage: vkit evidence export --run ID --out FILE [--include-assets] [--root DIR] [--store DIR] [--json]

Writes one finished run's evidence as a deterministic tar bundle: manifest.json (digests binding the
job, the frozen source capture, the recorded outcome, obligations, checker and artifacts), job.json,
receipt.json and each artifact. The store's copies are re-hashed first; the written file is read back
as hostile input and checked. The same run always exports to the same bytes.

  --include-assets  for a formal run, add a digest-bound capsule: the exact worker image (saved through
                    the engine; refused unless its tool tree still hashes to the run's checker digest),
                    archives and tool trees; checks, comparisons and acceptance items have none, and
                    the output says so

Hashes give integrity relative to trusted state, not authentication.
Exit codes: 0 written, 2 invalid request, 3 the run's evidence is damaged, 4 internal error.
`,
});

export const replay = defineVerb({
  name: 'evidence replay',
  summary: 'check a bundle as hostile input, then run its check again here (recorded outcomes never count)',
  flags: { ...ROOT_STORE_JSON, 'restore-assets': { type: 'boolean' }, jobs: { type: 'string' } },
  positionals: true,
  help: `Usage: vkit evidence replay FILE [--restore-assets] [--root DIR] [--store DIR] [--jobs N] [--json]

Reads a bundle as hostile input (links, devices, \`..\`, absolute or duplicate names, sizes or digests
that disagree with the manifest, too many entries or bytes: refused, naming the entry, before anything
is written outside a scratch directory), captures the candidate in the current repository, requires
the accepted identities (job key, checker) to match, and runs the check again in the current store.
The bundle's recorded outcome is never accepted: only the fresh run counts.

  --restore-assets  load the bundle's capsule into the engine first; the loaded image must have the
                    recorded id and its tool tree the recorded checker digest (a tag is never enough)

Exit codes: 0 PASS, 1 FAIL (the check failed here), 2 refused bundle or invalid request,
3 BLOCKED (identities differ, or the check could not run).
`,
});
