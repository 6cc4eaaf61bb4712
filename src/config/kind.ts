/**
 * The kind API. A kind is everything one section of the manifest means: its config key and entry
 * schema, the gate labels of its entries, how an entry expands into graph nodes (inputs, capture
 * mode, dependencies), the rules those nodes run, and what it checks when a workspace opens. The
 * built-in kinds live in `rules/<kind>/`, one folder each, listed by one registry (`rules/index.ts`);
 * `src/` never imports them: an entry point hands the registry in (`installKinds`), and job workers load
 * the same registry module by its URL. Adding a kind is one folder plus one registry line.
 */
import type { GenericSchema } from 'valibot';
import { VkitError, EXIT, type Issue } from '../errors.js';
import type { Rule } from './rule.js';
import type { ToolSpec } from '../kit/tool.js';
import type { Verb } from '../kit/verb.js';
import { importModule } from './import-module.js';

/** One node of the action graph as a kind declares it. */
export interface KindNode {
  /** The gate label, `<prefix>:<id>`: `check:a`, `accept:r/lib` (`--only` reads it so). */
  label: string;
  /** The rule the node runs. */
  kind: string;
  /** The label after its first `:`. */
  id: string;
  attrs: Record<string, unknown>;
  /** Root-relative globs the node's key covers (its selector capture). */
  inputs: string[];
  /** `raw`: the key sees the inputs' bytes; else text inputs are hashed with CRLF -> LF. */
  hash?: 'raw';
  /**
   * The config entry names these inputs itself (checks, user actions): what they select must be
   * what the key covers, so a link whose target is not captured is a config error, not a silent gap.
   */
  declared?: boolean;
  /**
   * Root-relative globs beyond the inputs that the node's tool identity reads (a check's installed
   * npm dependencies, git-ignored): re-hashed by every build, listened to by watch.
   */
  toolFiles?: string[];
  /** Gate requirement? */
  required: boolean;
  /** Labels this node depends on (their results enter its key). */
  after: string[];
}

/** What a kind sees when a workspace opens (before the graph is compiled). */
interface OpenContext {
  root: string;
  /** Sorted root-relative paths of the working tree (tracked + untracked, not ignored). */
  files: readonly string[];
  /** What git ignores: a glob selecting it is a config error unless it excludes it. */
  ignored: readonly string[];
  /** The config file as messages show it. */
  shown: string;
}

/** What `vkit policy accept` binds for one entry in vkit.lock.json, or why it cannot. */
export type LockJudgement =
  | { policy_sha256: string; package_sha256?: string; checker_sha256: string; profile: string }
  | { reasons: string[] };

/** One entry `vkit policy accept` may bind, under its key in vkit.lock.json, judged only when accepted. */
export interface LockCandidate {
  key: string;
  judge(): Promise<LockJudgement>;
}

/**
 * Checker profiles a kind's rules run (a model checker's), by id: `vkit doctor` reports their
 * assets under `label`, and an evidence bundle's capsule finds its run's profile among them.
 */
interface KindProfiles {
  label: string;
  ids: readonly string[];
  /** The profile (the formal library's profile contract), or undefined when this vkit has none. */
  load(id: string): Promise<unknown>;
}

/** The resolved manifest as kinds read it: sections by name. */
export type ManifestSections = Readonly<Record<string, unknown>>;

/**
 * One kind. `E` is an entry as the schema outputs it (defaults filled), `I` as a config writes it, `S`
 * the section's literal name: the config and manifest types are inferred from these (`ConfigOf`).
 */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds kinds of every entry type; each checks its own with `entry`.
