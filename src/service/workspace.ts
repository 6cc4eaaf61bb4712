/**
 * Opening a workspace: find the root's config, resolve the store location, open the store (which
 * runs recovery), list the working tree, check every node's inputs against it, and compile the graph.
 * Everything a verb needs, assembled once.
 */
import { join, relative, resolve } from 'node:path';
import { INPUTS_HINT } from '../capture/selector.js';
import { gitInfo } from '../capture/git.js';
import { listWorkTree } from '../capture/listing.js';
import { keptConfigsIn } from '../config/kept.js';
import { loadConfig } from '../config/load.js';
import { entriesOf, kinds, loadRules } from '../config/kind.js';
import type { Rule } from '../config/rule.js';
import type { EngineContext } from '../engine/build.js';
import { remoteChoice, type RemoteConfig, type RemoteRequest } from '../remote/choice.js';
import type { RemoteContext } from '../remote/context.js';
import { InvalidInputError, invalid, type Issue } from '../errors.js';
import { realRoot } from './root.js';
import { compileGraph, type ActionGraph } from '../graph/compile.js';
import { type ExecutorConfig, executorFlag } from '../config/executor.js';
import { LocalExecutor, type LocalExecutorOptions } from '../jobs/local-executor.js';
import { JobService, type JobServiceOptions } from '../jobs/service.js';
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
  /** A shared remote cache (`--remote URL`, `--remote-only-read`); default `VKIT_REMOTE`, if set. */
  remote?: RemoteRequest;
  /**
   * A remote the caller opened itself (the protected gate's: its trusted signers from the target
   * commit, its entries scoped to the target authority); `null` for none, whatever the flags,
   * environment or config say.
   */
  remoteContext?: RemoteContext | null;
  /** `--executor local|nats://HOST:PORT`: who runs the jobs, over the config's `executor`. */
  executor?: string;
}

/** An open project: everything the engine runs with (a workspace is its context), and how to close it. */
export interface Workspace extends EngineContext {
  files: string[];
  /** Untracked paths git ignores, sorted (directories once, with `/`); empty without git. */
  ignored: readonly string[];
  close(): void;
}

export async function defaultStoreDir(root: string): Promise<string> {
  const info = await gitInfo(root);
  return info ? join(info.commonDir, 'vkit') : join(root, '.vkit');
}

/** Opens only the store, for verbs that read evidence without a config (runs, run show, gc). */
export async function openStore(opts: OpenOptions = {}): Promise<Store> {
  const root = realRoot(opts.root);
  return new Store(opts.store ? resolve(opts.store) : await defaultStoreDir(root), opts.storeOptions);
}

export async function openWorkspace(opts: OpenOptions = {}): Promise<Workspace> {
  const root = realRoot(opts.root);
  // Listing the tree and what git ignores (git processes; maybe started ahead by the CLI) overlaps
  // with loading the config and opening the store. A glob selecting what git ignores is a config
  // error; without git nothing is ignored: the walk lists every file.
  const tree = listWorkTree(root);
  const info = await tree.info;
  const storeDir = opts.store ? resolve(opts.store) : info ? join(info.commonDir, 'vkit') : join(root, '.vkit');
  // With the speed layer, a TS config unchanged since an earlier load is not bundled again, and a
  // JSON manifest read before is not validated again (both kept in the store).
  const config = await loadConfig(root, { kept: keptConfigsIn(storeDir) });
  if (opts.confineChecks)
    for (const kind of kinds().kinds) for (const entry of entriesOf(config.manifest, kind)) kind.confine?.(entry);
  const store = new Store(storeDir, opts.storeOptions);
  let files: string[];
  let ignored: string[];
  try {
    files = await tree.files;
    ignored = await tree.ignored;
  } catch (error) {
    store.close();
    await config.close();
    throw error;
  }
  const shown = relative(process.cwd(), config.file) || config.file;
  const registry = kinds();
  let graph: ActionGraph;
  let rules: Map<string, Rule>;
  try {
    // Each kind checks its entries against the working tree: what vkit will not capture (git-ignored
    // or secret-looking files, ignored directories) must not be selected unless excluded.
    const issues: Issue[] = [];
    const ctx = { root, files, ignored, shown };
    for (const kind of registry.kinds)
      for (const [i, entry] of entriesOf(config.manifest, kind).entries())
        issues.push(...((await kind.open?.(entry, `${kind.section}[${i}]`, ctx)) ?? []));
    if (issues.length) throw new InvalidInputError('ERR_CONFIG_INPUTS', issues, INPUTS_HINT);
    graph = compileGraph(config.manifest, shown, registry);
    const used = new Set(graph.order.map((l) => graph.graph.getNodeAttributes(l).kind));
    rules = new Map<string, Rule>([...(await loadRules(registry, used)), ...config.rules]);
  } catch (error) {
    store.close();
    await config.close();
    throw error;
  }
  const env = opts.env ?? process.env;
  let remote: RemoteContext | undefined;
  try {
    const configured = config.manifest.remote as RemoteConfig | undefined;
    // The HTTP client loads only for a build that uses a remote.
    remote =
      opts.remoteContext !== undefined
        ? (opts.remoteContext ?? undefined)
        : remoteChoice(opts.remote, env, configured)
          ? (await import('../remote/context.js')).openRemote(root, opts.remote, env, configured)
          : undefined;
  } catch (error) {
    store.close();
    await config.close();
    throw error;
  }
  let executor: JobServiceOptions['executor'];
  try {
    executor = await fleetExecutor(opts, config.manifest.executor as ExecutorConfig | undefined, remote, {
      root,
      rules,
      env,
      hooks: opts.hooks,
      confine: opts.confineChecks,
    });
  } catch (error) {
    store.close();
    await config.close();
    throw error;
  }
  const jobs = new JobService({ root, store, rules, env, hooks: opts.hooks, confine: opts.confineChecks, executor });
  return {
    root,
    config,
    graph,
    store,
    jobs,
    rules,
    files,
    ignored,
    env,
    ...(remote ? { remote } : {}),
    close: () => {
      jobs.close();
      store.close();
      void config.close();
    },
  };
}

/**
 * The NATS executor when `--executor` or the config's `executor` names one (its client loaded only
 * then); undefined for this machine's workers. It needs the remote cache: the jobs' inputs and
 * results travel through it, and only results signed by its trusted signers count.
 */
async function fleetExecutor(
  opts: OpenOptions,
  configured: ExecutorConfig | undefined,
  remote: RemoteContext | undefined,
  local: LocalExecutorOptions,
): Promise<JobServiceOptions['executor']> {
  const chosen = opts.executor !== undefined ? executorFlag(opts.executor, configured) : configured;
  if (chosen?.kind !== 'nats') return undefined;
  if (!remote)
    throw invalid(
      'ERR_CONFIG_EXECUTOR',
      "The NATS executor needs the remote cache: the jobs' inputs and signed results travel through it",
      { path: opts.executor !== undefined ? '--executor' : 'executor' },
      'Set `remote: { url }` in the config, or pass --remote URL (or VKIT_REMOTE).',
    );
  const { NatsExecutor } = await import('../jobs/fleet/face.js');
  return (host) =>
    new NatsExecutor(host, { config: chosen, remote, local: () => new LocalExecutor(host, local), warn: remote.warn });
}
