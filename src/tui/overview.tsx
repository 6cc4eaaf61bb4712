/** `vkit tui`: the overview once, from retained evidence, printed and done (no keys, no live region). */
import { renderToString } from 'ink';
import type { Gate } from '../gate/schema.js';
import { Overview } from './OverviewView.js';
import { stateFromGate } from './state.js';

export interface OverviewOptions {
  root: string;
  store: string;
  /** Terminal width (default: stdout's columns, else 100). */
  columns?: number;
  /** Where to print (default: process.stdout); the text is also returned. */
  write?: (text: string) => void;
}

export function renderOverviewOnce(gate: Gate, opts: OverviewOptions): string {
  const text = renderToString(<Overview state={stateFromGate(gate, opts.root, opts.store)} />, {
    columns: opts.columns ?? process.stdout.columns ?? 100,
  });
  (opts.write ?? ((t: string) => process.stdout.write(t)))(`${text}\n`);
  return text;
}
