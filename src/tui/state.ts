/**
 * The TUI's view model, built only from the `vkit.event/1` stream by a pure reducer. Components
 * render this state; nothing here does I/O or reads the clock (times come from the events).
 */
import type { VkitEvent } from '../engine/events.js';
import type { Gate, GateStatus, ItemStatus } from '../gate/schema.js';

/** A gate item's status, or the live state of its action in the current cycle. */
type RowStatus = ItemStatus | 'queued' | 'running';

export interface ItemView {
  id: string;
  /** The label prefix: `check`, `formal`, ... */
  kind: string;
  required: boolean;
  status: RowStatus;
  reason: string;
  run: string | null;
  ms: number | null;
  /** From the gate item: how strongly the evidence is known. */
  assurance?: string;
  /** `fresh` for current evidence, `stale` when it no longer matches, none without evidence. */
  freshness?: 'fresh' | 'stale';
  /** Seconds from the evidence's attempt end to the settle event that showed it (no clock read). */
  ageS?: number | null;
  /** `--explain` lines: why the action reran. */
  explain: string[];
  /** Last output lines of a failing action, when the engine sent them. */
  tail: string[];
  /** Event time the running action started (its elapsed time is counted from it); null otherwise. */
  startedAt?: string | null;
  /** The action key of a queued or running action (its live output is found by it); null otherwise. */
  key?: string | null;
  /** True when this cycle reused evidence: `ms` is then the original run's duration, or null if unknown. */
  cached?: boolean;
}

/** One line for Ink's `<Static>` (the terminal's normal scrollback): a finished action or a settle. */
export interface LogLine {
  key: number;
  kind: 'action' | 'settle' | 'config';
  /** Word to color: ran/cached/failed/blocked, or a gate status. */
  word: string;
  text: string;
}

export interface Progress {
  done: number;
  total: number;
}

export interface TuiState {
  root: string;
  store: string;
  /** null until the first settle (or config error) arrives. */
  gate: GateStatus | null;
  gateReason: string;
  cycle: number | null;
  /** Duration and time (event `ts`) of the last settle. */
  settleMs: number | null;
  settledAt: string | null;
  items: ItemView[];
  /** Actions of the current cycle: set while any is queued or running, null otherwise. */
  progress: Progress | null;
  configInvalid: string | null;
  /** True when read from retained evidence (`stateFromGate`) rather than built from events. */
  fromEvidence: boolean;
  log: LogLine[];
  /** Labels seen and finished in the current cycle (progress bookkeeping). */
  cycleSeen: string[];
  cycleDone: string[];
}

export function initialState(root: string, store: string): TuiState {
  return {
    root,
    store,
    gate: null,
    gateReason: '',
    cycle: null,
    settleMs: null,
    settledAt: null,
    items: [],
    progress: null,
    configInvalid: null,
    fromEvidence: false,
    log: [],
    cycleSeen: [],
    cycleDone: [],
  };
}

function kindOf(id: string): string {
  const i = id.indexOf(':');
  return i < 0 ? id : id.slice(0, i);
}

const RANK: Record<RowStatus, number> = { FAIL: 0, BLOCKED: 1, STALE: 1, MISSING: 1, running: 2, queued: 2, PASS: 3 };

