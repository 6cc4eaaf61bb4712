/**
 * `vkit feedback add|list`. Declarations only; `table.ts` binds each to its handler in `../feedback.ts`.
 * `--store` is accepted so scripts that pass it everywhere keep working, and ignored: feedback lives
 * beside the repository's git directory whatever the store is.
 */
import { defineVerb, ROOT_STORE_JSON } from '../../kit/verb.js';

const FLAGS_HELP = `  --root DIR     project root (default: the nearest one up from here); feedback goes to <git common dir>/vkit/feedback/,
                 or <root>/.vkit/feedback/ without git. --store is accepted and ignored.
  --json         machine-readable output
`;

export const add = defineVerb({
  name: 'feedback add',
  summary: 'record a missing verification capability (a Markdown file; never affects gates)',
  readme:
    'record a missing verification capability as a Markdown file under `<git common dir>/vkit/feedback/`; a duplicate keeps the existing file',
  flags: {
    ...ROOT_STORE_JSON,
    task: { type: 'string' },
    missing: { type: 'string' },
    benefit: { type: 'string' },
    kind: { type: 'string' },
    run: { type: 'string' },
  },
  help: `Usage: vkit feedback add --task TEXT --missing TEXT --benefit TEXT [--kind formal|reliable] [--run ID] [--root DIR] [--json]

Records a request for a verification capability vkit lacks, as one Markdown file named by a digest of
its content. Submitting the same request again keeps the existing file and says so. Feedback never
affects results or gates.

  --task TEXT     what you were trying to do
  --missing TEXT  the capability that was missing
  --benefit TEXT  what verifying with it would establish or catch
  --kind K        formal (formal verification, the default) or reliable (other rigorous checks)
  --run ID        a run whose retained evidence the request refers to (run_...)

Each text is one paragraph of at most 4,000 characters; whitespace runs count as one space.

${FLAGS_HELP}
Exit codes: 0 recorded or already recorded, 2 invalid request, 4 internal error.
`,
});

export const list = defineVerb({
  name: 'feedback list',
  summary: 'preview recorded feedback, formal requests first',
  readme: 'bounded previews, formal requests first; feedback never affects results or gates',
  flags: { ...ROOT_STORE_JSON, limit: { type: 'string' } },
  help: `Usage: vkit feedback list [--limit N] [--root DIR] [--json]

Previews recorded feedback: formal requests first, then reliable, each newest first. Task and missing
capability are cut to 120 characters; open the file for the rest.

  --limit N      show at most N requests, 1 to 200 (default 20)

${FLAGS_HELP}
Exit codes: 0 listed, 2 invalid request, 4 internal error.
`,
});
