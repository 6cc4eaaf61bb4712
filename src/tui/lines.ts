/** Plain, greppable lines of the overview for a non-TTY (no Ink, no colors). */
import type { TuiState } from './state.js';

export function overviewLines(state: TuiState): string[] {
  const lines = [
    `gate ${state.gate ?? 'WAITING'}: ${state.configInvalid !== null ? `config invalid: ${state.configInvalid}` : state.gateReason}`,
    `root ${state.root}`,
    `store ${state.store}`,
  ];
  for (const i of state.items)
    lines.push(
      `${i.status.padEnd(7)} ${i.id}${i.required ? '' : ' (not required)'}${i.run ? ` run ${i.run}` : ''}${i.reason ? `  ${i.reason}` : ''}`,
    );
  return lines;
}
