/**
 * The speed seam: what the service asks of the speed layer (src/fast/), which a face installs. A
 * memo (the watched resident build process's, or a command line's no-op recorder) that `build` and
 * `gate` ask before opening the workspace and offer what they computed; and what a config load may
 * keep in a store (config/kept.ts). Without them nothing changes but time: the honest path runs.
 * The service decides only what a call *is* (its identity); whether an answer still stands is
 * wholly the memo's to prove.
 */
import type { BuildReport } from '../engine/schema.js';
import type { RelianceListener } from '../engine/build.js';
import type { VkitEvent } from '../engine/events.js';
import { type KeptConfigs, keepConfigsWith } from '../config/kept.js';
import type { OpenOptions, Workspace } from './workspace.js';

/** One `build` or `gate` call as the service sees it: equal identities ask the very same question. */
export interface ServiceCall {
  verb: 'build' | 'gate';
  /** Everything the call's answer may depend on that the call itself carries (see callOf). */
  identity: string;
  /** The UTC date the engine judges by (part of the identity too). */
  today: string;
}

/** What a completed call leaves for the memo: its report and the events it emitted, in order. */
export interface Answer {
  report: BuildReport;
  events: VkitEvent[];
}

export interface NoopMemo {
  /** Collects what the call's build relied on beyond its inputs; undefined when the memo will not keep it. */
  reliance(call: ServiceCall): RelianceListener | undefined;
  /** An earlier answer to this very call, when the memo proves nothing it depended on changed. */
  recall(call: ServiceCall): Answer | undefined;
  /** A completed call, its workspace still open. The memo decides whether (and when) it may be recalled. */
  offer(call: ServiceCall, ws: Workspace, answer: Answer): void;
}

/** The speed layer as the service sees it; each part optional. */
export interface SpeedLayer {
  /** The memo `build` and `gate` consult. */
  memo?: NoopMemo;
  /** What config loads keep in the store at `storeDir`. */
  keptConfigs?: (storeDir: string) => KeptConfigs;
}

let memo: NoopMemo | undefined;

/** Installs parts of the speed layer (a part given as undefined is removed, one not given is kept). */
export function installSpeed(parts: SpeedLayer): void {
  if ('memo' in parts) memo = parts.memo;
  // The workspace asks for it as it opens a config (config/kept.ts holds it, below the service).
  if ('keptConfigs' in parts) keepConfigsWith(parts.keptConfigs);
}

/**
 * The call's identity, or undefined when it carries something the memo cannot compare (hooks,
 * a remote, a caller-made remote context): such calls always run.
 */
export function callOf(
  verb: ServiceCall['verb'],
  open: OpenOptions,
  req: Record<string, unknown>,
  today: string,
): ServiceCall | undefined {
  if (!memo) return undefined;
  if (open.hooks || open.remote || open.remoteContext !== undefined || open.storeOptions || open.confineChecks)
    return undefined;
  const plain = Object.fromEntries(
    Object.entries(req)
      .filter(([k]) => k !== 'onEvent' && k !== 'signal')
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  const env = Object.entries(open.env ?? process.env).sort(([a], [b]) => (a < b ? -1 : 1));
  const identity = JSON.stringify({
    verb,
    root: open.root ?? null,
    store: open.store ?? null,
    cwd: process.cwd(),
    env,
    req: plain,
    // Text output prints events as they come; JSON output takes only the report.
    events: typeof req.onEvent === 'function',
    today,
  });
  return { verb, identity, today };
}

export function noopMemo(): NoopMemo | undefined {
  return memo;
}

/** Replays a recalled answer: its events again (stamped now), and its report timed by this call. */
export function replay(answer: Answer, onEvent: ((e: VkitEvent) => void) | undefined, t0: number): BuildReport {
  const ms = Math.round(performance.now() - t0);
  if (onEvent) {
    const ts = new Date().toISOString();
    for (const e of answer.events) onEvent({ ...e, ts, ...(e.type === 'cycle.settled' ? { ms } : {}) } as VkitEvent);
  }
  return { ...answer.report, stats: { ...answer.report.stats, ms } };
}
