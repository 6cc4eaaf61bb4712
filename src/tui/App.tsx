/**
 * The live TUI: state comes only from the event stream (`reduce`); keys move the selection, toggle
 * details, filter the display and ask the caller to rerun or quit. Finished actions and settles go to
 * `<Static>`, so they stay in the terminal's scrollback; the live region fits in `rows`.
 */
import { useEffect, useReducer, useRef, useState } from 'react';
import { Box, Static, Text, useInput, type Key } from 'ink';
import type { VkitEvent } from '../engine/events.js';
import type { LiveOutput } from '../store/live-log.js';
import { Details, type LoadedDetails, detailLines, detailsBudget, maxDetailsScroll } from './Details.js';
import { Header, headerHeight } from './Header.js';
import { ItemTable } from './ItemTable.js';
import { LogRow } from './LogRow.js';
import { ProgressLine } from './ProgressLine.js';
import { FILTERS, initialState, reduce, visibleItems, type Filter, type ItemView, type TuiState } from './state.js';

/** An async iterable of events, or a subscribe function returning its unsubscribe. */
export type EventSource = AsyncIterable<VkitEvent> | ((listener: (event: VkitEvent) => void) => () => void);

export interface AppProps {
  events: EventSource;
  root: string;
  store: string;
  onRerun: (label: string) => void;
  onRerunAll: () => void;
  /** `q` asks to quit, Ctrl-C (a key in raw mode) to interrupt: the caller picks the exit code. */
  onQuit: (how: 'quit' | 'interrupt') => void;
  /** Details of an item's evidence; `run` is the run the item shows (null without evidence). */
  loadDetails?: (label: string, run: string | null) => Promise<LoadedDetails | null> | LoadedDetails | null;
  /**
   * A running action's output so far, by its action key and the time (epoch ms) it started, read
   * again every LIVE_POLL_MS while shown.
   */
  loadLive?: (key: string, since: number) => LiveOutput | null | undefined;
  /** Terminal height; the live region stays within it. */
  rows?: number;
  /** Start from this state instead of an empty one (tests, or a gate read before watching). */
  initial?: TuiState;
  /** The clock running checks' elapsed time is counted to (tests pass a fixed one). */
  clock?: () => number;
}

/** Subscribes to either kind of source; returns the unsubscribe. */
function subscribe(source: EventSource, listener: (event: VkitEvent) => void): () => void {
  if (typeof source === 'function') return source(listener);
  let stopped = false;
  const iterator = source[Symbol.asyncIterator]();
  void (async () => {
    while (!stopped) {
      const next = await iterator.next();
      if (next.done || stopped) break;
      listener(next.value);
    }
  })();
  return () => {
    stopped = true;
    void iterator.return?.();
  };
}

const KEYS = 'j/k move  enter details  PgUp/PgDn scroll  r rerun  a rerun all  f filter  q quit';

/** The clock, re-read every second while any check runs, so running rows show a ticking elapsed time. */
function useTickingClock(clock: () => number, ticking: boolean): number {
  const [now, setNow] = useState(clock);
  useEffect(() => {
    if (!ticking) return;
    setNow(clock());
    const timer = setInterval(() => setNow(clock()), 1000);
    return () => clearInterval(timer);
  }, [ticking, clock]);
  return now;
}

/** How often a running item's live output is read again while its details are shown. */
const LIVE_POLL_MS = 400;

/**
 * The output so far of the action keyed `key` (null: none shown), re-read on a timer: a read costs a
 * directory listing and the tails' last bytes, and stops when the item ends or the pane closes.
 */
function useLiveOutput(load: AppProps['loadLive'], item: ItemView | undefined, shown: boolean): LiveOutput | null {
  const [live, setLive] = useState<LiveOutput | null>(null);
  const running = shown && item?.status === 'running';
  const key = running ? (item.key ?? null) : null;
  const since = running && item.startedAt ? Date.parse(item.startedAt) : Number.NaN;
  useEffect(() => {
    setLive(null);
    if (!load || key === null || Number.isNaN(since)) return;
    let last = '';
    const read = () => {
      let next: LiveOutput | null;
      try {
        next = load(key, since) ?? null;
      } catch {
        next = null; // a log that cannot be read shows as no output, never a crash
      }
      // Drawn again only when the output changed.
      const text = JSON.stringify(next);
      if (text !== last) setLive(next);
      last = text;
    };
    read();
    const timer = setInterval(read, LIVE_POLL_MS);
    return () => clearInterval(timer);
  }, [load, key, since]);
  return live;
}

/** What an empty table says: waiting only before anything settled, else why nothing shows. */
function emptyText(state: TuiState, filter: Filter): string {
  if (state.items.length > 0) return `no item matches the filter "${filter}"`;
  if (state.settledAt === null && !state.fromEvidence && state.configInvalid === null)
    return 'no items yet: waiting for the first cycle';
  return 'the gate has no items';
}

