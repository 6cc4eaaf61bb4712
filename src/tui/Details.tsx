/** Details of the selected item: reason, diagnostics and log lines (when loaded), the explain diff. */
import { Box, Text } from 'ink';
import type { LiveOutput } from '../store/live-log.js';
import { forTerminal } from '../text/ansi.js';
import { colorOf } from './colors.js';
import { elapsedText } from './ItemTable.js';
import type { ItemView } from './state.js';

/** What `loadDetails(label)` may supply beyond the event stream. */
export interface LoadedDetails {
  diagnostics?: string[];
  log?: string[];
}

export interface DetailsProps {
  item: ItemView;
  loaded?: LoadedDetails | null;
  /** Lines available; longer sections are cut in the middle, unless scrolled. */
  maxLines: number;
  /** First line shown when the user scrolled (PgUp/PgDn); undefined shows the head and the end. */
  scroll?: number;
  /** The clock a running item's elapsed time is counted to. */
  now?: number | null;
  /** A running item's output so far (the tails of its live logs), re-read while it runs. */
  live?: LiveOutput | null;
}

type Line = { text: string; dim?: boolean; head?: boolean };

/** Every line the pane could show for `item`, before any cut or scroll. */
export function detailLines(
  item: ItemView,
  loaded: LoadedDetails | null | undefined,
  now?: number | null,
  live?: LiveOutput | null,
): Line[] {
  const lines: Line[] = [];
  if (item.status === 'running') {
    lines.push({ text: `running for ${elapsedText(item.startedAt, now) ?? '?'}` });
    // Evidence loaded for a label names an earlier run: while this one runs, only its own output shows.
    return [...lines, ...liveLines(live)];
  }
  if (item.status === 'queued') return [...lines, { text: 'queued' }];
  lines.push({ text: `reason: ${item.reason || '-'}` });
  if (item.run) lines.push({ text: `run: ${item.run}  (vkit run show --run ${item.run})`, dim: true });
  if (loaded?.diagnostics?.length) {
    lines.push({ text: 'diagnostics:', head: true });
    for (const d of loaded.diagnostics) lines.push({ text: `  ${d}` });
  }
  if (item.explain.length) {
    lines.push({ text: 'why it reran:', head: true });
    for (const e of item.explain) lines.push({ text: `  ${e}`, dim: true });
  }
  const log = loaded?.log?.length ? loaded.log : item.tail;
  if (log.length) {
    lines.push({ text: `last ${log.length} log line(s):`, head: true });
    for (const l of log) lines.push({ text: `  ${forTerminal(l)}`, dim: true });
  }
  return lines;
}

/** A running item's output so far, each stream's tail under its own heading, marked as partial. */
function liveLines(live: LiveOutput | null | undefined): Line[] {
  const streams = live ? (['stdout', 'stderr'] as const).filter((s) => live[s].lines.length > 0) : [];
  if (!live || streams.length === 0) return [{ text: 'live output: none yet', dim: true }];
  const lines: Line[] = [];
  for (const name of streams) {
    const tail = live[name];
    const earlier = tail.cut ? ', earlier output not shown' : '';
    lines.push({ text: `live ${name}, last ${tail.lines.length} line(s) so far${earlier}:`, head: true });
    tail.lines.forEach((l, i) => {
      const growing = tail.partial && i === tail.lines.length - 1 ? ' …' : '';
      lines.push({ text: `  ${forTerminal(l)}${growing}` });
    });
  }
  return lines;
}

/** Lines of the pane's body (the border and the title line take two of `maxLines`). */
export const detailsBudget = (maxLines: number) => Math.max(2, maxLines - 2);

/** The furthest a pane of `budget` lines can scroll over `count` lines (one line says where it is). */
export const maxDetailsScroll = (count: number, budget: number) => Math.max(0, count - (budget - 1));

/** Fits `all` in `budget` lines: the head and the end with the middle cut, or the scrolled window. */
function fit(all: Line[], budget: number, scroll: number | undefined): Line[] {
  if (all.length <= budget) return all;
  if (scroll === undefined) {
    // Keep the head (reason first) and the end of the log: drop lines just after the budget's head.
    const head = Math.ceil(budget / 2);
    return [
      ...all.slice(0, head),
      { text: `  … ${all.length - budget + 1} line(s) cut (PgUp/PgDn scroll)`, dim: true },
      ...all.slice(all.length - (budget - head - 1)),
    ];
  }
  const from = Math.min(Math.max(0, scroll), maxDetailsScroll(all.length, budget));
  const shown = all.slice(from, from + budget - 1);
  return [
    ...shown,
    { text: `  lines ${from + 1}-${from + shown.length} of ${all.length} (PgUp/PgDn scroll)`, dim: true },
  ];
}

export function Details({ item, loaded, maxLines, scroll, now, live }: DetailsProps) {
  const lines = fit(detailLines(item, loaded, now, live), detailsBudget(maxLines), scroll);
  return (
    <Box flexDirection="column" borderStyle="single" borderLeft={false} borderRight={false} borderBottom={false}>
      <Text bold>
        {item.id} <Text color={colorOf(item.status)}>{item.status}</Text>
        {item.required ? '' : <Text dimColor> (not required)</Text>}
      </Text>
      {lines.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of lines, rebuilt whole on every render.
        <Text key={i} dimColor={l.dim} bold={l.head} wrap="truncate-end">
          {l.text}
        </Text>
      ))}
    </Box>
  );
}
