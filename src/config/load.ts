/**
 * Finding and loading the config: `vkit.config.ts` first, then `vkit.manifest.json`, at the root.
 * The TS file is bundled by esbuild into a temp module beside it (so relative imports and
 * node_modules resolve as the user expects), evaluated in its own thread (isolate.ts: the main
 * thread gets plain data only, and user rules are called there), then deleted; a bundle that
 * imports nothing but vkit is evaluated from memory instead (D53). Bare `vkit` imports are
 * pointed at the running vkit, so a config always gets the API it runs under.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import * as v from 'valibot';
import { invalid, InvalidInputError, VkitError, type Issue } from '../errors.js';
import { jsonId, sha256Id } from '../hash/index.js';
import { parseJsonText, type ParsedJsonText } from '../text/json-text.js';
import type { PlannedAction, Rule } from './rule.js';
import { loadKinds, type KindRegistry } from './kind.js';
import { fieldPath, userConfigSchema } from './schema.js';
import type { Manifest, UserConfig } from './types.js';
import { validateManifest } from './validate.js';
import { checkCachedModules, loadsDynamically } from './module-cache.js';
import { hostedAttrs, hostedRule, type AttrsCheck } from './hosted-rule.js';
import { type CompiledConfig, readCompiled, writeCompiled } from './bundle-cache.js';
import { keepManifest, manifestJson, readKeptManifest } from './manifest-cache.js';
import {
  SELF_ENTRY,
  startConfigThread,
  type ConfigThread,
  type IsolatedConfig,
  type RuleDescriptor,
} from './isolate.js';
import { describeThrown, plainData, PlainDataError } from './plain.js';
import { type Evaluated, selfContained } from './seal.js';
import { firstInvalidUtf8 } from '../text/utf8.js';
import { importModule } from './import-module.js';

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
  /** A TS config evaluated from memory in its thread, without user rules: what a seal needs (seal.ts). */
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
  /** Where compiled TS configs are kept between processes (bundle-cache.ts); none: bundle every time. */
  bundleCache?: string;
  /** Where validated JSON manifests are kept between processes (manifest-cache.ts); none: validate every time. */
  manifestCache?: string;
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
  if (file.endsWith('.json')) return loadManifestFile(file, shown, opts.manifestCache);
  return loadTsConfig(root, file, shown, opts);
}

/** The config's data only (manifest, digest, sources): its rule thread, if any, is stopped at once. */
export async function readConfig(root: string): Promise<LoadedConfig> {
  const config = await loadConfig(root);
  await config.close();
  return config;
}

/**
 * In a resident process (`vkit daemon`, which calls `rememberManifests`), the manifest it last
 * validated, by its exact text: reading the same bytes again gets the same manifest without parsing,
 * validating and digesting a thousand entries again (~60 ms of a served no-op). Validation is pure
 * (validate.ts): the text, the name errors show and the kind registry decide it. Each load gets its
 * own copy, as if parsed anew: callers may adjust entries (a protected gate confines every check).
 * A one-off process never reads its config twice and keeps nothing here (manifest-cache.ts keeps it in
 * the store instead).
 */
let remember = false;
export function rememberManifests(): void {
  remember = true;
}
let lastManifest:
  | { file: string; shown: string; text: string; registry: KindRegistry; copy: () => Manifest; policyDigest: string }
  | undefined;

/** Fresh copies of a manifest: parsed from its JSON text (a few ms for 1,000 checks), else structured clones (~15 ms). */
function copier(manifest: Manifest): () => Manifest {
  const json = manifestJson(manifest);
  if (json !== undefined) return () => JSON.parse(json) as Manifest;
  const kept = structuredClone(manifest);
  return () => structuredClone(kept);
}

function manifestConfig(file: string, manifest: Manifest, policyDigest: string): LoadedConfig {
  return { file, manifest, policyDigest, rules: new Map(), sources: [file], close: () => Promise.resolve() };
}

