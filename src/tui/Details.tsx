/** Details of the selected item: reason, diagnostics and log lines (when loaded), the explain diff. */
import { Box, Text } from 'ink';
import { colorOf } from './colors.js';
import type { ItemView } from './state.js';

/** What `loadDetails(label)` may supply beyond the event stream. */
export interface LoadedDetails {
  diagnostics?: string[];
  log?: string[];
}

export interface DetailsProps {
  item: ItemView;
  loaded?: LoadedDetails | null;
  /** Lines available; longer sections are cut from the top of the log. */
  maxLines: number;
}

function detailLines(
  item: ItemView,
  loaded: LoadedDetails | null | undefined,
): { text: string; dim?: boolean; head?: boolean }[] {
  const lines: { text: string; dim?: boolean; head?: boolean }[] = [];
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
    for (const l of log) lines.push({ text: `  ${l}`, dim: true });
  }
  return lines;
}

export function Details({ item, loaded, maxLines }: DetailsProps) {
  const all = detailLines(item, loaded);
  const budget = Math.max(1, maxLines - 2); // the border and the title line
  // Keep the head (reason first) and the end of the log: drop lines just after the budget's head.
  const lines =
    all.length <= budget
      ? all
      : [
          ...all.slice(0, Math.ceil(budget / 2)),
          { text: `  … ${all.length - budget + 1} line(s) cut`, dim: true },
          ...all.slice(all.length - (budget - Math.ceil(budget / 2) - 1)),
        ];
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
