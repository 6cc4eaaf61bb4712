/**
 * Opening a workspace: find the root's config, resolve the store location, open the store (which
 * runs recovery), list the working tree, check every node's inputs against it, and compile the graph.
 * Everything a verb needs, assembled once.
 */
import { walkTree } from '../capture/walk.js';
import { acceptanceInputs } from '../acceptance/inputs.js';
import { expandAcceptance } from '../acceptance/graph.js';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { BUILTIN_RULES } from '../../rules/index.js';
import { selectorIssues } from '../capture/selector.js';
import { gitInfo, listGitFiles } from '../capture/git.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { Rule } from '../config/rule.js';
import { InvalidInputError, invalid, type Issue } from '../errors.js';
import { compileGraph, type ActionGraph } from '../graph/compile.js';
import { compareRequestText } from '../models/index.js';
import { JobService } from '../jobs/service.js';
import type { WorkerHooks } from '../jobs/worker.js';
import { Store, type StoreOptions } from '../store/store.js';

export interface OpenOptions {
  root?: string;
  /** Store directory; default `<git common dir>/vkit`, or `<root>/.vkit` without git. */
  store?: string;
  env?: NodeJS.ProcessEnv;
  storeOptions?: StoreOptions;
  hooks?: WorkerHooks;
}

export interface Workspace {
  root: string;
  config: LoadedConfig;
  graph: ActionGraph;
  store: Store;
  jobs: JobService;
  rules: ReadonlyMap<string, Rule>;
  files: string[];
  env: NodeJS.ProcessEnv;
  close(): void;
}

export async function defaultStoreDir(root: string): Promise<string> {
  const info = await gitInfo(root);
  return info ? join(info.commonDir, 'vkit') : join(root, '.vkit');
}

/** Opens only the store, for verbs that read evidence without a config (runs, run show, gc). */
export async function openStore(opts: OpenOptions = {}): Promise<Store> {
  const root = resolve(opts.root ?? process.cwd());
  return new Store(opts.store ? resolve(opts.store) : await defaultStoreDir(root), opts.storeOptions);
}

export async function openWorkspace(opts: OpenOptions = {}): Promise<Workspace> {
  const root = resolve(opts.root ?? process.cwd());
  if (!existsSync(root) || !lstatSync(root).isDirectory()) throw invalid('ERR_ROOT', `Expected --root to be a directory, got \`${root}\``);
  // Listing the tree (a git process) overlaps with loading the config and opening the store.
  const info = await gitInfo(root);
  const listing = info ? listGitFiles(root).then((f) => f.sort()) : Promise.resolve(walkTree(root));
  listing.catch(() => {}); // awaited below; a config error must not leave it unhandled
  const config = await loadConfig(root);
  const store = new Store(opts.store ? resolve(opts.store) : info ? join(info.commonDir, 'vkit') : join(root, '.vkit'), opts.storeOptions);
  let files: string[];
  try {
    files = await listing;
  } catch (error) {
    store.close();
    throw error;
  }
  const shown = relative(process.cwd(), config.file) || config.file;
  const issues: Issue[] = [];
  config.manifest.checks.forEach((c, i) => issues.push(...selectorIssues(c.inputs, files, `checks[${i}].inputs`, shown)));
  config.manifest.actions.forEach((a, i) => issues.push(...selectorIssues(a.inputs, files, `actions[${i}].inputs`, shown)));
  config.manifest.acceptance.forEach((a, i) => {
    a.inputs ??= acceptanceInputs(root, a);
    issues.push(...selectorIssues(a.inputs, files, `acceptance[${i}].inputs`, shown));
    a.expansion = expandAcceptance(root, a, files);
    for (const n of a.expansion.nodes) issues.push(...selectorIssues(n.inputs, files, `acceptance[${i}] (${n.label}) inputs`, shown));
  });
  config.manifest.compare.forEach((c, i) => {
    const missing = selectorIssues([c.request], files, `compare[${i}].request`, shown);
    issues.push(...(missing.length ? missing : requestIssues(root, c.request)));
  });
  let graph: ActionGraph;
  try {
    if (issues.length) throw new InvalidInputError('ERR_CONFIG_INPUTS', issues, 'Fix the globs, or create the files they should match.');
    graph = compileGraph(config.manifest, shown);
  } catch (error) {
    store.close();
    throw error;
  }
  const rules = new Map<string, Rule>([...BUILTIN_RULES, ...config.rules]);
  const env = opts.env ?? process.env;
  const jobs = new JobService({ root, store, rules, env, hooks: opts.hooks });
  return { root, config, graph, store, jobs, rules, files, env, close: () => {
      jobs.close();
      store.close();
    } };
}

/** An invalid comparison request is a config error (exit 2), named by its file and JSON path. */
function requestIssues(root: string, request: string): Issue[] {
  const outcome = compareRequestText(readFileSync(join(root, request), 'utf8'));
  return outcome.ok ? [] : outcome.issues.map((i) => ({ ...i, file: relative(process.cwd(), join(root, request)) }));
}

