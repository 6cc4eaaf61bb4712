/**
 * The workspace verbs: init, store gc. Declarations only; `table.ts` binds each to its handler.
 */
import { COMMON, defineVerb } from '../../kit/verb.js';
import { COMMON_HELP } from './build.js';

export const init = defineVerb({
  name: 'init',
  summary: 'write a starter vkit.config.ts',
  readme: 'write a starter `vkit.config.ts`',
  flags: { ...COMMON, 'dry-run': { type: 'boolean', default: false } },
  help: `Usage: vkit init [--root DIR] [--dry-run] [--json]

Writes a starter vkit.config.ts suited to the project found. With a package.json: one check per
script it knows (typecheck, type-check, tsc or types; lint; build; test): \`npm run <script>\`,
and \`npm test\` for the test (the one check when it knows none). The build declares the
git-ignored folder it writes as its outputs (that of an entry point: main, module, types, bin,
exports; else dist/, build/, lib/ or out/), and the test runs after the build when its script
(or pretest) runs the build or names that folder, or an entry point is in it. Without a
package.json: cargo test for a Cargo.toml, else a placeholder that fails until you replace it.
The inputs exclude every folder .gitignore names, whether it exists yet or not. Refuses when a
config exists.
--dry-run prints the config it would write and writes nothing. --json prints { "created": FILE }
(with --dry-run, { "would_create": FILE, "text": CONFIG }). --store and --jobs are accepted, for
scripts that pass them to every verb, and ignored.
`,
});

export const storeGc = defineVerb({
  name: 'store gc',
  summary: 'delete runs and blobs nothing kept reaches',
  readme:
    'delete runs and blobs that nothing kept reaches (queued and running runs are always kept; safe while builds run)',
  flags: { ...COMMON, 'keep-runs': { type: 'string' } },
  help: `Usage: vkit store gc --keep-runs N [common flags]

Keeps the N newest runs plus every cache entry's receipt, deletes the runs, attempts and blobs
nothing kept reaches.

${COMMON_HELP}`,
});
