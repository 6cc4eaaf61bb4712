/** Colors (FORCE_COLOR=1 before Ink loads): READY/PASS green, REJECTED/FAIL red, BLOCKED/STALE/MISSING yellow, running cyan. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VkitEvent } from '../../src/engine/events.js';
import { item, running, settled } from './events.js';
import { sleep } from '../_support/wait.js';

process.env.FORCE_COLOR = '1';
const { render } = await import('ink-testing-library');
const { App } = await import('../../src/tui/App.js');
const { createElement } = await import('react');

const GREEN = '\u001B[32m';
const RED = '\u001B[31m';
const YELLOW = '\u001B[33m';
const CYAN = '\u001B[36m';
const tick = () => sleep(30);

function show(events: VkitEvent[]) {
  const t = render(
    createElement(App, {
      events: (l: (e: VkitEvent) => void) => (events.forEach(l), () => {}),
      root: '/r',
      store: '/s',
      rows: 30,
      onRerun() {},
      onRerunAll() {},
      onQuit() {},
    }),
  );
  return t;
}

test('gate and item statuses are colored', async () => {
  const t = show([
    settled(
      'REJECTED',
      [item('check:f', 'FAIL'), item('check:p', 'PASS'), item('check:s', 'STALE'), item('formal:m', 'MISSING', false)],
      1,
    ),
    running('check:p'),
  ]);
  await tick();
  const f = t.lastFrame() ?? '';
  assert.ok(f.includes(`${RED}REJECTED`), 'REJECTED red');
  assert.ok(f.includes(`${RED}FAIL`), 'FAIL red');
  assert.ok(f.includes(`${YELLOW}STALE`), 'STALE yellow');
  assert.ok(f.includes(`${YELLOW}MISSING`), 'MISSING yellow');
  assert.ok(f.includes(`${CYAN}running`), 'running cyan');
  t.unmount();
});

test('READY and PASS are green; BLOCKED is yellow', async () => {
  const a = show([settled('READY', [item('check:p', 'PASS')], 1)]);
  await tick();
  assert.ok((a.lastFrame() ?? '').includes(`${GREEN}READY`));
  assert.ok((a.lastFrame() ?? '').includes(`${GREEN}PASS`));
  a.unmount();
  const b = show([settled('BLOCKED', [item('check:b', 'BLOCKED')], 1)]);
  await tick();
  assert.ok((b.lastFrame() ?? '').includes(`${YELLOW}BLOCKED`));
  b.unmount();
});
