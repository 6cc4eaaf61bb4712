/**
 * `vkit watch`'s handler (declared in `verbs/build.ts`, bound in `table.ts`): run the service's watch
 * loop, render its events as lines or JSON.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { VkitEvent } from '../engine/events.js';
import { EXIT, invalid } from '../errors.js';
import { type WatchControl, watch as watchLoop } from '../service/watch.js';
import { defaultStoreDir } from '../service/workspace.js';
import { latestRunDetails } from '../service/index.js';
import { readLiveOutput } from '../store/live-log.js';
import { printEvent } from './render.js';
import { terminalUiInstalled } from './terminal-ui.js';
import type { Handler } from '../kit/verb.js';
import type * as verbs from './verbs/faces.js';
import { defaultRoot } from '../service/root.js';

/**
 * Ink draws no live frame when CI (or CONTINUOUS_INTEGRATION) is set, so a TUI there would show only its
 * finished lines and never the gate: use the line renderer instead (the same test Ink uses).
 */
const inCi = () =>
  ['CI', 'CONTINUOUS_INTEGRATION'].some(
    (k) => k in process.env && process.env[k] !== '0' && process.env[k] !== 'false',
  );

function jobsOf(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw invalid('ERR_USAGE', `Expected --jobs to be a positive integer, got \`${value}\``, { path: '--jobs' });
  return n;
}

/**
 * Line mode prints one line per event: render.ts's lines (actions as they finish, cycle starts,
 * settles, config errors) plus `queued` and `started` lines, so a log shows what is running.
 */
export function printWatchEvent(e: VkitEvent): void {
  if (e.type === 'action.queued' || e.type === 'action.started')
    process.stdout.write(`${(e.type === 'action.queued' ? 'queued' : 'started').padEnd(7)} ${e.label}\n`);
  else printEvent(e);
}

export const watch: Handler<typeof verbs.watch> = async ({ values: v }) => {
  const jobs = jobsOf(v.jobs);
  const controller = new AbortController();
  let code: number = EXIT.ok;
  const onSignal = (signal: NodeJS.Signals) => {
    const exit = signal === 'SIGINT' ? 130 : 143;
    if (controller.signal.aborted) process.exit(exit);
    process.stderr.write(`vkit: ${signal}: cancelling running checks (again to exit now)\n`);
    code = exit;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const root = v.root ? resolve(v.root) : defaultRoot();
  const control: WatchControl = {};
  let onEvent: (e: VkitEvent) => void = v.json
    ? (e) => void process.stdout.write(`${JSON.stringify(e)}\n`)
    : printWatchEvent;
  let tui: { unmount(): void } | undefined;
  if (
    !v.json &&
    !v['no-tui'] &&
    process.stdout.isTTY &&
    process.stdin.isTTY &&
    !inCi() &&
    (await terminalUiInstalled())
  ) {
    // The TUI renders only from the event stream; its keys become rerun requests or a stop.
    const { startTui } = await import('../tui/index.js');
    const listeners = new Set<(e: VkitEvent) => void>();
    onEvent = (e) => listeners.forEach((l) => l(e));
    const store = v.store ? resolve(v.store) : await defaultStoreDir(root);
    tui = startTui({
      events: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      root,
      store,
      onRerun: (label) => control.rerun?.([label]),
      onRerunAll: () => control.rerun?.('all'),
      // q stops with exit 0, Ctrl-C (a key in raw mode) with 130 as the signal would; pressed again, either exits at once.
      onQuit: (how) => {
        if (controller.signal.aborted) {
          tui?.unmount();
          process.exit(code);
        }
        code = how === 'interrupt' ? 130 : EXIT.ok;
        controller.abort();
      },
      loadDetails: (label, run) => latestRunDetails({ root, store: v.store }, label, run),
      // A running check's output so far: the tails of the log files its worker is writing (read only).
      loadLive: (key, since) => readLiveOutput(store, key, { since }),
    });
  }
  try {
    await watchLoop({ root, store: v.store }, { onEvent, signal: controller.signal, jobs, control });
  } finally {
    tui?.unmount();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return code;
};
