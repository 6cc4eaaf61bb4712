/**
 * valibot schemas for the manifest (schema_version 3). Strict objects: unknown keys are errors, so
 * a typo never silently drops a requirement. JSON schemas in `schema/` are generated from these.
 */
import * as v from 'valibot';
import { globProblem } from '../text/glob.js';
import type { KindRegistry } from './kind.js';
import { executorSchema } from './executor.js';
import { sandbox } from './sandbox.js';

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const SHA256_ID = /^sha256:[0-9a-f]{64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const id = v.pipe(
  v.string(),
  v.regex(ID_PATTERN, 'Expected an id of letters, digits, `.`, `_` or `-` (starting with a letter or digit)'),
);
export const nonEmptyString = v.pipe(v.string(), v.minLength(1, 'Expected a non-empty string'));
/** A glob the compiler accepts: a malformed one is a config error naming its field, never an internal error. */
export const glob = v.pipe(
  nonEmptyString,
  v.check(
    (s) => globProblem(s) === undefined,
    (issue) => `Expected a valid glob, got \`${String(issue.input)}\` (${globProblem(String(issue.input))})`,
  ),
);
export const globList = v.pipe(v.array(glob), v.minLength(1, 'Expected at least one glob'));
export const sha256Field = v.pipe(
  v.string(),
  v.regex(SHA256_ID, 'Expected `sha256:` followed by 64 lowercase hex digits'),
);
export const relativeDir = v.pipe(
  v.string(),
  v.check(
    (s) => !s.startsWith('/') && !s.split(/[\\/]/).includes('..'),
    'Expected a path relative to the root that stays inside it',
  ),
);

const RuleRecordSchema = v.strictObject({
  kind: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]*$/, 'Expected a rule kind of lowercase letters, digits and `-`')),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  source_sha256: sha256Field,
});

/** A path relative to the root that stays inside it. */
export const relativePath = v.pipe(
  nonEmptyString,
  v.check(
    (s) => !s.startsWith('/') && !s.split(/[\\/]/).includes('..'),
    'Expected a path relative to the root that stays inside it',
  ),
);

export const envName = v.pipe(v.string(), v.regex(ENV_NAME, 'Expected an environment variable name'));

const userRule = v.custom<object>(
  isRuleShaped,
  'Expected a rule made with defineRule(): { kind, version, attrs (a valibot schema), plan }, with tool and judge functions when given',
);

/** Each kind's section, `v.optional(v.array(entry), [])`, nested one level for `formal.components`. */
function sections(registry: KindRegistry): Record<string, v.GenericSchema> {
  const out: Record<string, v.GenericSchema> = {};
  const nested = new Map<string, Record<string, v.GenericSchema>>();
  for (const kind of registry.kinds) {
    const [head, tail] = kind.section.split('.') as [string, string | undefined];
    const list = v.optional(v.array(kind.entry), []);
    if (tail === undefined) out[head] = list;
    else {
      let group = nested.get(head);
      if (!group) {
        group = {};
        nested.set(head, group);
        out[head] = list; // keeps the section's place among the others; the object is built below
      }
      group[tail] = list;
    }
  }
  for (const [head, group] of nested) {
    const object = v.strictObject(group);
    // A fresh default per parse: a shared one would carry one manifest's entries into the next.
    out[head] = v.optional(object, () => v.parse(object, {}));
  }
  return out;
}

const manifestSchemas = new WeakMap<KindRegistry, ReturnType<typeof composeManifest>>();
const userSchemas = new WeakMap<KindRegistry, ReturnType<typeof composeUserConfig>>();

/**
 * The shared remote cache (docs/remote-cache.md): machine configuration, so `--remote` and
 * `VKIT_REMOTE` override it. Which writers count is never here: `vkit.lock.json`'s trusted signers.
 */
const remote = v.strictObject({
  url: v.pipe(
    nonEmptyString,
    v.check((s) => /^https?:\/\/[^\s]+$/.test(s), 'Expected an http(s) URL'),
  ),
  /** Use signed entries on a local miss. @default true */
  read: v.optional(v.boolean(), true),
  /** Sign and upload results committed here (needs VKIT_SIGNING_KEY). @default true */
  write: v.optional(v.boolean(), true),
});

/** What every manifest holds whatever its kinds; each kind adds its section. */
const manifestCore = {
  $schema: v.optional(v.string()),
  schema_version: v.optional(v.literal(3, 'Expected schema_version 3'), 3),
  /** The sandbox of every check that does not name its own. */
  sandbox: v.optional(sandbox),
  remote: v.optional(remote),
  /** Who runs the jobs (docs/fleet.md): this machine's workers, or a fleet's through NATS. */
  executor: v.optional(executorSchema),
  rules: v.optional(v.array(RuleRecordSchema), []),
};

/** What every config holds whatever its kinds: the sandbox default and the user rules. */
const configCore = {
  sandbox: v.optional(sandbox),
  remote: v.optional(remote),
  executor: v.optional(executorSchema),
  rules: v.optional(v.array(userRule), []),
};

export type ManifestCore = v.InferOutput<v.StrictObjectSchema<typeof manifestCore, undefined>>;
export type RuleRecord = v.InferOutput<typeof RuleRecordSchema>;

function composeManifest(registry: KindRegistry) {
  return v.strictObject({ ...manifestCore, ...sections(registry) });
}

function composeUserConfig(registry: KindRegistry) {
  return v.strictObject({ ...configCore, ...sections(registry) });
}

/** The manifest as a `vkit.manifest.json` file holds it (schema_version may be omitted), composed from the kinds. */
export function manifestSchema(registry: KindRegistry): ReturnType<typeof composeManifest> {
  let schema = manifestSchemas.get(registry);
  if (!schema) manifestSchemas.set(registry, (schema = composeManifest(registry)));
  return schema;
}

/** What `defineConfig` accepts before the rules are turned into records, composed from the kinds. */
export function userConfigSchema(registry: KindRegistry): ReturnType<typeof composeUserConfig> {
  let schema = userSchemas.get(registry);
  if (!schema) userSchemas.set(registry, (schema = composeUserConfig(registry)));
  return schema;
}

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