export interface Kind<E = any, S extends string = string, I = unknown> {
  /** The kind's name (its folder): `check`, `formal`. */
  name: string;
  /** Where its entries live in the manifest: `checks`, `formal.components` (one level of nesting at most). */
  section: S;
  /** valibot schema of one entry, with defaults: the manifest's schema is composed from these. */
  entry: GenericSchema<I, E>;
  /** The rules its nodes run, loaded on demand (a no-op build of plain checks never loads the others). */
  rules: Readonly<Record<string, () => Promise<Rule>>>;
  /** The entry's gate label: `check:<id>`. Unique across the manifest (a duplicate is a config error). */
  label(entry: E): string;
  /** Whether the entry's gate item is a requirement. @default true */
  required?(entry: E): boolean;
  /** Defaults that depend on the rest of the manifest (a check's sandbox from the config-wide one). */
  resolve?(entry: E, config: { sandbox?: unknown }): void;
  /** Cross-references beyond the schema, with field paths relative to the manifest (`checks[2].after[0]`). */
  validate?(entries: readonly E[], manifest: ManifestSections, ruleKinds: ReadonlySet<string>): Omit<Issue, 'file'>[];
  /** Run sandboxed whatever the config says (the protected gate's checks). */
  confine?(entry: E): void;
  /** Checks against the working tree when a workspace opens (inputs it cannot stand for); may derive attributes. */
  open?(entry: E, at: string, ctx: OpenContext): Issue[] | Promise<Issue[]>;
  /** The graph nodes of one entry; `labels` holds every entry's label, to resolve `after` ids. */
  expand(entry: E, labels: ReadonlySet<string>): KindNode[];
  /**
   * Under the protected gate, why a PASS of one of this kind's rules cannot stand, judged from the
   * candidate mode and what its receipt records (`subject`, undefined when the receipt is not intact);
   * undefined when it can. Without it, a PASS stands when this protected run produced it.
   */
  protectedProblem?(subject: Readonly<Record<string, unknown>> | undefined, provisional: boolean): string | undefined;
  /**
   * CLI verbs the kind adds (`vkit model compare`): declarations, which `vkit --help` lists after
   * vkit's own, each bound to a handler imported when it runs.
   */
  verbs?: readonly Verb[];
  /** Checker profiles the kind's rules run, beside the formal library's own (Coq, Verus). */
  profiles?: KindProfiles;
  /** JSON schemas the kind publishes in `schema/` (its reports' contracts), by file name; loaded on use. */
  schemas?: () => Promise<Readonly<Record<string, GenericSchema>>>;
  /** MCP tools the kind adds, by name; loaded when an MCP server starts (their schemas need zod). */
  tools?: () => Promise<Readonly<Record<string, ToolSpec>>>;
  /**
   * What `vkit policy accept` binds for the kind's entries (a formal component's digests): a kind
   * whose actions run only against an accepted policy names each entry's lock key and how to judge it.
   */
  lock?(entries: readonly E[], ctx: { root: string; env: NodeJS.ProcessEnv }): Promise<LockCandidate[]>;
}

// biome-ignore lint/suspicious/noExplicitAny: any kind, whatever its entry types.
type AnyKind = Kind<any, string, any>;

export interface KindRegistry<K extends readonly AnyKind[] = readonly AnyKind[]> {
  /** URL of the module exporting this registry as `registry`: job workers load it from there. */
  module: string;
  kinds: K;
}

/** `{ checks?: T[] }`, or `{ formal?: { components?: T[] } }` for a nested section. */
type SectionOf<S extends string, T, Optional extends boolean> = S extends `${infer H}.${infer R}`
  ? Optional extends true
    ? { [h in H]?: { [r in R]?: T[] } }
    : { [h in H]: { [r in R]: T[] } }
  : Optional extends true
    ? { [s in S]?: T[] }
    : { [s in S]: T[] };

type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** One kind's section, as a config writes it (its entry schema's input). */
type ConfigSection<K> = K extends Kind<unknown, infer S, infer I> ? SectionOf<S, I, true> : never;
/** One kind's section as the resolved manifest holds it (its entry schema's output). */
type ManifestSection<K> = K extends Kind<infer E, infer S> ? SectionOf<S, E, false> : never;

/** The sections a config may write for a registry's kinds, typed from each kind's entry schema. */
export type ConfigSectionsOf<R extends KindRegistry> = Intersect<ConfigSection<R['kinds'][number]>>;

/** The sections a resolved manifest holds for a registry's kinds (defaults filled). */
export type ManifestSectionsOf<R extends KindRegistry> = Intersect<ManifestSection<R['kinds'][number]>>;

const NAME = /^[a-z][a-z0-9-]*$/;

/** A kind; its entry types and section name are inferred from `entry` and `section`. */
export function defineKind<E, const S extends string, I>(kind: Kind<E, S, I>): Kind<E, S, I> {
  if (!NAME.test(kind.name)) throw new TypeError(`Expected kind name to match ${NAME}, got \`${kind.name}\``);
  if (kind.section.split('.').length > 2)
    throw new TypeError(`Expected section \`${kind.section}\` to nest once at most`);
  return Object.freeze(kind);
}