async function loadManifestFile(file: string, shown: string, keptIn: string | undefined): Promise<LoadedConfig> {
  const text = await readUtf8(file, shown);
  const registry = await loadKinds();
  const last = lastManifest;
  if (last && last.text === text && last.file === file && last.shown === shown && last.registry === registry)
    return manifestConfig(file, last.copy(), last.policyDigest);
  const kept = readKeptManifest(keptIn, file, shown, text);
  if (kept) return manifestConfig(file, kept.manifest, kept.policyDigest);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(
      'ERR_CONFIG_PARSE',
      `Invalid JSON: ${(error as Error).message}`,
      { file: shown, line: jsonErrorLine(text, error as Error) },
      'Fix the JSON syntax.',
    );
  }
  // JSON.parse keeps the last of two equal member names: a second `checks` would silently replace the
  // list a reader sees first (dropping requirements). Any repeated key is refused, at its line.
  const strict = parseJsonText(text);
  const repeated = strict.source.duplicates();
  if (repeated.length) {
    throw new InvalidInputError(
      'ERR_CONFIG_INVALID',
      repeated.map((d) => ({
        file: shown,
        path: d.path.replace(/^\$\.?/, ''),
        line: d.line,
        message: `Duplicate key \`${d.key}\`: JSON would keep only the last one; remove the other`,
      })),
    );
  }
  // What JSON.parse takes but the manifest's digest cannot hold: a lone surrogate (no UTF-8 form),
  // nesting past 64 levels (the strict parser's limit, which also bounds every walk below), and a
  // number past the largest double (JSON.parse reads it as Infinity).
  const unfit = strict.issues.length
    ? strict.issues.map((i) => ({
        file: shown,
        path: i.path.replace(/^\$\.?/, ''),
        line: i.line,
        message: i.message.replace(/^Invalid JSON at line \d+, column \d+: /, ''),
      }))
    : infiniteNumbers(strict, text, shown);
  if (unfit.length) throw new InvalidInputError('ERR_CONFIG_INVALID', unfit, 'Fix the value at that field.');
  const { value, issues } = validateManifest(data, shown, registry);
  if (!value) throw new InvalidInputError('ERR_CONFIG_INVALID', withLines(issues, text));
  if (value.rules.length > 0) {
    throw invalid('ERR_CONFIG_INVALID', 'User rules need code: register them in vkit.config.ts with defineRule()', {
      file: shown,
      path: 'rules',
    });
  }
  const policyDigest = jsonId(value);
  keepManifest(keptIn, file, shown, text, value, policyDigest);
  if (remember) lastManifest = { file, shown, text, registry, copy: copier(value), policyDigest };
  return manifestConfig(file, value, policyDigest);
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
  const bundled = await compile(root, file, shown, selfEntry, opts.bundleCache);
  // Modules the bundle leaves to node stay in its module cache: identify them on every load, and
  // refuse a reload after they changed (see module-cache.ts).
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
 * The config bundled by esbuild (the running vkit for bare `vkit` imports, packages left to node),
 * or the bundle kept from an earlier load when nothing it was made from changed (bundle-cache.ts).
 * esbuild's own warnings that vkit treats as errors are raised here, cached or not.
 */
