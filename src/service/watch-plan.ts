/**
 * What the watch loop listens to, derived from the last config that loaded: the input globs of
 * every capture node, the directories and single paths that can hold them, and the config's files.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { CONFIG_FILES, type LoadedConfig } from '../config/load.js';
import { compileGraph, type ActionGraph } from '../graph/compile.js';
import { compileGlob, matchGlobs, type Glob } from '../text/glob.js';

/** What the loop listens to, derived from the last config that loaded. */
export interface Plan {
  /** One glob set per capture node of the graph. */
  globSets: Glob[][];
  /** Absolute paths of the config candidates and the config's local imports. */
  configFiles: Set<string>;
  /** Root-relative directories whose whole subtree may hold inputs (`''` for the root, else ending in `/`). */
  dirs: string[];
  /** Root-relative single paths that matter: literal inputs and config files inside the root. */
  paths: string[];
}

/** The temp module the TS config loader writes (and deletes) beside the config. */
const TEMP_CONFIG = /\.timestamp-\d+-\d+-[0-9a-f]+\.mjs$/;

/**
 * The input globs of every capture node of the graph (checks, actions, comparisons, acceptance
 * records and their expansions, formal components with `vkit.lock.json`): what the engine captures
 * is exactly what the loop watches. Without a compiled graph (the first plan, or a config whose
 * workspace failed) it is compiled here; undefined when it cannot be (an `after` cycle).
 */
function captureInputs(config: LoadedConfig, graph?: ActionGraph): string[][] | undefined {
  let g = graph;
  if (!g) {
    try {
      g = compileGraph(config.manifest);
    } catch {
      return undefined;
    }
  }
  const sets: string[][] = [];
  g.graph.forEachNode((_, node) => {
    // A tool's git-ignored files (installed dependencies) change its identity: a cycle runs for them too.
    sets.push(node.inputs);
    if (node.toolFiles) sets.push(node.toolFiles);
  });
  return sets;
}

export function planFor(
  root: string,
  config: LoadedConfig | undefined,
  previous: Plan | undefined,
  graph?: ActionGraph,
): Plan {
  const configFiles = new Set<string>(CONFIG_FILES.map((f) => join(root, f)));
  // An unloadable config keeps the previous globs and imports: the fix may be in any of them.
  for (const s of config ? config.sources : [...(previous?.configFiles ?? [])]) configFiles.add(s);
  const inRoot = [...configFiles].map((f) => toRel(root, f)).filter((r) => !r.startsWith('..'));
  const patterns = config ? captureInputs(config, graph) : undefined;
  if (!patterns)
    return {
      globSets: previous?.globSets ?? [],
      configFiles,
      dirs: previous?.dirs ?? [],
      paths: [...new Set([...inRoot, ...(previous?.paths ?? [])])],
    };
  const globSets = patterns.map((set) => set.map(compileGlob));
  const positive = globSets.flat().filter((g) => !g.negated);
  const dirs = [...new Set(positive.filter((g) => !g.literal).map((g) => g.prefix))];
  const paths = [...new Set([...inRoot, ...positive.filter((g) => g.literal).map((g) => g.prefix)])];
  return { globSets, configFiles, dirs, paths };
}

/** The nearest existing directory at or above `path`, never above the root. */
export function existingDir(root: string, path: string): string {
  let p = path;
  while (p.length > root.length && !existsSync(p)) p = dirname(p);
  return p.length < root.length ? root : p;
}

export const toRel = (root: string, abs: string) => relative(root, abs).split(sep).join('/');

/**
 * Which paths matter to the loop under its current plan. chokidar watches the root, pruned by
 * `keep` to the directories on the way to an input and the subtrees a glob can reach. Files in a
 * watched directory are filtered by `matters` when they change, so a file the config starts to
 * name later is seen without re-adding anything; a newly relevant directory that was pruned is
 * added when the plan changes.
 */
export function watchedPaths(root: string, ignoredDirs: string[], current: () => Plan) {
  const isIgnored = (abs: string) =>
    ignoredDirs.some((d) => abs === d || abs.startsWith(d + sep)) ||
    TEMP_CONFIG.test(abs) ||
    (abs.includes(`${sep}node_modules${sep}`) &&
      !current()
        .globSets.flat()
        .some((g) => g.source.includes('node_modules')));
  return {
    matters(abs: string): boolean {
      const plan = current();
      if (plan.configFiles.has(abs)) return true;
      if (isIgnored(abs)) return false;
      const rel = toRel(root, abs);
      if (rel.startsWith('..')) return false;
      return plan.globSets.some((set) => matchGlobs(set, [rel]).length > 0);
    },
    keep(abs: string): boolean {
      const plan = current();
      if (plan.configFiles.has(abs)) return true;
      if (isIgnored(abs)) return false;
      const rel = toRel(root, abs);
      if (rel === '' || rel.startsWith('..')) return true; // outside the root: only the config's own imports are watched there
      const under = (p: string) => p.startsWith(`${rel}/`);
      return plan.dirs.some((d) => rel.startsWith(d) || under(d)) || plan.paths.some((p) => p === rel || under(p));
    },
    /** The config's files outside the root, watched on their own. */
    outside(plan: Plan): string[] {
      return [...plan.configFiles].filter((f) => toRel(root, f).startsWith('..'));
    },
  };
}