/** A registry module's export: `export const registry = defineRegistry(import.meta.url, [...])`. */
export function defineRegistry<const K extends readonly AnyKind[]>(module: string, kinds: K): KindRegistry<K> {
  const seen = new Set<string>();
  for (const k of kinds) {
    const keys = [
      `kind ${k.name}`,
      `section ${k.section}`,
      ...Object.keys(k.rules).map((r) => `rule ${r}`),
      ...(k.verbs ?? []).map((v) => `verb ${v.spec.name}`),
    ];
    for (const key of keys) {
      if (seen.has(key)) throw new TypeError(`Two kinds in one registry declare the same ${key}`);
      seen.add(key);
    }
  }
  return Object.freeze({ module, kinds: Object.freeze([...kinds]) as unknown as K });
}

/** The entries of a kind's section (absent sections read as none). */
export function entriesOf(manifest: ManifestSections, kind: Kind): unknown[] {
  const [head, tail] = kind.section.split('.');
  const top = manifest[head!];
  const value = tail === undefined ? top : (top as Record<string, unknown> | undefined)?.[tail];
  return Array.isArray(value) ? value : [];
}

/** The kind whose rules include `rule` (undefined for a user rule). */
export function kindOfRule(registry: KindRegistry, rule: string): Kind | undefined {
  return registry.kinds.find((k) => Object.hasOwn(k.rules, rule));
}

/** Every rule kind the registry's kinds run (user rules may not take one). */
export function ruleKindsOf(registry: KindRegistry): ReadonlySet<string> {
  return new Set(registry.kinds.flatMap((k) => Object.keys(k.rules)));
}

/** The rules of the given kinds the registry can load (others are skipped: user rules, unknown kinds). */
export async function loadRules(registry: KindRegistry, wanted: Iterable<string>): Promise<Map<string, Rule>> {
  const loaders = new Map(registry.kinds.flatMap((k) => Object.entries(k.rules)));
  const names = [...new Set(wanted)].filter((n) => loaders.has(n));
  const rules = await Promise.all(names.map((n) => loaders.get(n)!()));
  for (const [i, r] of rules.entries())
    if (r.kind !== names[i]) throw new Error(`rule registered as \`${names[i]}\` has kind \`${r.kind}\``);
  return new Map(rules.map((r) => [r.kind, r]));
}

let installedModule: string | undefined;
let loaded: KindRegistry | undefined;
let loader: (() => Promise<KindRegistry>) | undefined;

/**
 * Installs the kind registry for this process: the registry itself, or the URL of the module
 * exporting it (loaded on first need, so `vkit --version` never pays for it). `load`, with a URL,
 * is how this process loads it (the bundled CLI's own copy, whose modules are the ones this
 * process already runs); the URL stays what the processes it starts load. Entry points call it
 * once, before any workspace opens.
 */
export function installKinds(registry: KindRegistry | string, load?: () => Promise<KindRegistry>): void {
  installedModule = typeof registry === 'string' ? registry : registry.module;
  loaded = typeof registry === 'string' ? undefined : registry;
  loader = typeof registry === 'string' ? load : undefined;
}

/** The installed registry's module URL, for the processes this one starts (workers, the daemon). */
export function kindsModule(): string {
  if (!installedModule) throw noKinds();
  return installedModule;
}

/** Loads the installed registry (once); every path that reads a config awaits it first. */
export async function loadKinds(): Promise<KindRegistry> {
  const module = kindsModule();
  loaded ??= loader ? await loader() : (await importModule<{ registry: KindRegistry }>(module)).registry;
  return loaded;
}

/** The loaded registry; none is an internal error (an entry point forgot to install it), never an empty manifest. */
export function kinds(): KindRegistry {
  if (!loaded) throw noKinds();
  return loaded;
}

function noKinds(): VkitError {
  return new VkitError(
    'ERR_NO_KINDS',
    EXIT.internal,
    'No kind registry is loaded: the entry point must call installKinds() (bin/vkit.js installs rules/index.js) and loadKinds() must run before a config is read',
  );
}

/**
 * An `after` entry naming a dependency already listed. Refused rather than read as a set: a repeated
 * id is most often a typo for the one that was meant, and merging the two would hide that mistake.
 */
export function repeatedDependency(path: string, dep: string, first: number): Omit<Issue, 'file'> {
  return { path, message: `Duplicate: \`${dep}\` is already listed at after[${first}]; list each dependency once` };
}