async function compile(
  root: string,
  file: string,
  shown: string,
  selfEntry: string,
  cacheDir: string | undefined,
): Promise<CompiledConfig> {
  const self = pathToFileURL(selfEntry).href;
  let compiled = cacheDir ? readCompiled(cacheDir, root, file, self) : undefined;
  if (!compiled) {
    const since = Date.now();
    const { build } = await importModule<typeof import('esbuild')>('esbuild');
    let bundled;
    try {
      bundled = await build({
        ...bundleOptions(root, file),
        packages: 'external',
        plugins: [
          {
            name: 'vkit-self',
            setup(b) {
              b.onResolve({ filter: /^vkit$/ }, () => ({ path: self, external: true }));
            },
          },
        ],
      });
    } catch (error) {
      const first = (
        error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } }> }
      ).errors?.[0];
      // esbuild names files relative to absWorkingDir (the root); messages name them relative to cwd like the rest.
      const where = first?.location
        ? { file: relative(process.cwd(), join(root, first.location.file)), line: first.location.line }
        : { file: shown };
      throw invalid(
        'ERR_CONFIG_PARSE',
        `Cannot compile the config: ${first?.text ?? (error as Error).message}`,
        where,
        'Fix the TypeScript error.',
      );
    }
    compiled = {
      text: bundled.outputFiles[0]!.text,
      metafile: bundled.metafile,
      warnings: bundled.warnings.map((w) => ({
        id: w.id,
        text: w.text,
        location: w.location ? { file: w.location.file, line: w.location.line } : null,
      })),
    };
    // Bare imports resolve through node_modules and linked workspaces, which no entry tracks.
    if (cacheDir && !importsPackages(compiled.metafile)) writeCompiled(cacheDir, root, file, self, compiled, since);
  }
  // An object literal that names a key twice keeps the last value: a second `checks` would silently
  // replace the list a reader sees first. esbuild notices; vkit refuses it (in the config's own modules).
  const repeated = compiled.warnings.filter(
    (w) => w.id === 'duplicate-object-key' && w.location && !w.location.file.split(/[\\/]/).includes('node_modules'),
  );
  if (repeated.length) {
    throw new InvalidInputError(
      'ERR_CONFIG_INVALID',
      repeated.map((w) => ({
        file: relative(process.cwd(), join(root, w.location!.file)),
        path: '',
        line: w.location!.line,
        message: `${w.text}: only the last one would count; remove the other`,
      })),
    );
  }
  return compiled;
}

/** Whether the bundle imports a package at run time (a bare specifier that is not a Node builtin or vkit). */
function importsPackages(meta: Metafile): boolean {
  return Object.values(meta.inputs).some((i) =>
    i.imports.some(
      (imp) => imp.external && !isBuiltin(imp.path) && !imp.path.startsWith('file:') && !/^[./]/.test(imp.path),
    ),
  );
}

const RESOLVING = Symbol('vkit-resolving');

/**
 * The config's local module graph for the rule digest: a bundle (never run) that takes in every
 * module outside `node_modules` (its own imports and linked workspace packages, followed through
 * their symlinks), leaving installed packages external. A linked package that cannot be bundled
 * cannot be identified: a config error, never a rule digest that misses code it runs.
 */
/** What both esbuild passes over a TS config share: one in-memory ESM bundle for node 20, with its metafile. */
function bundleOptions(root: string, file: string) {
  return {
    entryPoints: [file],
    absWorkingDir: root,
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: 'node20',
    write: false as const,
    metafile: true as const,
    logLevel: 'silent' as const,
  };
}

interface LocalGraph {
  /** Every module outside node_modules, root-relative as esbuild names them. */
  inputs: string[];
  /** Resolved entry files of the installed packages it imports by name. */
  installed: string[];
  /** Bare imports esbuild could not resolve (node may still load something for them). */
  unresolved: number;
}

async function localModuleGraph(
  build: typeof import('esbuild').build,
  root: string,
  file: string,
  shown: string,
  selfEntry: string,
): Promise<LocalGraph> {
  const installed = new Set<string>();
  let unresolved = 0;
  try {
    const result = await build({
      ...bundleOptions(root, file),
      plugins: [
        {
          name: 'vkit-local-graph',
          setup(b) {
            b.onResolve({ filter: /^vkit$/ }, () => ({ path: pathToFileURL(selfEntry).href, external: true }));
            b.onResolve({ filter: /^[^./]/ }, async (args) => {
              if (args.pluginData === RESOLVING || isBuiltin(args.path)) return undefined;
              const r = await b.resolve(args.path, {
                kind: args.kind,
                resolveDir: args.resolveDir,
                importer: args.importer,
                pluginData: RESOLVING,
              });
              const local =
                r.errors.length === 0 &&
                !r.external &&
                r.namespace === 'file' &&
                !r.path.split(/[\\/]/).includes('node_modules');
              if (!local) {
                if (r.errors.length === 0 && r.namespace === 'file' && r.path) installed.add(r.path);
                else unresolved++;
              }
              return local ? { path: r.path } : { path: args.path, external: true };
            });
          },
        },
      ],
    });
    return { inputs: Object.keys(result.metafile.inputs), installed: [...installed], unresolved };
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } }> })
      .errors?.[0];
    const where = first?.location
      ? { file: relative(process.cwd(), join(root, first.location.file)), line: first.location.line }
      : { file: shown };
    throw invalid(
      'ERR_CONFIG_PARSE',
      `Cannot read the modules of a local package the config imports (a user rule's code must be identified): ${first?.text ?? describeThrown(error)}`,
      where,
      'Make the linked package bundleable by esbuild, or import the rule from a local module.',
    );
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

