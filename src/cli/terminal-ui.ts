/**
 * Whether the terminal UI can be drawn here: Ink and React are optional packages, and without them
 * `vkit watch` and `vkit tui` print the same plain lines they print outside a terminal, after one
 * line saying what to install.
 */
import { importOptional, TERMINAL_UI } from '../config/optional-package.js';

/** True when Ink and React load; else says on stderr what to run and returns false. */
export async function terminalUiInstalled(): Promise<boolean> {
  const loaded = await importOptional(TERMINAL_UI);
  if (!('missing' in loaded)) return true;
  process.stderr.write(`vkit: ${loaded.missing}; printing plain lines instead\n`);
  return false;
}
