/**
 * `vkit watch`: build, then rebuild whenever a declared input, the config or one of its imports
 * changes. Each cycle re-opens the workspace (so a config edit recompiles the graph and new files are
 * listed) and runs the engine in build mode: only actions whose keys changed rerun, the rest are
 * cache hits. The loop emits only `vkit.event/1`; faces render it.
 *
 * chokidar 5 has no globs, so the loop watches the directories that can hold declared inputs (each
 * glob's static prefix), the config files and the request files, and decides itself whether a
 * changed path matters by matching it against the globs. Whether an event is a change at all is
 * vkit's fingerprint's call (watch-judge.ts), never chokidar's: its filter drops an edit that puts
 * the mtime back, so its raw events are judged too.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { compileGlob, matchGlobs, type Glob } from '../text/glob.js';
import { CONFIG_FILES, readConfig, type LoadedConfig } from '../config/load.js';
import { runEngine } from '../engine/build.js';
import { compileGraph, type ActionGraph } from '../graph/compile.js';
import { makeEvent, type EventSink } from '../engine/events.js';
import { InvalidInputError } from '../errors.js';
import { realRoot } from './root.js';
import type { Gate } from '../gate/schema.js';
import { ChangeJudge, rawEventPath } from './watch-judge.js';
import { defaultStoreDir, openWorkspace, type OpenOptions } from './workspace.js';

export interface WatchOptions {
  onEvent: EventSink;
  /** Aborting stops the loop: running attempts are cancelled (`interrupted`, reason `cancelled`). */
  signal: AbortSignal;
  /** Quiet period after the last change before a cycle starts. @default 50 */
  debounceMs?: number;
  /** Concurrent actions. @default 1 */
  jobs?: number;
  /** Called once the file watcher is ready (tests and benchmarks write files only after it). */
  onReady?: () => void;
  /** Filled in by `watch`: ask for a cycle that reruns these labels (or everything) as fresh runs. */
  control?: WatchControl;
}

export interface WatchControl {
  rerun?: (labels: string[] | 'all') => void;
}

