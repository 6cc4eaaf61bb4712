/** The gate items, failing first; scrolls its own rows within `height`, the selected row highlighted. */
import { Box, Text } from 'ink';
import { colorOf } from './colors.js';
import type { ItemView } from './state.js';
import { formatMs } from './state.js';

export interface ItemTableProps {
  items: readonly ItemView[];
  /** Index into `items`, or -1 for no selection (the one-shot overview). */
  selected: number;
  /** Rows available for items (excluding the column header and the scroll line). */
  height: number;
  /** What an empty table says (before the first cycle, or when a filter hides every item). */
  emptyText?: string;
  /** The clock (ms since the epoch) a running row's elapsed time is counted to; null shows none. */
  now?: number | null;
}

/** First visible row: keeps the selection in view, roughly centred, never past the end. */
function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  const wanted = Math.max(0, selected - Math.floor(height / 2));
  return Math.min(wanted, count - height);
}

const cell = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));

/** `42s`, `5m`, `3h`, `2d`: the age of the evidence when the cycle settled. */
function ageText(s: number | null | undefined): string {
  if (s === null || s === undefined) return '-';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** Whole seconds from `startedAt` to `now` as `7s` or `2m05s`; null when either is unknown. */
export function elapsedText(startedAt: string | null | undefined, now: number | null | undefined): string | null {
  const from = startedAt ? Date.parse(startedAt) : Number.NaN;
  if (now === null || now === undefined || Number.isNaN(from)) return null;
  const s = Math.max(0, Math.floor((now - from) / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** The TIME cell: a running row's elapsed time, a cached row's original duration (or `cached`), else the run's. */
function timeText(item: ItemView, now: number | null | undefined): string {
  if (item.status === 'running') return elapsedText(item.startedAt, now) ?? 'running';
  if (item.cached && item.ms === null) return 'cached';
  return item.ms === null ? '-' : formatMs(item.ms);
}

export function ItemTable({ items, selected, height, emptyText, now }: ItemTableProps) {
  const rows = Math.max(1, height);
  const start = windowStart(items.length, selected, rows);
  const shown = items.slice(start, start + rows);
  return (
    <Box flexDirection="column">
      <Text dimColor>
        {'  '}
        {cell('STATUS', 9)}
        {cell('KIND', 9)}
        {cell('REQ', 4)}
        {cell('TIME', 8)}
        {cell('ASSURANCE', 13)}
        {cell('FRESH', 6)}
        {cell('AGE', 6)}
        {cell('RUN', 26)}
        ID
      </Text>
      {items.length === 0 ? <Text dimColor> {emptyText ?? 'no items yet: waiting for the first cycle'}</Text> : null}
      {shown.map((item, i) => {
        const isSelected = start + i === selected;
        return (
          <Box key={item.id}>
            <Text inverse={isSelected} wrap="truncate-end">
              {isSelected ? '> ' : '  '}
              <Text color={colorOf(item.status)}>{cell(item.status, 9)}</Text>
              {cell(item.kind, 9)}
              {cell(item.required ? 'yes' : 'no', 4)}
              {cell(timeText(item, now), 8)}
              {cell(item.assurance ?? '-', 13)}
              {cell(item.freshness ?? '-', 6)}
              {cell(ageText(item.ageS), 6)}
              {cell(item.run ?? '-', 26)}
              {item.id}
            </Text>
          </Box>
        );
      })}
      {items.length > rows ? (
        <Text dimColor>
          {'  '}rows {start + 1}-{start + shown.length} of {items.length}
        </Text>
      ) : null}
    </Box>
  );
}
