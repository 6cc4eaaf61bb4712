/** `vkit report`: the gate and its evidence as one static HTML page. Declaration only; `table.ts` binds it to `../report/command.ts`. */
import { ROOT_STORE_JSON, defineVerb } from '../../kit/verb.js';
import { EXITS } from './build.js';

export const report = defineVerb({
  name: 'report',
  summary: 'write the gate and its evidence as one static HTML page (no server, no network)',
  readme:
    "write `DIR/index.html`: the gate (computed as `vkit gate` computes it; runs nothing), every item with its state, duration, assurance and receipt identities, the failing items' log tails, the graph of checks and the last runs' durations, in one self-contained page (inline CSS and SVG, no script, no external URL) a CI job can upload as an artifact. `DIR` must be new, empty or hold only an earlier report, outside the store and `.git`. Exits with the gate's code",
  flags: { ...ROOT_STORE_JSON, out: { type: 'string' }, deep: { type: 'boolean' } },
  help: `Usage: vkit report --out DIR [--deep] [--root DIR] [--store DIR] [--json]

Writes DIR/index.html, one self-contained page: the gate, computed from retained evidence exactly as
\`vkit gate\` computes it (nothing runs); every item with its state, duration, assurance, run and
receipt, inputs and checker identities; the failing items' log tails (terminal escapes stripped);
the graph of checks; and the durations of the last 30 runs. Inline CSS and SVG only: no script, no
font, no external URL, so it opens offline from a CI artifact.

  --out DIR      the directory to write: created when missing; else it must be empty or hold
                 only an earlier vkit report's index.html (written over). Never inside the store
                 or a .git directory. vkit deletes nothing there. Until the new page is
                 written, index.html says the report did not finish: a run that fails never
                 leaves an earlier verdict in DIR.
  --deep         re-hash every blob, input and tool the gate relies on (as \`vkit gate --deep\`)
  --json         print {schema, page, gate} instead of one line

Exits with the gate's code once the page is written, so a CI step uploading DIR should run even
when this step fails.

${EXITS}`,
});
