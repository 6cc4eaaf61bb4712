/**
 * The no-op memo's seam: a face that knows when nothing a call depended on has changed (the watched
 * resident build process, daemon/noop-memo.ts) installs one, and `build` and `gate` then ask it
 * before opening the workspace and offer it what they computed. Without one installed nothing
 * changes. The service decides only what a call *is* (its identity); whether its answer still
 * stands is wholly the memo's to prove.
 */
import type { BuildReport } from '../engine/schema.js';
import type { RelianceListener } from '../engine/build.js';
import type { VkitEvent } from '../engine/events.js';
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

let installed: NoopMemo | undefined;

/** Installs the memo `build` and `gate` consult (the watched daemon's), or removes it. */
export function installNoopMemo(memo: NoopMemo | undefined): void {
  installed = memo;
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
  if (!installed) return undefined;
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
  return installed;
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
