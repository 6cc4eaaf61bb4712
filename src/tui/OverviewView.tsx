/** The one-shot overview (`vkit tui`): header and the whole table, no keys. */
import { Box } from 'ink';
import { Header } from './Header.js';
import { ItemTable } from './ItemTable.js';
import type { TuiState } from './state.js';

export function Overview({ state }: { state: TuiState }) {
  return (
    <Box flexDirection="column">
      <Header state={state} />
      <ItemTable items={state.items} selected={-1} height={Math.max(1, state.items.length)} />
    </Box>
  );
}
