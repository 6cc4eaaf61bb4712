/** A registered check as the config declares it (section `checks`, gate item `check:<id>`). */
import * as v from 'valibot';
import { sandbox, type SandboxMode } from '../../src/config/sandbox.js';
import { envName, glob, globList, id, relativeDir } from '../../src/config/schema.js';

export const CheckSchema = v.strictObject({
  id,
  run: v.union(
    [
      v.pipe(
        v.array(v.string()),
        v.minLength(1, 'Expected argv to have at least one element'),
        v.check((a) => a[0] !== '', 'Expected argv[0] to be a command'),
      ),
      v.pipe(v.string(), v.regex(/\S/, 'Expected a non-blank shell string')),
    ],
    'Expected an argv array or a shell string',
  ),
  inputs: globList,
  cwd: v.optional(relativeDir, '.'),
  after: v.optional(v.array(id), []),
  outputs: v.optional(v.array(glob), []),
  timeout_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(86_400)), 600),
  env: v.optional(v.array(envName), []),
  expect: v.optional(
    v.strictObject({ exit_code: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255)), 0) }),
    { exit_code: 0 },
  ),
  /** Unset: the config's `sandbox`, else `isolated` (resolved by `validateManifest`). */
  sandbox: v.optional(sandbox),
  /**
   * `normalise` (the default, left absent in the manifest): the key sees text inputs with CRLF -> LF.
   * `raw`: the key sees their raw bytes, for a check whose verdict depends on line endings.
   */
  line_endings: v.optional(v.picklist(['normalise', 'raw'], 'Expected `normalise` or `raw`')),
  /**
   * Installed dependencies the check runs (`npx tsc`): `npm` names the directories (root-relative)
   * holding package.json and node_modules. Their lock file and every installed file enter the
   * check's tool identity, and a hermetic check sees them read-only.
   */
  deps: v.optional(
    v.strictObject({
      npm: v.pipe(
        v.union([relativeDir, v.array(relativeDir)], 'Expected a directory or a list of directories'),
        v.transform((d) => (typeof d === 'string' ? [d] : d)),
        v.minLength(1, 'Expected at least one directory'),
      ),
    }),
  ),
});

/** A check as a config writes it. */
export type CheckConfig = v.InferInput<typeof CheckSchema>;
/** A check as the manifest holds it: defaults filled, and its sandbox always named (the kind resolves it). */
export type ResolvedCheck = v.InferOutput<typeof CheckSchema> & { sandbox: SandboxMode };
