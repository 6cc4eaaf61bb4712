/**
 * The workspace verbs: init, store gc. Declarations only; `table.ts` binds each to its handler.
 */
import { COMMON, defineVerb } from '../../kit/verb.js';
import { COMMON_HELP } from './build.js';

export const init = defineVerb({
  name: 'init',
  summary: 'write a starter vkit.config.ts',
  readme: 'write a starter `vkit.config.ts`',
  flags: COMMON,
  help: `Usage: vkit init [--root DIR] [--json]

Writes a starter vkit.config.ts with one check suited to the project found (npm, cargo, or a
placeholder that fails until you replace it). Refuses when a config exists. --json prints
{ "created": FILE }. --store and --jobs are accepted, for scripts that pass them to every verb,
and ignored.
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