const JUDGED = new Set(['PASS', 'FAIL', 'BLOCKED', 'STALE']);

/**
 * A user rule as the engine and workers call it. Its code is the user's: a throw or a malformed value
 * from `plan` or `tool` is a config error (exit 2) naming the rule, never an internal error. Its `judge`
 * may only keep or worsen what the receipt says: a PASS needs a PASS receipt (an established claim
 * from a completed attempt), so a judge that answers PASS for a FAIL or BLOCKED receipt is ignored;
 * a judge that throws or answers something else leaves the item BLOCKED.
 */
function guardUserRule(rule: Rule, shown: string): Rule {
  const fail = (what: string, label: string | undefined, detail: string) =>
    invalid(
      'ERR_RULE_INVALID',
      `Rule \`${rule.kind}\` ${what}${label ? ` for \`${label}\`` : ''}: ${detail}`,
      { file: shown },
      'Fix the rule registered in your config.',
    );
  const notData = (label: string, error: unknown) =>
    fail(
      'planned a definition that is not plain JSON data',
      label,
      `${describeThrown(error)}; plan() must return data only (it enters the action key)`,
    );
  const guarded: Rule = {
    kind: rule.kind,
    version: rule.version,
    attrs: rule.attrs,
    plan(node, deps) {
      let planned: PlannedAction;
      try {
        planned = rule.plan(node, deps);
      } catch (error) {
        // A hosted rule's definition is copied in its thread, which says when it is not data.
        if (error instanceof PlainDataError) throw notData(node.label, error);
        throw fail('threw while planning', node.label, describeThrown(error));
      }
      const p = planned as Partial<PlannedAction> | null | undefined;
      if (
        typeof p !== 'object' ||
        p === null ||
        typeof p.definition !== 'object' ||
        p.definition === null ||
        Array.isArray(p.definition)
      )
        throw fail(
          'planned nothing usable',
          node.label,
          'plan() must return { definition: {...}, env: [...], execute }',
        );
      if (!Array.isArray(p.env) || !p.env.every((n) => typeof n === 'string'))
        throw fail('planned nothing usable', node.label, 'plan() must return `env` as an array of variable names');
      if (typeof p.execute !== 'function')
        throw fail('planned nothing usable', node.label, 'plan() must return an `execute` function');
      try {
        plainData(p.definition, 'definition');
      } catch (error) {
        throw notData(node.label, error);
      }
      try {
        jsonId(p.definition);
      } catch (error) {
        throw fail('planned a definition with no JSON form', node.label, describeThrown(error));
      }
      return planned;
    },
  };
  if (rule.tool) {
    const tool = rule.tool.bind(rule);
    guarded.tool = (attrs) => {
      let t: ReturnType<NonNullable<Rule['tool']>>;
      try {
        t = tool(attrs);
      } catch (error) {
        throw fail('threw in tool()', undefined, describeThrown(error));
      }
      if (
        t !== undefined &&
        (typeof t !== 'object' ||
          t === null ||
          typeof t.argv0 !== 'string' ||
          t.argv0 === '' ||
          typeof t.shell !== 'boolean')
      )
        throw fail('returned an unusable tool()', undefined, 'expected undefined or { argv0: string, shell: boolean }');
      return t;
    };
  }
  if (rule.judge) {
    const judge = rule.judge.bind(rule);
    guarded.judge = (result, today) => {
      let judged: ReturnType<NonNullable<Rule['judge']>>;
      try {
        judged = judge(result, today);
      } catch (error) {
        return { status: 'BLOCKED', reason: `rule \`${rule.kind}\` judge() threw: ${describeThrown(error)}` };
      }
      if (judged === undefined) return undefined;
      if (typeof judged !== 'object' || judged === null || !JUDGED.has(judged.status))
        return {
          status: 'BLOCKED',
          reason: `rule \`${rule.kind}\` judge() answered ${JSON.stringify(judged?.status ?? judged)}, not PASS, FAIL, BLOCKED or STALE`,
        };
      // Never better than the receipt: the engine refuses a judged PASS over any other outcome, for every rule.
      return {
        status: judged.status,
        reason: typeof judged.reason === 'string' ? judged.reason : String(judged.status),
      };
    };
  }
  return Object.freeze(guarded);
}

