/** Header: gate status in color (never filtered), cycle, last settle, root and store. */
import { Box, Text } from 'ink';
import { colorOf } from './colors.js';
import type { TuiState } from './state.js';
import { formatMs } from './state.js';

function clock(ts: string): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts : d.toLocaleTimeString('en-GB', { hour12: false });
}

export function Header({
  state,
}: {
  state: Pick<
    TuiState,
    'root' | 'store' | 'gate' | 'gateReason' | 'cycle' | 'settleMs' | 'settledAt' | 'configInvalid' | 'fromEvidence'
  >;
}) {
  const status = state.gate ?? 'WAITING';
  const settle =
    state.settleMs !== null && state.settledAt !== null
      ? `settled in ${formatMs(state.settleMs)} at ${clock(state.settledAt)}`
      : state.fromEvidence
        ? 'from retained evidence'
        : 'not settled yet';
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>vkit gate </Text>
        <Text bold color={colorOf(status)}>
          {status}
        </Text>
        <Text dimColor>
          {state.cycle !== null ? `  cycle ${state.cycle}` : ''}
          {`  ${settle}`}
        </Text>
      </Box>
      <Text dimColor wrap="truncate-middle">
        root {state.root} store {state.store}
      </Text>
      {state.configInvalid !== null ? (
        <Text color="yellow" wrap="truncate-end">
          config invalid: {state.configInvalid}
        </Text>
      ) : state.gateReason ? (
        <Text dimColor wrap="truncate-end">
          {state.gateReason}
        </Text>
      ) : null}
    </Box>
  );
}

/** Lines the header takes (for the height budget). */
export function headerHeight(state: Pick<TuiState, 'configInvalid' | 'gateReason'>): number {
  return 2 + (state.configInvalid !== null || state.gateReason ? 1 : 0);
}
