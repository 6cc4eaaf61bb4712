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
 * the mtime back, so its raw events are judged too. What the loop watches, and which paths matter
 * under it, is derived in watch-plan.ts.
 */
import { dirname, join, resolve } from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { readConfig, type LoadedConfig } from '../config/load.js';
import { runEngine } from '../engine/build.js';
import type { ActionGraph } from '../graph/compile.js';
import { makeEvent, type EventSink } from '../engine/events.js';
import { InvalidInputError } from '../errors.js';
import { realRoot } from './root.js';
import type { Gate } from '../gate/schema.js';
import { ChangeJudge, rawEventPath } from './watch-judge.js';
import { existingDir, type Plan, planFor, toRel, watchedPaths } from './watch-plan.js';
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

function blockedGate(message: string): Gate {
  return { schema: 'vkit.gate/1', status: 'BLOCKED', reason: `config invalid: ${message}`, items: [] };
}

/** Runs the watch loop until `signal` aborts; resolves once the last cycle has settled and the watcher is closed. */
export async function watch(open: OpenOptions, opts: WatchOptions): Promise<void> {
  const root = realRoot(open.root);
  const storeDir = open.store ? resolve(open.store) : await defaultStoreDir(root);
  const debounceMs = opts.debounceMs ?? 50;
  const ignoredDirs = [join(root, '.git'), storeDir, join(root, '.vkit')];
  // The first plan comes from the config alone, so the input directories are watched before the first build.
  let plan: Plan = planFor(root, await readConfig(root).catch(() => undefined), undefined);
  const pending = new Set<string>();
  let cycle = 0;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;

  const paths = watchedPaths(root, ignoredDirs, () => plan);
  const watcher: FSWatcher = chokidarWatch([root, ...paths.outside(plan)], {
    ignoreInitial: true,
    ignored: (p: string) => !paths.keep(p),
  });
  const ready = new Promise<void>((r) => watcher.once('ready', () => r()));

  const retarget = (next: Plan) => {
    const old = plan;
    plan = next;
    const added = [
      ...next.dirs.filter((d) => !old.dirs.includes(d)).map((d) => existingDir(root, join(root, d))),
      ...next.paths.filter((p) => !old.paths.includes(p)).map((p) => existingDir(root, dirname(join(root, p)))),
      ...paths.outside(next).filter((f) => !old.configFiles.has(f)),
    ].filter((t) => t !== root);
    if (added.length) watcher.add([...new Set(added)]);
  };
  const loop: CycleLoop = {
    open,
    opts,
    retarget: (config, graph) => retarget(planFor(root, config, plan, graph)),
    reloadConfig: () => readConfig(root).catch(() => undefined),
  };

  // Reruns asked for by a face (the TUI's r and a keys): fresh runs in the next cycle.
  let fresh: Set<string> | 'all' | undefined;
  const schedule = () => {
    if (running || opts.signal.aborted || failure) return;
    clearTimeout(timer);
    timer = setTimeout(start, debounceMs);
  };

  const start = (changed?: string[]) => {
    timer = undefined;
    const batch = changed ?? [...pending].sort();
    pending.clear();
    const rerun = fresh;
    fresh = undefined;
    running = runCycle(loop, ++cycle, batch, rerun)
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
    if (!paths.matters(path) || !judge.changed(path)) return;
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

/** What a cycle needs of its loop. */
interface CycleLoop {
  open: OpenOptions;
  opts: WatchOptions;
  /** Points the watcher at what a config names (none: the last plan's globs and imports stay). */
  retarget(config: LoadedConfig | undefined, graph?: ActionGraph): void;
  /** The config alone, or undefined when it does not load. */
  reloadConfig(): Promise<LoadedConfig | undefined>;
}

/**
 * One cycle: a fresh workspace (so a config edit recompiles the graph and new files are listed)
 * and one engine run in build mode; a config or input the workspace or the engine refuses settles
 * the cycle BLOCKED.
 */
async function runCycle(
  loop: CycleLoop,
  n: number,
  changed: string[],
  rerun: Set<string> | 'all' | undefined,
): Promise<void> {
  const { open, opts } = loop;
  const emit = opts.onEvent;
  const t0 = performance.now();
  emit(makeEvent({ type: 'cycle.started', cycle: n, changed }));
  let ws;
  try {
    ws = await openWorkspace(open);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // The config may load while the workspace does not (a glob matching no file yet): watch its globs then.
    loop.retarget(await loop.reloadConfig());
    settleInvalid(emit, error, n, t0);
    return;
  }
  try {
    loop.retarget(ws.config, ws.graph);
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
      settleInvalid(emit, error, n, t0);
    }
  } finally {
    ws.close();
  }
}

/** An invalid config (or input) ends the cycle BLOCKED, naming why. */
function settleInvalid(emit: EventSink, error: InvalidInputError, n: number, t0: number): void {
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
