/**
 * Work in progress in the live TUI (ink-testing-library, events only): a running check's ticking
 * elapsed time, no earlier run passed off as the running one, the selection kept on its check across
 * re-sorts, a cached item's original duration, an honest empty table under a filter, and a details
 * pane that scrolls to the lines it had to cut.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { render } from 'ink-testing-library';
import { App } from '../../src/tui/App.js';
import type { VkitEvent } from '../../src/engine/events.js';
import { cached, finished, item, runningAt, settled, started } from './events.js';
import { sleep } from '../_support/wait.js';

const KEY = { enter: '\r', pageDown: '\u001B[6~', pageUp: '\u001B[5~' };
const T0 = Date.parse('2025-01-01T12:00:00.000Z');

/** Unmounted after each test, failed or not: a mounted App's clock timer would keep the run alive. */
const mounted: (() => void)[] = [];
afterEach(() => {
  for (const unmount of mounted.splice(0)) unmount();
});

/** The App fed by a test bus, with a clock the test sets (`clock.now`). */
function setup(rows = 30) {
  const listeners = new Set<(e: VkitEvent) => void>();
  const clock = { now: T0 };
  const r = render(
    <App
      events={(l) => {
        listeners.add(l);
        return () => void listeners.delete(l);
      }}
      root="/repo"
      store="/repo/.git/vkit"
      rows={rows}
      clock={() => clock.now}
      onRerun={() => {}}
      onRerunAll={() => {}}
      onQuit={() => {}}
    />,
  );
  mounted.push(r.unmount);
  return {
    clock,
    unmount: r.unmount,
    /** The live region only: from the header on. */
    frame: () => {
      const f = r.lastFrame() ?? '';
      return f.slice(f.lastIndexOf('vkit gate '));
    },
    emit: async (...events: VkitEvent[]) => {
      for (const e of events) for (const l of listeners) l(e);
      await sleep(30);
    },
    press: async (...keys: string[]) => {
      for (const k of keys) {
        r.stdin.write(k);
        await sleep(30);
      }
    },
  };
}

/** The table row of `id`, trailing spaces trimmed. */
const row = (frame: string, id: string) => frame.split('\n').find((l) => l.trimEnd().endsWith(` ${id}`)) ?? '';
const selectedId = (frame: string) => /^> .*\s(\S+)$/m.exec(frame)?.[1];

test('a running check shows its elapsed time, ticking every second, in its row and its details', async () => {
  const t = setup();
  await t.emit(started(1), runningAt('check:slow', '2025-01-01T12:00:00.000Z'));
  t.clock.now = T0 + 7_400;
  await sleep(1100); // one tick of the clock
  assert.match(row(t.frame(), 'check:slow'), /^> running\s+check\s+yes\s+7s\s/);
  t.clock.now = T0 + 65_000;
  await sleep(1100);
  assert.match(row(t.frame(), 'check:slow'), /\s1m05s\s/, 'the time ticks without any new event');
  await t.press(KEY.enter);
  assert.match(t.frame(), /running for 1m05s/);
  assert.doesNotMatch(t.frame(), /reason: -/);
  t.unmount();
});

test('a running row shows no run id, reason or tail of the previous run', async () => {
  const t = setup();
  await t.emit(
    started(1),
    finished('check:a', 'FAIL', { reason: 'exit code 1', run: 'run-old', tail: ['old failure'] }),
    settled('REJECTED', [{ ...item('check:a', 'FAIL', true, 'exit code 1'), run: 'run-old' }], 1),
  );
  assert.match(row(t.frame(), 'check:a'), /run-old/);
  await t.emit(started(2, ['a.txt']), runningAt('check:a', '2025-01-01T12:00:00.000Z'));
  await t.press(KEY.enter);
  const f = t.frame();
  assert.match(row(f, 'check:a'), /^> running\s/);
  assert.doesNotMatch(f, /run-old/, 'neither the row nor the details name the earlier run');
  assert.doesNotMatch(f, /old failure|exit code 1/);
  t.unmount();
});

