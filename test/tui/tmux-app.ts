/**
 * Driver for the tmux smoke test: `startTui` in a real terminal with a scripted event stream.
 * Calls are appended to the file named by argv[2] (rerun LABEL, rerun-all, quit).
 */
import { appendFileSync } from 'node:fs';
import { startTui } from '../../src/tui/index.js';
import type { VkitEvent } from '../../src/engine/events.js';
import { cached, finished, item, running, settled, started } from './events.js';

const out = process.argv[2]!;
const script: VkitEvent[] = [
  started(1),
  running('check:b'),
  cached('check:a'),
  finished('check:b', 'FAIL', { reason: 'exit code 1, expected 0', tail: ['assertion failed'] }),
  settled('REJECTED', [item('check:a', 'PASS'), item('check:b', 'FAIL', true, 'exit code 1, expected 0')], 1),
];
const tui = startTui({
  events: (listener) => {
    const timer = setTimeout(() => script.forEach(listener), 50);
    return () => clearTimeout(timer);
  },
  root: '/smoke/root',
  store: '/smoke/store',
  onRerun: (label) => appendFileSync(out, `rerun ${label}\n`),
  onRerunAll: () => appendFileSync(out, 'rerun-all\n'),
  onQuit: () => {
    appendFileSync(out, 'quit\n');
    tui.unmount();
  },
});
await tui.waitUntilExit();
process.stdout.write('tui exited\n');
