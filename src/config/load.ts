/**
 * Finding and loading the config: `vkit.config.ts` first, then `vkit.manifest.json`, at the root.
 * The TS file is bundled by esbuild into a temp module beside it (so relative imports and
 * node_modules resolve as the user expects), evaluated in its own thread (isolate.ts: the main
 * thread gets plain data only, and user rules are called there), then deleted; a bundle that
 * imports nothing but vkit is evaluated from memory instead (D53). Bare `vkit` imports are
 * pointed at the running vkit, so a config always gets the API it runs under.
 *
 * Beside it: manifest-file.ts reads a JSON manifest strictly, ts-compile.ts runs esbuild over a TS
 * config, and user-rule-guard.ts wraps the user rules a config registers.
 */
import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import * as v from 'valibot';
import { invalid, InvalidInputError, VkitError, type Issue } from '../errors.js';
import { jsonId, sha256Id } from '../hash/index.js';
import type { KeptConfigs } from './kept.js';
import type { Rule } from './rule.js';
import { loadKinds } from './kind.js';
import { fieldPath, userConfigSchema } from './schema.js';
import type { Manifest, UserConfig } from './types.js';
import { validateManifest } from './validate.js';
import { checkCachedModules, loadsDynamically } from './reload-guard.js';
import { hostedAttrs, hostedRule, type AttrsCheck } from './hosted-rule.js';
import { readManifestFile } from './manifest-file.js';
import { compileConfig, importsPackages, type LocalGraph, localModuleGraph, selfContained } from './ts-compile.js';
import { guardUserRule } from './user-rule-guard.js';
import {
  SELF_ENTRY,
  startConfigThread,
  type ConfigThread,
  type IsolatedConfig,
  type RuleDescriptor,
} from './isolate.js';
import { describeThrown } from './plain.js';
import { importModule } from './import-module.js';

export { rememberManifests } from './manifest-file.js';

/** A config's ordinary evaluation, as its loader kept it for a possible seal (src/fast/seal.ts). */
export interface Evaluated {
  root: string;
  file: string;
  /** vkit's public entry (what `vkit` resolves to). */
  selfEntry: string;
  /** The plain data the config thread answered. */
  data: unknown;
  /** sha256 of the ordinary bundle: a seal refused once is not tried again for the same code. */
  bundleSha256: string;
  /** The ordinary bundle's metafile: every module it was made from. */
  metafile: Metafile;
}

export const CONFIG_FILES = ['vkit.config.ts', 'vkit.manifest.json'] as const;

export interface LoadedConfig {
  /** Absolute path of the file the config came from. */
  file: string;
  manifest: Manifest;
  /** sha256 of the canonical manifest: the whole-policy digest recorded in receipts. */
  policyDigest: string;
  /** User rules by kind, as registered by the config. */
  rules: Map<string, Rule>;
  /** The config file and every local module it imports: what watch reloads on. */
  sources: string[];
  /** Stops the config's thread when it hosts user rules (call when the config is replaced or done). */
  close(): Promise<void>;
  /** A TS config evaluated from memory in its thread, without user rules: what a seal needs (src/fast/seal.ts). */
  evaluated?: Evaluated;
}