/** Failing first (FAIL, then BLOCKED/STALE/MISSING, then running/queued, then PASS), then by id. */
export function sortItems(items: readonly ItemView[]): ItemView[] {
  return [...items].sort((a, b) => RANK[a.status] - RANK[b.status] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function isFailing(status: RowStatus): boolean {
  return status !== 'PASS' && status !== 'running' && status !== 'queued';
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

function upsert(items: readonly ItemView[], label: string, patch: Partial<ItemView>): ItemView[] {
  const found = items.find((i) => i.id === label);
  const base: ItemView = found ?? {
    id: label,
    kind: kindOf(label),
    required: true,
    status: 'MISSING',
    reason: '',
    run: null,
    ms: null,
    explain: [],
    tail: [],
  };
  const next = { ...base, ...patch };
  return sortItems(found ? items.map((i) => (i === found ? next : i)) : [...items, next]);
}

/**
 * A row whose action is queued (`startedAt` null) or running: what the row showed of an earlier run
 * (its run id, time, reason, tail, freshness) is cleared, so nothing of it passes for this attempt's.
 */
function inFlight(startedAt: string | null, key: string): Partial<ItemView> {
  return {
    status: startedAt === null ? 'queued' : 'running',
    startedAt,
    key,
    run: null,
    ms: null,
    reason: '',
    cached: false,
    assurance: undefined,
    freshness: undefined,
    ageS: null,
    explain: [],
    tail: [],
  };
}

function progressOf(seen: readonly string[], done: readonly string[], items: readonly ItemView[]): Progress | null {
  const active = items.some((i) => i.status === 'running' || i.status === 'queued');
  return active ? { done: done.length, total: seen.length } : null;
}

const add = (list: readonly string[], label: string) => (list.includes(label) ? [...list] : [...list, label]);

function withLog(state: TuiState, line: Omit<LogLine, 'key'>): LogLine[] {
  return [...state.log, { key: state.log.length, ...line }];
}

/** An action that is done this cycle (cached or finished): seen, done, its row updated and a log line. */
function settled(state: TuiState, label: string, items: ItemView[], line: Omit<LogLine, 'key'>): TuiState {
  const cycleSeen = add(state.cycleSeen, label);
  const cycleDone = add(state.cycleDone, label);
  return {
    ...state,
    items,
    cycleSeen,
    cycleDone,
    progress: progressOf(cycleSeen, cycleDone, items),
    log: withLog(state, line),
  };
}

export function reduce(state: TuiState, event: VkitEvent): TuiState {
  switch (event.type) {
    case 'cycle.started': {
      // Inputs changed: until this cycle settles, the last gate and its rows are not known to hold, so
      // the header never shows the previous status under the new cycle's number, nor a row as fresh.
      const previous = state.gate
        ? `; last settled ${state.gate}${state.cycle !== null ? ` (cycle ${state.cycle})` : ''}`
        : '';
      const items = state.items.map((i) => (i.freshness === 'fresh' ? { ...i, freshness: undefined } : i));
      return {
        ...state,
        cycle: event.cycle,
        gate: null,
        gateReason: `cycle ${event.cycle} is checking what changed${previous}`,
        items,
        cycleSeen: [],
        cycleDone: [],
        progress: null,
      };
    }
    case 'action.queued':
    case 'action.started': {
      const items = upsert(
        state.items,
        event.label,
        inFlight(event.type === 'action.started' ? event.ts : null, event.key),
      );
      const cycleSeen = add(state.cycleSeen, event.label);
      return { ...state, items, cycleSeen, progress: progressOf(cycleSeen, state.cycleDone, items) };
    }
    case 'action.cached': {
      const items = upsert(state.items, event.label, {
        status: event.outcome,
        run: event.run,
        // The cached event's own `ms` is this cycle's (none): show what the original run took, if known.
        ms: event.ran_ms ?? null,
        cached: true,
        startedAt: null,
        key: null,
        explain: [],
        tail: [],
      });
      return settled(state, event.label, items, { kind: 'action', word: 'cached', text: event.label });
    }
    case 'action.finished': {
      const items = upsert(state.items, event.label, {
        status: event.outcome,
        reason: event.reason ?? '',
        run: event.run,
        ms: event.ms,
        explain: event.explain ?? [],
        tail: event.tail ?? [],
        cached: false,
        startedAt: null,
        key: null,
      });
      const why = event.status === 'ran' || !event.reason ? '' : `  ${event.reason}`;
      return settled(state, event.label, items, {
        kind: 'action',
        word: event.status,
        text: `${event.label} ${formatMs(event.ms)}${why}`,
      });
    }
    case 'cycle.settled': {
      let items = state.items;
      if (event.gate) {
        // The gate is authoritative: its items replace the live ones, keeping what only events carry.
        const prior = new Map(state.items.map((i) => [i.id, i]));
        items = sortItems(
          event.gate.items.map((g) => {
            const ageS = g.ended_at
              ? Math.max(0, Math.round((Date.parse(event.ts) - Date.parse(g.ended_at)) / 1000))
              : null;
            return gateRow(g, prior.get(g.id), ageS);
          }),
        );
      } else {
        // No gate in the event: nothing is running once a cycle settles.
        items = sortItems(
          items.map((i) =>
            i.status === 'running' || i.status === 'queued'
              ? { ...i, status: 'MISSING' as const, reason: i.reason || 'not finished' }
              : i,
          ),
        );
      }
      const cycle = event.cycle ?? state.cycle;
      const text = `${cycle === null ? 'build' : `cycle ${cycle}`} settled: ${event.status} in ${formatMs(event.ms)} (${event.ran} ran, ${event.cached} cached)`;
      return {
        ...state,
        items,
        gate: event.status,
        gateReason: event.gate?.reason ?? '',
        cycle,
        settleMs: event.ms,
        settledAt: event.ts,
        progress: null,
        configInvalid: null,
        fromEvidence: false,
        log: withLog(state, { kind: 'settle', word: event.status, text }),
      };
    }
    case 'config.invalid':
      return {
        ...state,
        gate: 'BLOCKED',
        gateReason: 'config invalid',
        configInvalid: event.message,
        progress: null,
        log: withLog(state, { kind: 'config', word: 'BLOCKED', text: `config invalid: ${event.message}` }),
      };
    default:
      return state;
  }
}

export type Filter = 'all' | 'failing' | 'required';
export const FILTERS: readonly Filter[] = ['all', 'failing', 'required'];

/** What the table shows. A display filter never changes the gate status in the header. */
export function visibleItems(items: readonly ItemView[], filter: Filter): ItemView[] {
  if (filter === 'failing') return items.filter((i) => isFailing(i.status));
  if (filter === 'required') return items.filter((i) => i.required);
  return [...items];
}

/**
 * A gate item as a row: fresh when it passed or failed now, stale when its evidence is; `prior` is
 * the row the events built (its time, explanation and tail stay), `ageS` its evidence's age.
 */
function gateRow(g: Gate['items'][number], prior: ItemView | undefined, ageS: number | null): ItemView {
  return {
    id: g.id,
    kind: kindOf(g.id),
    required: g.required,
    status: g.status,
    reason: g.reason,
    run: g.run,
    ms: prior?.ms ?? null,
    cached: prior?.cached,
    assurance: g.assurance,
    freshness: g.status === 'PASS' || g.status === 'FAIL' ? 'fresh' : g.status === 'STALE' ? 'stale' : undefined,
    ageS,
    explain: prior?.explain ?? [],
    tail: prior?.tail ?? [],
  };
}

/** The view of a gate read from retained evidence (no events yet): `vkit tui`, or watch's first frame. */
export function stateFromGate(gate: Gate, root: string, store: string): TuiState {
  const items = sortItems(gate.items.map((g) => gateRow(g, undefined, null)));
  return { ...initialState(root, store), gate: gate.status, gateReason: gate.reason, items, fromEvidence: true };
}
