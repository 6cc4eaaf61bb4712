/**
 * valibot schemas for the manifest (schema_version 3). Strict objects: unknown keys are errors, so
 * a typo never silently drops a requirement. JSON schemas in `schema/` are generated from these.
 */
import * as v from 'valibot';
import { globProblem } from '../capture/glob.js';

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const SHA256_ID = /^sha256:[0-9a-f]{64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const id = v.pipe(
  v.string(),
  v.regex(ID_PATTERN, 'Expected an id of letters, digits, `.`, `_` or `-` (starting with a letter or digit)'),
);
const nonEmptyString = v.pipe(v.string(), v.minLength(1, 'Expected a non-empty string'));
/** A glob the compiler accepts: a malformed one is a config error naming its field, never an internal error. */
const glob = v.pipe(
  nonEmptyString,
  v.check(
    (s) => globProblem(s) === undefined,
    (issue) => `Expected a valid glob, got \`${String(issue.input)}\` (${globProblem(String(issue.input))})`,
  ),
);
const globList = v.pipe(v.array(glob), v.minLength(1, 'Expected at least one glob'));
export const sha256Field = v.pipe(
  v.string(),
  v.regex(SHA256_ID, 'Expected `sha256:` followed by 64 lowercase hex digits'),
);
const relativeDir = v.pipe(
  v.string(),
  v.check(
    (s) => !s.startsWith('/') && !s.split(/[\\/]/).includes('..'),
    'Expected a path relative to the root that stays inside it',
  ),
);

/** How a check runs (README, "Sandbox"): a reason is required to run one unsandboxed. */
const sandbox = v.union(
  [
    v.picklist(['isolated', 'hermetic']),
    v.strictObject({
      none: v.pipe(v.string(), v.regex(/\S/, 'Expected the reason this check must run without a sandbox')),
    }),
  ],
  'Expected `isolated`, `hermetic` or `{ none: "<why this check cannot run sandboxed>" }`',
);

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
  env: v.optional(v.array(v.pipe(v.string(), v.regex(ENV_NAME, 'Expected an environment variable name'))), []),
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
});

export const ComponentSchema = v.strictObject({
  id,
  package: v.strictObject({ id: nonEmptyString, version: nonEmptyString, sha256: sha256Field }),
  contract: nonEmptyString,
  source: v.strictObject({ entry: nonEmptyString }),
  profile: nonEmptyString,
  parameters: v.optional(v.record(v.string(), v.unknown()), {}),
  bindings: v.record(v.string(), nonEmptyString),
  representation: v.optional(nonEmptyString),
  required: v.optional(v.boolean(), true),
  /** Source, specification, configuration and trusted dependencies: vkit cannot infer a dependency closure. */
  inputs: globList,
});

export const RuleRecordSchema = v.strictObject({
  kind: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]*$/, 'Expected a rule kind of lowercase letters, digits and `-`')),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  source_sha256: sha256Field,
});

export const ActionSchema = v.strictObject({
  id,
  rule: nonEmptyString,
  inputs: globList,
  after: v.optional(v.array(id), []),
  attrs: v.optional(v.record(v.string(), v.unknown()), {}),
});

/** A finite model comparison whose result must equal `expect` (gate item `compare:<id>`). */
export const CompareSchema = v.strictObject({
  id,
  /**
   * Path, relative to the root, of a `model compare` request file. It is the item's only captured
   * input (selected as a glob), so it must name exactly itself: no glob characters, no leading `!`.
   */
  request: v.pipe(
    nonEmptyString,
    v.check(
      (s) => !s.startsWith('/') && !s.split(/[\\/]/).includes('..'),
      'Expected a path relative to the root that stays inside it',
    ),
    v.check(
      (s) => !s.startsWith('!') && !/[*?[\]{}]/.test(s),
      "Expected a plain file path (no glob characters `*?[]{}` and no leading `!`): it is the comparison's only captured input; rename the file",
    ),
  ),
  expect: v.picklist(['equivalent', 'different'], 'Expected `equivalent` or `different`'),
});