test('the selection stays on its check when the rows re-sort (details do not switch checks)', async () => {
  const t = setup();
  await t.emit(
    started(1),
    settled('READY', [item('check:a', 'PASS'), item('check:b', 'PASS'), item('check:c', 'PASS')], 1),
  );
  assert.equal(selectedId(t.frame()), 'check:a');
  await t.press(KEY.enter);
  // check:c starts running: running rows sort before passing ones, so it becomes the first row.
  await t.emit(started(2, ['c.txt']), runningAt('check:c', '2025-01-01T12:00:00.000Z'));
  let f = t.frame();
  assert.match(f, /^> running\s.*check:c$|^ {2}running\s.*check:c$/m);
  assert.equal(selectedId(f), 'check:a');
  assert.match(f, /^check:a PASS/m, 'the details still show check:a');
  await t.press('j'); // now on check:b
  await t.emit(finished('check:b', 'FAIL', { reason: 'exit code 1' }));
  f = t.frame();
  assert.equal(selectedId(f), 'check:b');
  assert.match(f, /^check:b FAIL/m);
  t.unmount();
});

test('a cached item shows its original run duration, or `cached` when unknown, never a false 0ms', async () => {
  const t = setup();
  await t.emit(started(1), cached('check:known', 'PASS', 1500), cached('check:unknown'));
  let f = t.frame();
  assert.match(row(f, 'check:known'), /\s1\.5s\s/);
  assert.match(row(f, 'check:unknown'), /\scached\s/);
  await t.emit(settled('READY', [item('check:known', 'PASS'), item('check:unknown', 'PASS')], 1));
  f = t.frame();
  assert.match(row(f, 'check:known'), /\s1\.5s\s/, 'the settled gate keeps it');
  assert.match(row(f, 'check:unknown'), /\scached\s/);
  assert.doesNotMatch(f, /\s0ms\s/);
  t.unmount();
});

test('a filter hiding every item says so; waiting for the first cycle only before it', async () => {
  const t = setup();
  assert.match(t.frame(), /waiting for the first cycle/);
  await t.emit(started(1), settled('READY', [item('check:a', 'PASS')], 1));
  await t.press('f'); // failing
  const f = t.frame();
  assert.match(f, /no item matches the filter "failing"/);
  assert.doesNotMatch(f, /waiting for the first cycle/);
  t.unmount();
});

test('the failure details scroll with PgDn/PgUp to lines cut from the middle', async () => {
  const t = setup(24);
  const tail = [
    ...Array.from({ length: 12 }, (_, i) => `setup line ${i}`),
    'AssertionError: expected 1 to equal 2',
    ...Array.from({ length: 12 }, (_, i) => `stack frame ${i}`),
  ];
  await t.emit(started(1), finished('check:a', 'FAIL', { reason: 'exit code 1', tail }));
  await t.press(KEY.enter);
  assert.match(t.frame(), /line\(s\) cut \(PgUp\/PgDn scroll\)/);
  assert.doesNotMatch(t.frame(), /AssertionError/, 'the middle is cut at first');
  let seen = false;
  for (let i = 0; i < 10 && !seen; i++) {
    await t.press(KEY.pageDown);
    seen = /AssertionError: expected 1 to equal 2/.test(t.frame());
  }
  assert.ok(seen, `PgDn reaches the assertion line; frame:\n${t.frame()}`);
  assert.match(t.frame(), /lines \d+-\d+ of 28 \(PgUp\/PgDn scroll\)/);
  for (let i = 0; i < 10; i++) await t.press(KEY.pageUp);
  assert.match(t.frame(), /lines 1-\d+ of 28/);
  assert.match(t.frame(), /reason: exit code 1/, 'PgUp goes back to the top');
  t.unmount();
});
