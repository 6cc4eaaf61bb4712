/** Details of the selected item: reason, diagnostics and log lines (when loaded), the explain diff. */
import { Box, Text } from 'ink';
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
}

type Line = { text: string; dim?: boolean; head?: boolean };

/** Every line the pane could show for `item`, before any cut or scroll. */
export function detailLines(item: ItemView, loaded: LoadedDetails | null | undefined, now?: number | null): Line[] {
  const lines: Line[] = [];
  if (item.status === 'running') lines.push({ text: `running for ${elapsedText(item.startedAt, now) ?? '?'}` });
  else if (item.status === 'queued') lines.push({ text: 'queued' });
  else lines.push({ text: `reason: ${item.reason || '-'}` });
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
    for (const l of log) lines.push({ text: `  ${l}`, dim: true });
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

export function Details({ item, loaded, maxLines, scroll, now }: DetailsProps) {
  const lines = fit(detailLines(item, loaded, now), detailsBudget(maxLines), scroll);
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
