/**
 * Opening a workspace: find the root's config, resolve the store location, open the store (which
 * runs recovery), list the working tree, check every node's inputs against it, and compile the graph.
 * Everything a verb needs, assembled once.
 */
import { walkTree } from '../capture/walk.js';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { builtinRules } from '../../rules/index.js';
import { INPUTS_HINT, selectorIssues } from '../capture/selector.js';
import { gitInfo, listGitFiles, listIgnored } from '../capture/git.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { Rule } from '../config/rule.js';
import { InvalidInputError, invalid, type Issue } from '../errors.js';
import { compileGraph, type ActionGraph } from '../graph/compile.js';
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
  /**
   * Every check sandboxed, whatever the config says (`sandbox: { none }` becomes `isolated`): the
   * protected gate's private store must be out of reach of the candidate's checks.
   */
  confineChecks?: boolean;
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
  if (!existsSync(root) || !lstatSync(root).isDirectory())
    throw invalid('ERR_ROOT', `Expected --root to be a directory, got \`${root}\``);
  // Listing the tree (a git process) overlaps with loading the config and opening the store.
  const info = await gitInfo(root);
  const listing = info ? listGitFiles(root).then((f) => f.sort()) : Promise.resolve(walkTree(root));
  // What git ignores (a second process, also overlapping): a glob selecting it is a config error.
  // Without git nothing is ignored: the walk lists every file.
  const ignoring = info ? listIgnored(root, info.prefix) : Promise.resolve([]);
  listing.catch(() => {}); // awaited below; a config error must not leave it unhandled
  ignoring.catch(() => {});
  const config = await loadConfig(root);
  if (opts.confineChecks)
    for (const check of config.manifest.checks) if (typeof check.sandbox === 'object') check.sandbox = 'isolated';
  const store = new Store(
    opts.store ? resolve(opts.store) : info ? join(info.commonDir, 'vkit') : join(root, '.vkit'),
    opts.storeOptions,
  );
  let files: string[];
  let ignored: string[];
  try {
    files = await listing;
    ignored = await ignoring;
  } catch (error) {
    store.close();
    await config.close();
    throw error;
  }
  const shown = relative(process.cwd(), config.file) || config.file;
  // Acceptance and model code load only for manifests that use them (a no-op build of plain checks never does).
  const acceptance = config.manifest.acceptance.length
    ? { ...(await import('../acceptance/inputs.js')), ...(await import('../acceptance/graph.js')) }
    : undefined;
  const models = config.manifest.compare.length ? await import('../models/index.js') : undefined;
  const issues: Issue[] = [];
  // Checks, actions and comparisons must not select what vkit will not capture (git-ignored or
  // secret-looking files, ignored directories) unless they exclude it. Acceptance items are judged by
  // their own rule instead: the accept action is BLOCKED on any file it reads outside its capture,
  // and most of its inputs are derived, where no `!` could be written.
  config.manifest.checks.forEach((c, i) =>
    issues.push(...selectorIssues(c.inputs, files, `checks[${i}].inputs`, shown, ignored)),
  );
  config.manifest.actions.forEach((a, i) =>
    issues.push(...selectorIssues(a.inputs, files, `actions[${i}].inputs`, shown, ignored)),
  );
  config.manifest.acceptance.forEach((a, i) => {
    a.inputs ??= acceptance!.acceptanceInputs(root, a);
    issues.push(...selectorIssues(a.inputs, files, `acceptance[${i}].inputs`, shown));
    a.expansion = acceptance!.expandAcceptance(root, a, files);
    for (const n of a.expansion.nodes)
      issues.push(...selectorIssues(n.inputs, files, `acceptance[${i}] (${n.label}) inputs`, shown));
  });
  config.manifest.compare.forEach((c, i) => {
    const missing = selectorIssues([c.request], files, `compare[${i}].request`, shown, ignored);
    issues.push(...(missing.length ? missing : requestIssues(root, c.request, models!.requestTextIssues)));
  });
  let graph: ActionGraph;
  let rules: Map<string, Rule>;
  try {
    if (issues.length) throw new InvalidInputError('ERR_CONFIG_INPUTS', issues, INPUTS_HINT);
    graph = compileGraph(config.manifest, shown);
    const kinds = new Set(graph.order.map((l) => graph.graph.getNodeAttributes(l).kind));
    rules = new Map<string, Rule>([...(await builtinRules(kinds)), ...config.rules]);
  } catch (error) {
    store.close();
    await config.close();
    throw error;
  }
  const env = opts.env ?? process.env;
  const jobs = new JobService({ root, store, rules, env, hooks: opts.hooks, confine: opts.confineChecks });
  return {
    root,
    config,
    graph,
    store,
    jobs,
    rules,
    files,
    env,
    close: () => {
      jobs.close();
      store.close();
      void config.close();
    },
  };
}

/** An invalid comparison request is a config error (exit 2), named by its file and JSON path. */
function requestIssues(root: string, request: string, requestTextIssues: (text: string) => Issue[]): Issue[] {
  const issues = requestTextIssues(readFileSync(join(root, request), 'utf8'));
  return issues.map((i) => ({ ...i, file: relative(process.cwd(), join(root, request)) }));
}