/** What the loop listens to, derived from the last config that loaded. */
interface Plan {
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

function planFor(
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
function existingDir(root: string, path: string): string {
  let p = path;
  while (p.length > root.length && !existsSync(p)) p = dirname(p);
  return p.length < root.length ? root : p;
}

const toRel = (root: string, abs: string) => relative(root, abs).split(sep).join('/');

function blockedGate(message: string): Gate {
  return { schema: 'vkit.gate/1', status: 'BLOCKED', reason: `config invalid: ${message}`, items: [] };
}

/** Runs the watch loop until `signal` aborts; resolves once the last cycle has settled and the watcher is closed. */
export async function watch(open: OpenOptions, opts: WatchOptions): Promise<void> {
  const root = realRoot(open.root);
  const storeDir = open.store ? resolve(open.store) : await defaultStoreDir(root);
  const emit = opts.onEvent;
  const debounceMs = opts.debounceMs ?? 50;
  const ignoredDirs = [join(root, '.git'), storeDir, join(root, '.vkit')];
  // The first plan comes from the config alone, so the input directories are watched before the first build.
  let plan: Plan = planFor(root, await readConfig(root).catch(() => undefined), undefined);
  const pending = new Set<string>();
  let cycle = 0;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;

  const isIgnored = (abs: string) =>
    ignoredDirs.some((d) => abs === d || abs.startsWith(d + sep)) ||
    TEMP_CONFIG.test(abs) ||
    (abs.includes(`${sep}node_modules${sep}`) && !plan.globSets.flat().some((g) => g.source.includes('node_modules')));

  const matters = (abs: string): boolean => {
    if (plan.configFiles.has(abs)) return true;
    if (isIgnored(abs)) return false;
    const rel = toRel(root, abs);
    if (rel.startsWith('..')) return false;
    return plan.globSets.some((set) => matchGlobs(set, [rel]).length > 0);
  };

  // chokidar watches the root, pruned by `ignored` to the directories on the way to an input and
  // the subtrees a glob can reach. Files in a watched directory are filtered when they change, so a
  // file the config starts to name later is seen without re-adding anything; a newly relevant
  // directory that was pruned is added when the plan changes.
  const keep = (abs: string): boolean => {
    if (plan.configFiles.has(abs)) return true;
    if (isIgnored(abs)) return false;
    const rel = toRel(root, abs);
    if (rel === '' || rel.startsWith('..')) return true; // outside the root: only the config's own imports are watched there
    const under = (p: string) => p.startsWith(`${rel}/`);
    return plan.dirs.some((d) => rel.startsWith(d) || under(d)) || plan.paths.some((p) => p === rel || under(p));
  };
  const outside = (p: Plan) => [...p.configFiles].filter((f) => toRel(root, f).startsWith('..'));
  const watcher: FSWatcher = chokidarWatch([root, ...outside(plan)], {
    ignoreInitial: true,
    ignored: (p: string) => !keep(p),
  });
  const ready = new Promise<void>((r) => watcher.once('ready', () => r()));

  const retarget = (next: Plan) => {
    const old = plan;
    plan = next;
    const added = [
      ...next.dirs.filter((d) => !old.dirs.includes(d)).map((d) => existingDir(root, join(root, d))),
      ...next.paths.filter((p) => !old.paths.includes(p)).map((p) => existingDir(root, dirname(join(root, p)))),
      ...outside(next).filter((f) => !old.configFiles.has(f)),
    ].filter((t) => t !== root);
    if (added.length) watcher.add([...new Set(added)]);
  };

  // Reruns asked for by a face (the TUI's r and a keys): fresh runs in the next cycle.
  let fresh: Set<string> | 'all' | undefined;
  const runCycle = async (changed: string[]) => {
    const rerun = fresh;
    fresh = undefined;
    const n = ++cycle;
    const t0 = performance.now();
    emit(makeEvent({ type: 'cycle.started', cycle: n, changed }));
    let ws;
    try {
      ws = await openWorkspace(open);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      // The config may load while the workspace does not (a glob matching no file yet): watch its globs then.
      const config = await readConfig(root).catch(() => undefined);
      retarget(planFor(root, config, plan));
      const message = error.message;
      emit(makeEvent({ type: 'config.invalid', code: error.code, message }));
      emit(
        makeEvent({
          type: 'cycle.settled',
          status: 'BLOCKED',
          ran: 0,
          cached: 0,
          ms: Math.round(performance.now() - t0),
          cycle: n,
          gate: blockedGate(message),
        }),
      );
      return;
    }
    try {
      retarget(planFor(root, ws.config, plan, ws.graph));
      const sink: EventSink = (e) =>
        emit(e.type === 'cycle.settled' ? { ...e, ms: Math.round(performance.now() - t0) } : e);
      const { root: r, config, graph, store, jobs, rules, files, env } = ws;
      // Stopped while opening: settle from retained evidence rather than start work that would be cancelled.
      const mode = opts.signal.aborted ? 'gate' : 'build';
      const again = rerun === 'all' ? { force: true } : rerun ? { fresh: [...rerun] } : {};
      try {
        await runEngine(
          { root: r, config, graph, store, jobs, rules, files, env },
          { mode, jobs: opts.jobs ?? 1, onEvent: sink, signal: opts.signal, cycle: n, explain: true, ...again },
        );
      } catch (error) {
        // The engine's own input checks (a link or special file among the inputs) come before any work.
        if (!(error instanceof InvalidInputError)) throw error;
        emit(makeEvent({ type: 'config.invalid', code: error.code, message: error.message }));
        emit(
          makeEvent({
            type: 'cycle.settled',
            status: 'BLOCKED',
            ran: 0,
            cached: 0,
            ms: Math.round(performance.now() - t0),
            cycle: n,
            gate: blockedGate(error.message),
          }),
        );
      }
    } finally {
      ws.close();
    }
  };

  const schedule = () => {
    if (running || opts.signal.aborted || failure) return;
    clearTimeout(timer);
    timer = setTimeout(start, debounceMs);
  };

  const start = (changed?: string[]) => {
    timer = undefined;
    const batch = changed ?? [...pending].sort();
    pending.clear();
    running = runCycle(batch)
      .catch((error: unknown) => {
        failure = error;
      })
      .finally(() => {
        running = undefined;
        // Edits that arrived while the cycle ran were queued: they start the next cycle.
        if (pending.size) schedule();
        wake?.();
      });
  };

  if (opts.control) {
    opts.control.rerun = (labels) => {
      fresh = labels === 'all' || fresh === 'all' ? 'all' : new Set([...(fresh ?? []), ...labels]);
      pending.add(labels === 'all' ? 'rerun:all' : `rerun:${labels.join(',')}`);
      schedule();
    };
  }

  let wake: (() => void) | undefined;
  // Every event, chokidar's own and the raw ones it filters by mtime, is judged by vkit's fingerprint.
  const judge = new ChangeJudge();
  const onChange = (path: string) => {
    if (!matters(path) || !judge.changed(path)) return;
    pending.add(toRel(root, path));
    schedule();
  };
  watcher.on('all', (event, path) => {
    if (event === 'add' || event === 'change' || event === 'unlink') onChange(path);
  });
  watcher.on('raw', (_event, name, details) => {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    if (typeof watched === 'string') onChange(rawEventPath(watched, name));
  });
  watcher.on('error', (error) => {
    failure ??= error;
    wake?.();
  });

  await ready;
  if (!opts.signal.aborted) start([]);
  opts.onReady?.();
  await new Promise<void>((resolveStop) => {
    const check = () => {
      if ((opts.signal.aborted || failure) && !running) resolveStop();
    };
    wake = check;
    opts.signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        check();
      },
      { once: true },
    );
    check();
  });
  clearTimeout(timer);
  await watcher.close();
  if (failure) throw failure;
}