export function findConfig(root: string): string | undefined {
  for (const name of CONFIG_FILES) {
    const file = join(root, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

export interface LoadOptions {
  /**
   * Import the config into this process instead of its own thread: only for job worker processes,
   * whose user-rule actions need the rule's `execute` (a worker's failure ends its attempt BLOCKED).
   */
  inProcess?: boolean;
  /** What may be kept between processes (a TS config's bundle, a validated manifest); none: bundle and validate every time. */
  kept?: KeptConfigs;
}

export async function loadConfig(root: string, opts: LoadOptions = {}): Promise<LoadedConfig> {
  const file = findConfig(root);
  if (!file) {
    throw invalid(
      'ERR_CONFIG_NOT_FOUND',
      `No vkit.config.ts or vkit.manifest.json in ${root}`,
      {},
      'Run `vkit init` to create one, or pass --root.',
    );
  }
  const shown = relative(process.cwd(), file) || file;
  // The kinds' modules load while the config is read and bundled; validation awaits them.
  loadKinds().catch(() => {});
  if (file.endsWith('.json')) {
    const { manifest, policyDigest } = await readManifestFile(file, shown, opts.kept);
    return manifestConfig(file, manifest, policyDigest);
  }
  return loadTsConfig(root, file, shown, opts);
}

/** The config's data only (manifest, digest, sources): its rule thread, if any, is stopped at once. */
export async function readConfig(root: string): Promise<LoadedConfig> {
  const config = await loadConfig(root);
  await config.close();
  return config;
}

function manifestConfig(file: string, manifest: Manifest, policyDigest: string): LoadedConfig {
  return { file, manifest, policyDigest, rules: new Map(), sources: [file], close: () => Promise.resolve() };
}

async function loadTsConfig(root: string, file: string, shown: string, opts: LoadOptions): Promise<LoadedConfig> {
  const thread = opts.inProcess ? undefined : startConfigThread();
  try {
    return await bundleAndEvaluate(root, file, shown, opts, thread);
  } catch (error) {
    await thread?.abandon();
    throw error;
  }
}

async function bundleAndEvaluate(
  root: string,
  file: string,
  shown: string,
  opts: LoadOptions,
  thread: ConfigThread | undefined,
): Promise<LoadedConfig> {
  const selfEntry = fileURLToPath(SELF_ENTRY);
  const bundled = await compileConfig(root, file, shown, selfEntry, opts.kept);
  // Modules the bundle leaves to node stay in its module cache: identify them on every load, and
  // refuse a reload after they changed (see reload-guard.ts).
  const runtimeInputs = new Set(Object.keys(bundled.metafile.inputs));
  const dynamic = loadsDynamically(bundled.text, bundled.metafile);
  let graph: LocalGraph | undefined;
  if (importsPackages(bundled.metafile))
    graph = await localModuleGraph(
      (await importModule<typeof import('esbuild')>('esbuild')).build,
      root,
      file,
      shown,
      selfEntry,
    );
  await checkCachedModules(root, shown, {
    linked: (graph?.inputs ?? [])
      .filter((p) => !runtimeInputs.has(p) && !p.startsWith('file:'))
      .map((p) => join(root, p)),
    installed: graph?.installed ?? [],
    dynamic: dynamic || (graph?.unresolved ?? 0) > 0,
  });
  // A bundle that imports nothing but vkit's entry (by absolute URL) runs the same from memory:
  // then nothing is written into the tree, whose directory states a no-op record stands on (D53).
  const fromMemory =
    thread !== undefined && selfContained(bundled.text, bundled.metafile, pathToFileURL(selfEntry).href);
  const temp = join(
    dirname(file),
    `${basename(file)}.timestamp-${Date.now()}-${process.pid}-${Math.random().toString(16).slice(2, 8)}.mjs`,
  );
  // Removed however loading ends, an exit of this process included.
  const removeTemp = () => rmSync(temp, { force: true });
  process.once('exit', removeTemp);
  let exported: unknown;
  let isolated: IsolatedConfig | undefined;
  try {
    if (thread && fromMemory) {
      isolated = await thread.evaluate(
        `data:text/javascript;base64,${Buffer.from(bundled.text).toString('base64')}`,
        shown,
      );
      exported = isolated.exported;
    } else if (thread) {
      await writeFile(temp, bundled.text);
      isolated = await thread.evaluate(pathToFileURL(temp).href, shown);
      exported = isolated.exported;
    } else {
      await writeFile(temp, bundled.text);
      exported = (await importModule(pathToFileURL(temp).href)).default;
      // `defineConfig(() => ...)`: the function is the config's code too; what it throws is the user's error.
      if (typeof exported === 'function') exported = await (exported as () => unknown)();
    }
  } catch (error) {
    if (error instanceof VkitError) throw error;
    throw invalid(
      'ERR_CONFIG_THREW',
      `Loading the config threw: ${describeThrown(error)}`,
      { file: shown },
      'Fix the error your config module raises.',
    );
  } finally {
    removeTemp();
    process.off('exit', removeTemp);
  }
  let inputs = Object.keys(bundled.metafile.inputs);
  // User rules are identified by the digest of the config's local module graph. A rule may live in
  // a workspace package the config imports by name (linked into node_modules, its files the
  // repository's own): the runtime bundle leaves it external, so its modules are found here.
  const registersRules =
    typeof exported === 'object' &&
    exported !== null &&
    Array.isArray((exported as { rules?: unknown }).rules) &&
    (exported as { rules: unknown[] }).rules.length > 0;
  if (registersRules && graph) inputs = graph.inputs;
  const sources = inputs
    .filter((p) => !p.split(/[\\/]/).includes('node_modules') && !p.startsWith('file:'))
    .map((p) => join(root, p))
    .sort();
  try {
    const loaded = await resolveUserConfig(exported, file, shown, sources, isolated);
    if (fromMemory && !registersRules)
      loaded.evaluated = {
        root,
        file,
        selfEntry,
        data: exported,
        metafile: bundled.metafile,
        bundleSha256: createHash('sha256').update(bundled.text).digest('hex'),
      };
    return loaded;
  } catch (error) {
    await isolated?.close();
    throw error;
  }
}

/**
 * Turns what `defineConfig` received into the manifest, recording user rules by kind, version and
 * source digest. From a config thread (`isolated`), rules arrive as descriptors and become
 * `hostedRule`s calling into that thread; attrs are checked there by the rule's own schema.
 */
async function resolveUserConfig(
  exported: unknown,
  file: string,
  shown: string,
  sources: string[],
  isolated?: IsolatedConfig,
): Promise<LoadedConfig> {
  if (typeof exported !== 'object' || exported === null) {
    throw invalid(
      'ERR_CONFIG_INVALID',
      `Expected the config's default export to be an object from defineConfig(), got ${exported === null ? 'null' : typeof exported}`,
      { file: shown },
      'Write `export default defineConfig({ checks: [...] })`.',
    );
  }
  const call = isolated?.call;
  if (call && Array.isArray((exported as { rules?: unknown }).rules)) {
    const rules = (exported as { rules: unknown[] }).rules.map((d) => (isDescriptor(d) ? hostedRule(d, call) : d));
    exported = { ...exported, rules };
  }
  const parsed = v.safeParse(userConfigSchema(await loadKinds()), exported);
  if (!parsed.success) {
    throw new InvalidInputError(
      'ERR_CONFIG_INVALID',
      parsed.issues.map((i) => ({ file: shown, path: fieldPath(i.path), message: i.message })),
    );
  }
  const user = exported as UserConfig;
  const rules = new Map<string, Rule>();
  // The rule's code is somewhere in the config's own module graph; its digest covers all of it,
  // so editing any local module the config imports re-identifies every user rule.
  const sourceDigest = jsonId(
    await Promise.all(sources.map(async (p) => [relative(dirname(file), p), sha256Id(await readFile(p))])),
  );
  for (const rule of user.rules ?? []) rules.set(rule.kind, guardUserRule(rule, shown));
  // The kinds' sections as parsed (with defaults), the rules as records.
  const { rules: _functions, ...sections } = parsed.output;
  const data = {
    schema_version: 3,
    ...sections,
    rules: (user.rules ?? []).map((r) => ({ kind: r.kind, version: r.version, source_sha256: sourceDigest })),
  };
  const { value, issues } = validateManifest(data, shown, await loadKinds());
  if (!value) throw new InvalidInputError('ERR_CONFIG_INVALID', issues);
  const attrIssues: Issue[] = [];
  // The nodes of user rule kinds (the `actions` section): each one's attrs go through its rule's schema.
  const actions = (value.actions ?? []) as { rule: string; attrs: Record<string, unknown> }[];
  actions.forEach((a, i) => {
    const res = call ? hostedAttrs(call, a.rule, a.attrs) : localAttrs(rules.get(a.rule)!, a.attrs);
    if (!res.success)
      attrIssues.push(
        ...res.issues.map((x) => ({
          file: shown,
          path: `actions[${i}].attrs${x.path ? `.${x.path}` : ''}`,
          message: x.message,
        })),
      );
    else a.attrs = res.output as Record<string, unknown>;
  });
  if (attrIssues.length) throw new InvalidInputError('ERR_CONFIG_INVALID', attrIssues);
  return {
    file,
    manifest: value,
    policyDigest: jsonId(value),
    rules,
    sources,
    close: () => isolated?.close() ?? Promise.resolve(),
  };
}

function localAttrs(rule: Rule, value: unknown): AttrsCheck {
  const res = v.safeParse(rule.attrs, value);
  return res.success
    ? { success: true, output: res.output }
    : { success: false, issues: res.issues.map((x) => ({ path: fieldPath(x.path), message: x.message })) };
}

const isDescriptor = (d: unknown): d is RuleDescriptor =>
  typeof d === 'object' &&
  d !== null &&
  typeof (d as RuleDescriptor).kind === 'string' &&
  typeof (d as RuleDescriptor).version === 'number' &&
  typeof (d as RuleDescriptor).tool === 'boolean' &&
  typeof (d as RuleDescriptor).judge === 'boolean';