export function App(props: AppProps) {
  const { events, root, store, onRerun, onRerunAll, onQuit, loadDetails, loadLive, rows = 24, initial } = props;
  const [state, dispatch] = useReducer(reduce, initial ?? initialState(root, store));
  const now = useTickingClock(
    props.clock ?? Date.now,
    state.items.some((i) => i.status === 'running'),
  );
  const [scroll, setScroll] = useState<number | undefined>(undefined);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [filter, setFilter] = useState<Filter>('all');
  const [showDetails, setShowDetails] = useState(false);
  const [loaded, setLoaded] = useState<{ label: string; run: string | null; details: LoadedDetails | null } | null>(
    null,
  );

  useEffect(() => subscribe(events, dispatch), [events]);

  // Keys read refs, not this render's values: several keys can arrive before React re-renders
  // (fast typing, a paste, tmux send-keys), and each must see the previous one's effect.
  const latest = useRef({ items: state.items, selectedId, filter, lines: 0, budget: 1, scroll });
  latest.current.items = state.items;
  const select = (id: string) => {
    latest.current.selectedId = id;
    setSelectedId(id);
  };

  const visible = visibleItems(state.items, filter);
  const found = visible.findIndex((i) => i.id === selectedId);
  const index = visible.length === 0 ? -1 : Math.max(found, 0);
  const item = index >= 0 ? visible[index] : undefined;
  const live = useLiveOutput(loadLive, item, showDetails);

  // The selection is a check, not a row: pin the shown item's label, so a re-sort keeps it selected.
  // Only when no visible check is selected yet: a key pressed since this render already chose one.
  useEffect(() => {
    const chosen = latest.current.selectedId;
    if (item && found < 0 && !visible.some((i) => i.id === chosen)) select(item.id);
  }, [item?.id, found]);
  // Another item's details start unscrolled.
  useEffect(() => setScroll(undefined), [item?.id]);

  useEffect(() => {
    if (!showDetails || !item || !loadDetails) return;
    if (loaded && loaded.label === item.id && loaded.run === item.run) return;
    let live = true;
    const label = item.id;
    const run = item.run;
    Promise.resolve(loadDetails(label, run)).then(
      (details) => live && setLoaded({ label, run, details }),
      () => live && setLoaded({ label, run, details: null }),
    );
    return () => {
      live = false;
    };
  }, [showDetails, item?.id, item?.run, loadDetails]);

  /** PgDn/PgUp: a page down or up the details, from the top (down) or the end (up) when unscrolled. */
  const scrollDetails = (direction: 1 | -1) => {
    const { lines, budget, scroll: at } = latest.current;
    const max = maxDetailsScroll(lines, budget);
    const page = Math.max(1, budget - 2);
    const from = at ?? (direction > 0 ? 0 : max);
    latest.current.scroll = Math.min(max, Math.max(0, from + direction * page));
    setScroll(latest.current.scroll);
  };
  const onKey = (input: string, key: Key) => {
    const cur = latest.current;
    const shown = visibleItems(cur.items, cur.filter);
    const at = shown.findIndex((i) => i.id === cur.selectedId);
    const i = shown.length === 0 ? -1 : Math.max(at, 0);
    if (input === 'q') onQuit('quit');
    else if (key.ctrl && input === 'c') onQuit('interrupt');
    else if (key.downArrow || input === 'j') {
      if (shown.length) select(shown[Math.min(shown.length - 1, i + 1)]!.id);
    } else if (key.upArrow || input === 'k') {
      if (shown.length) select(shown[Math.max(0, i - 1)]!.id);
    } else if (key.return) setShowDetails((d) => !d);
    else if (key.pageDown || key.pageUp) scrollDetails(key.pageDown ? 1 : -1);
    else if (input === 'r') {
      if (i >= 0) onRerun(shown[i]!.id);
    } else if (input === 'a') onRerunAll();
    else if (input === 'f') {
      cur.filter = FILTERS[(FILTERS.indexOf(cur.filter) + 1) % FILTERS.length]!;
      setFilter(cur.filter);
    }
  };
  useInput((input, key) => {
    // Plain characters typed together arrive as one string: handle each as its own key.
    if (!key.ctrl && !key.meta && input.length > 1 && /^[jkraqf]+$/.test(input)) for (const ch of input) onKey(ch, key);
    else onKey(input, key);
  });

  // Height budget: header, table header, progress, details, filter/keys line; the table gets the rest.
  const detailsLines = showDetails && item ? Math.max(4, Math.floor(rows / 3)) : 0;
  const fixed = headerHeight(state) + 1 + (state.progress ? 1 : 0) + detailsLines + 1;
  const tableRows = Math.max(1, rows - fixed - 1 - 1); // the scroll line, and one spare line for the cursor
  const details = item && loaded && loaded.label === item.id && loaded.run === item.run ? loaded.details : null;
  latest.current.lines = showDetails && item ? detailLines(item, details, now, live).length : 0;
  latest.current.budget = detailsBudget(detailsLines);
  latest.current.scroll = scroll;

  return (
    <>
      <Static items={state.log}>{(line) => <LogRow key={line.key} line={line} />}</Static>
      <Box flexDirection="column">
        <Header state={state} />
        <ItemTable items={visible} selected={index} height={tableRows} emptyText={emptyText(state, filter)} now={now} />
        {state.progress ? <ProgressLine progress={state.progress} items={state.items} /> : null}
        {showDetails && item ? (
          <Details item={item} loaded={details} maxLines={detailsLines} scroll={scroll} now={now} live={live} />
        ) : null}
        <Text dimColor wrap="truncate-end">
          filter: {filter}
          {filter === 'all' ? '' : ` (${visible.length} of ${state.items.length} shown; status covers all)`} {KEYS}
        </Text>
      </Box>
    </>
  );
}