const relativePath = v.pipe(
  nonEmptyString,
  v.check(
    (s) => !s.startsWith('/') && !s.split(/[\\/]/).includes('..'),
    'Expected a path relative to the root that stays inside it',
  ),
);

/**
 * An acceptance record (gate item `accept:<id>`): PASS needs a valid decision that is effect-eligible
 * on the day the gate is evaluated. `inputs` default to the documents, the package's subject root,
 * the acceptor stores, the `tree` directory and the enclosing Cargo workspace.
 */
export const AcceptanceSchema = v.strictObject({
  id,
  /** The acceptance root: the directory paths inside the documents are relative to (`--root`). */
  root: v.optional(relativeDir, '.'),
  spec: relativePath,
  package: relativePath,
  decision: relativePath,
  /** Acceptor name -> directory of accepted libraries (`DIR/<crate>/acceptance-*.toml`). */
  acceptors: v.optional(
    v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'Expected an acceptor name')), relativePath),
    {},
  ),
  /** `COMMIT=DIR`: where the subject commit's bytes can be read (DIR relative to the root). */
  tree: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9a-f]{7,40}=[^=]+$/, 'Expected `COMMIT=DIR` (hex commit, a directory relative to the root)'),
    ),
  ),
  allow_conditions: v.optional(v.boolean(), false),
  run_commands: v.optional(v.boolean(), false),
  inputs: v.optional(globList),
});

/** The manifest as a `vkit.manifest.json` file holds it (schema_version may be omitted). */
export const ManifestSchema = v.strictObject({
  $schema: v.optional(v.string()),
  schema_version: v.optional(v.literal(3, 'Expected schema_version 3'), 3),
  /** The sandbox of every check that does not name its own. */
  sandbox: v.optional(sandbox),
  checks: v.optional(v.array(CheckSchema), []),
  formal: v.optional(v.strictObject({ components: v.optional(v.array(ComponentSchema), []) }), { components: [] }),
  rules: v.optional(v.array(RuleRecordSchema), []),
  actions: v.optional(v.array(ActionSchema), []),
  compare: v.optional(v.array(CompareSchema), []),
  acceptance: v.optional(v.array(AcceptanceSchema), []),
});

/** What `defineConfig` accepts before the rules are turned into records. */
export const UserConfigSchema = v.strictObject({
  sandbox: v.optional(sandbox),
  checks: v.optional(v.array(CheckSchema), []),
  formal: v.optional(v.strictObject({ components: v.optional(v.array(ComponentSchema), []) }), { components: [] }),
  rules: v.optional(
    v.array(
      v.custom<object>(
        isRuleShaped,
        'Expected a rule made with defineRule(): { kind, version, attrs (a valibot schema), plan }, with tool and judge functions when given',
      ),
    ),
    [],
  ),
  actions: v.optional(v.array(ActionSchema), []),
  compare: v.optional(v.array(CompareSchema), []),
  acceptance: v.optional(v.array(AcceptanceSchema), []),
});

/** What the engine calls on a registered rule: `plan`, a synchronous valibot `attrs` schema, and `tool`/`judge` only as functions. */
export function isRuleShaped(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const rule = r as {
    plan?: unknown;
    attrs?: { '~run'?: unknown; async?: unknown } | null;
    tool?: unknown;
    judge?: unknown;
  };
  const schema =
    typeof rule.attrs === 'object' &&
    rule.attrs !== null &&
    typeof rule.attrs['~run'] === 'function' &&
    rule.attrs.async !== true;
  const optionalFn = (f: unknown) => f === undefined || typeof f === 'function';
  return typeof rule.plan === 'function' && schema && optionalFn(rule.tool) && optionalFn(rule.judge);
}

/** `checks[2].inputs` from a valibot issue path. */
export function fieldPath(path: v.IssuePathItem[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}