/** Numbers JSON.parse reads as ±Infinity (`1e400`), at their field path and line. */
function infiniteNumbers(parsed: ParsedJsonText, text: string, shown: string): Issue[] {
  const issues: Issue[] = [];
  const walk = (value: unknown, path: string, written?: string, line?: number) => {
    if (typeof value === 'number' && !Number.isFinite(value))
      issues.push({
        file: shown,
        path,
        line,
        message: `Expected a number a double can hold, got \`${written ?? value}\``,
      });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (value && typeof value === 'object') {
      const members = parsed.source.members(value) ?? [];
      for (const m of members)
        if (!m.duplicate)
          walk((value as Record<string, unknown>)[m.key], path ? `${path}.${m.key}` : m.key, m.numberText, m.line);
    }
  };
  walk(parsed.value, '');
  return issues.map((i) => (i.line ? i : { ...i, line: withLines([i], text)[0]!.line }));
}

/**
 * The manifest's text. Bytes that are not UTF-8 are refused (exit 2, naming the byte and its line):
 * read leniently, each would become U+FFFD and the manifest would run something its bytes do not say.
 * A leading byte-order mark stays in the text (JSON.parse then refuses it, as before).
 */
async function readUtf8(file: string, shown: string): Promise<string> {
  const bytes = await readFile(file);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    // Only on this error path: the acceptance reader's exact locator (its module loads a TOML parser).
    const at = firstInvalidUtf8(bytes) ?? 0;
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++;
    throw invalid(
      'ERR_CONFIG_PARSE',
      `The file is not valid UTF-8 at byte offset ${at} (0x${bytes[at]?.toString(16).padStart(2, '0') ?? '??'})`,
      { file: shown, line },
      'Save the manifest as UTF-8.',
    );
  }
}

function jsonErrorLine(text: string, error: Error): number | undefined {
  const pos = /position (\d+)/.exec(error.message);
  if (pos) return text.slice(0, Number(pos[1])).split('\n').length;
  const line = /line (\d+)/.exec(error.message);
  return line ? Number(line[1]) : undefined;
}

/** Adds the line of the first key on each issue's path in the JSON text, found by a light scan. */
function withLines(issues: Issue[], text: string): Issue[] {
  return issues.map((issue) => ({ ...issue, line: locate(text, issue.path) }));
}

function locate(text: string, path: string): number | undefined {
  // Walk keys in order; each search starts where the previous key was found. Good enough to point
  // a human at the right place; never used for anything but messages.
  let at = 0;
  for (const part of path.split(/\.|\[(\d+)\]/).filter(Boolean)) {
    if (/^\d+$/.test(part)) continue;
    const idx = text.indexOf(`"${part}"`, at);
    if (idx < 0) break;
    at = idx;
  }
  return at > 0 ? text.slice(0, at).split('\n').length : undefined;
}
