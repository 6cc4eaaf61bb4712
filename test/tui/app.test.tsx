/** The live TUI with ink-testing-library: every state and every key, rendered only from events. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { App, type EventSource } from '../../src/tui/App.js';
import type { VkitEvent } from '../../src/engine/events.js';
import { cached, finished, invalidConfig, item, queued, running, settled, started } from './events.js';
import { sleep } from '../_support/wait.js';

/** A subscribe-style event source the test pushes into. */
function bus() {
  const listeners = new Set<(e: VkitEvent) => void>();
  return {
    source: (l: (e: VkitEvent) => void) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    emit: (...events: VkitEvent[]) => events.forEach((e) => listeners.forEach((l) => l(e))),
  };
}

const tick = (ms = 30) => sleep(ms);
const KEY = { up: '\u001B[A', down: '\u001B[B', enter: '\r', ctrlC: '\u0003' };

function setup(
  opts: {
    rows?: number;
    events?: EventSource;
    loadDetails?: (label: string) => Promise<{ diagnostics?: string[]; log?: string[] }>;
  } = {},
) {
  const b = bus();
  const calls = { rerun: [] as string[], rerunAll: 0, quit: 0, how: [] as string[] };
  const element = (rows: number) => (
    <App
      events={opts.events ?? b.source}
      root="/repo"
      store="/repo/.git/vkit"
      rows={rows}
      loadDetails={opts.loadDetails}
      onRerun={(l) => calls.rerun.push(l)}
      onRerunAll={() => calls.rerunAll++}
      onQuit={(how) => {
        calls.quit++;
        calls.how.push(how);
      }}
    />
  );
  const r = render(element(opts.rows ?? 30));
  const emit = async (...events: VkitEvent[]) => {
    b.emit(...events);
    await tick();
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await tick();
    }
  };
  return {
    ...r,
    frame: () => r.lastFrame() ?? '',
    emit,
    press,
    calls,
    rerenderRows: (rows: number) => r.rerender(element(rows)),
  };
}

/** The live region only: everything from the header on (`<Static>` lines come before it). */
const live = (frame: string) => frame.slice(frame.lastIndexOf('vkit gate '));
/** Table rows (status column first) in order, as [selected, status, id]. */
function rows(frame: string): [boolean, string, string][] {
  return live(frame)
    .split('\n')
    .map((l) => /^([> ]) (PASS|FAIL|BLOCKED|MISSING|STALE|running|queued)\s.*\s(\S+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1] === '>', m[2]!, m[3]!]);
}
const selected = (frame: string) => rows(frame).find((r) => r[0])?.[2];

const rejected = () =>
  settled(
    'REJECTED',
    [
      item('check:a', 'PASS'),
      item('check:z', 'FAIL', true, 'exit code 1, expected 0'),
      item('formal:m', 'MISSING', false),
      item('check:s', 'STALE'),
    ],
    1,
  );

test('initial state: header waits, the table is empty, root and store shown', async () => {
  const t = setup();
  await tick();
  const f = t.frame();
  assert.match(f, /vkit gate WAITING/);
  assert.match(f, /not settled yet/);
  assert.match(f, /root \/repo store \/repo\/\.git\/vkit/);
  assert.match(f, /no items yet/);
  assert.match(f, /filter: all/);
  assert.doesNotMatch(f, /running \d+\/\d+/);
  t.unmount();
});

test('running: live statuses and a progress line; finished actions go to the static scrollback once', async () => {
  const t = setup();
  await tick();
  await t.emit(started(1), queued('check:a'), queued('check:b'), running('check:a'), cached('check:c'));
  let f = t.frame();
  assert.match(f, /running 1\/3 done, 1 queued: check:a/);
  assert.deepEqual(
    rows(f).map((r) => [r[1], r[2]]),
    [
      ['running', 'check:a'],
      ['queued', 'check:b'],
      ['PASS', 'check:c'],
    ],
  );
  await t.emit(running('check:b'), finished('check:a', 'PASS'));
  f = t.frame();
  assert.match(f, /running 2\/3 done: check:b/);
  await t.emit(finished('check:b', 'FAIL', { reason: 'exit 1' }));
  f = t.frame();
  assert.doesNotMatch(f, /running \d+\/\d+ done/, 'no progress line once nothing runs');
  assert.match(f, /^cached {2}check:c$/m);
  assert.match(f, /^ran {5}check:a 120ms$/m);
  assert.match(f, /^failed {2}check:b 120ms {2}exit 1$/m);
  assert.equal(f.split('ran     check:a').length, 2, 'a static line is written once');
  t.unmount();
});

test('READY: the settle line and the header status, cycle and settle time', async () => {
  const t = setup();
  await tick();
  await t.emit(started(4), cached('check:a'), settled('READY', [item('check:a', 'PASS')], 4, 1234));
  const f = t.frame();
  assert.match(f, /vkit gate READY {2}cycle 4 {2}settled in 1\.2s at \d\d:\d\d:\d\d/);
  assert.match(f, /^cycle 4 settled: READY in 1\.2s \(1 ran, 1 cached\)$/m);
  assert.deepEqual(rows(f), [[true, 'PASS', 'check:a']]);
  t.unmount();
});

test('REJECTED: failing item first and selected, then blocked/stale/missing, then passing', async () => {
  const t = setup();
  await tick();
  await t.emit(rejected());
  const f = t.frame();
  assert.match(f, /vkit gate REJECTED/);
  assert.deepEqual(rows(f), [
    [true, 'FAIL', 'check:z'],
    [false, 'STALE', 'check:s'],
    [false, 'MISSING', 'formal:m'],
    [false, 'PASS', 'check:a'],
  ]);
  assert.match(live(f), /> FAIL {5}check {4}yes/);
  t.unmount();
});

test('BLOCKED by an invalid config shows the error, and recovers on the next settle', async () => {
  const t = setup();
  await tick();
  await t.emit(
    settled('READY', [item('check:a', 'PASS')], 1),
    started(2, ['vkit.config.ts']),
    invalidConfig('vkit.config.ts:3:7: Expected `checks` to be an array'),
  );
  let f = t.frame();
  assert.match(live(f), /vkit gate BLOCKED/);
  assert.match(live(f), /config invalid: vkit\.config\.ts:3:7: Expected `checks` to be an array/);
  assert.match(f, /^config invalid: vkit\.config\.ts:3:7/m, 'also in the scrollback');
  await t.emit(started(3, ['vkit.config.ts']), settled('READY', [item('check:a', 'PASS')], 3));
  f = t.frame();
  assert.match(live(f), /vkit gate READY {2}cycle 3/);
  assert.doesNotMatch(live(f), /config invalid/);
  t.unmount();
});

test('f cycles the filter all -> failing -> required -> all; the header status never changes', async () => {
  const t = setup();
  await tick();
  await t.emit(rejected());
  await t.press('f');
  let f = t.frame();
  assert.match(f, /filter: failing \(3 of 4 shown; status covers all\)/);
  assert.deepEqual(
    rows(f).map((r) => r[2]),
    ['check:z', 'check:s', 'formal:m'],
  );
  assert.match(live(f), /vkit gate REJECTED/);
  await t.press('f');
  f = t.frame();
  assert.match(f, /filter: required/);
  assert.deepEqual(
    rows(f).map((r) => r[2]),
    ['check:z', 'check:s', 'check:a'],
  );
  assert.match(live(f), /vkit gate REJECTED/);
  await t.press('f');
  f = t.frame();
  assert.match(f, /filter: all/);
  assert.equal(rows(f).length, 4);
  t.unmount();
});

test('a filter hiding everything failing-but-optional still shows READY for a READY gate', async () => {
  const t = setup();
  await tick();
  await t.emit(settled('READY', [item('check:a', 'PASS'), item('formal:opt', 'MISSING', false)], 1));
  await t.press('f');
  const f = t.frame();
  assert.deepEqual(
    rows(f).map((r) => [r[1], r[2]]),
    [['MISSING', 'formal:opt']],
  );
  assert.match(live(f), /vkit gate READY/);
  t.unmount();
});

test('j/k and the arrows move the selection, clamped at both ends', async () => {
  const t = setup();
  await tick();
  await t.emit(rejected());
  assert.equal(selected(t.frame()), 'check:z');
  await t.press('j');
  assert.equal(selected(t.frame()), 'check:s');
  await t.press(KEY.down);
  assert.equal(selected(t.frame()), 'formal:m');
  await t.press('j', 'j', 'j');
  assert.equal(selected(t.frame()), 'check:a', 'clamped at the end');
  await t.press('k');
  assert.equal(selected(t.frame()), 'formal:m');
  await t.press(KEY.up, KEY.up, KEY.up);
  assert.equal(selected(t.frame()), 'check:z', 'clamped at the start');
  t.unmount();
});

test('the selection follows its item when a new event reorders the table', async () => {
  const t = setup();
  await tick();
  await t.emit(rejected());
  await t.press('j', 'j', 'j');
  assert.equal(selected(t.frame()), 'check:a');
  await t.emit(started(2), running('check:a'));
  assert.equal(selected(t.frame()), 'check:a');
  assert.deepEqual(
    rows(t.frame()).find((r) => r[2] === 'check:a'),
    [true, 'running', 'check:a'],
  );
  t.unmount();
});

test('enter toggles details: reason, explain diff and last output lines of the selected item', async () => {
  const t = setup();
  await tick();
  await t.emit(
    started(1),
    running('check:z'),
    finished('check:z', 'FAIL', {
      reason: 'exit code 1, expected 0',
      explain: ['input a.txt changed'],
      tail: ['assertion failed: 1 != 2'],
    }),
    rejected(),
  );
  assert.doesNotMatch(t.frame(), /why it reran/);
  await t.press(KEY.enter);
  let f = live(t.frame());
  assert.match(f, /check:z FAIL/);
  assert.match(f, /reason: exit code 1, expected 0/);
  assert.match(f, /run: run-z {2}\(vkit run show --run run-z\)/);
  assert.match(f, /why it reran:\n {2}input a\.txt changed/);
  assert.match(f, /last 1 log line\(s\):\n {2}assertion failed: 1 != 2/);
  await t.press('j', 'j');
  f = live(t.frame());
  assert.match(f, /formal:m MISSING \(not required\)/, 'details follow the selection');
  await t.press(KEY.enter);
  assert.doesNotMatch(live(t.frame()), /reason:/);
  t.unmount();
});

test('details load diagnostics and log lines through loadDetails(label)', async () => {
  const asked: string[] = [];
  const t = setup({
    loadDetails: async (label) => {
      asked.push(label);
      return { diagnostics: [`${label}: src/a.ts:3: type error`], log: ['line one', 'line two'] };
    },
  });
  await tick();
  await t.emit(rejected());
  await t.press(KEY.enter);
  await tick();
  const f = live(t.frame());
  assert.deepEqual(asked, ['check:z']);
  assert.match(f, /diagnostics:\n {2}check:z: src\/a\.ts:3: type error/);
  assert.match(f, /last 2 log line\(s\):\n {2}line one\n {2}line two/);
  t.unmount();
});

test('r reruns the selected item, a reruns all, q and Ctrl-C quit', async () => {
  const t = setup();
  await tick();
  await t.emit(rejected());
  await t.press('r');
  assert.deepEqual(t.calls.rerun, ['check:z']);
  await t.press('j', 'r');
  assert.deepEqual(t.calls.rerun, ['check:z', 'check:s']);
  await t.press('a');
  assert.equal(t.calls.rerunAll, 1);
  assert.equal(t.calls.quit, 0);
  await t.press('q');
  assert.equal(t.calls.quit, 1);
  await t.press(KEY.ctrlC);
  assert.equal(t.calls.quit, 2);
  assert.deepEqual(t.calls.how, ['quit', 'interrupt'], 'q quits, Ctrl-C interrupts (exit 130 in vkit watch)');
  t.unmount();
});

test('keys arriving together (a paste, fast typing) act in order: "jr" reruns the next item', async () => {
  const t = setup();
  await tick();
  await t.emit(rejected());
  await t.press('jr');
  assert.deepEqual(t.calls.rerun, ['check:s']);
  await t.press('fjr');
  assert.deepEqual(t.calls.rerun, ['check:s', 'formal:m'], 'the filter applies before the move');
  t.unmount();
});

test('keys with no items do nothing harmful: r has no selection to rerun', async () => {
  const t = setup();
  await tick();
  await t.press('j', 'k', KEY.enter, 'r', 'f');
  assert.deepEqual(t.calls.rerun, []);
  assert.match(t.frame(), /filter: failing/);
  t.unmount();
});

test('the table scrolls its own rows within the terminal height, keeping the selection visible', async () => {
  const t = setup({ rows: 14 });
  await tick();
  const many = Array.from({ length: 30 }, (_, i) => item(`check:c${String(i).padStart(2, '0')}`, 'PASS'));
  await t.emit(settled('READY', many, 1));
  let f = live(t.frame());
  const height = f.split('\n').length;
  assert.ok(height <= 14, `live region has ${height} lines for 14 rows`);
  assert.match(f, /rows 1-\d+ of 30/);
  assert.equal(selected(f), 'check:c00');
  await t.press(...Array.from({ length: 20 }, () => 'j'));
  f = live(t.frame());
  assert.equal(selected(f), 'check:c20');
  assert.doesNotMatch(f, /rows 1-/);
  assert.ok(f.split('\n').length <= 14);
  await t.press(KEY.enter);
  f = live(t.frame());
  assert.ok(f.split('\n').length <= 14, 'details shrink the table, not overflow the screen');
  assert.equal(selected(f), 'check:c20');
  t.unmount();
});

test('rerender with a taller terminal shows more rows', async () => {
  const t = setup({ rows: 12 });
  await tick();
  await t.emit(
    settled(
      'READY',
      Array.from({ length: 30 }, (_, i) => item(`check:c${String(i).padStart(2, '0')}`, 'PASS')),
      1,
    ),
  );
  const before = rows(t.frame()).length;
  t.rerenderRows(30);
  await tick();
  const after = rows(t.frame()).length;
  assert.ok(after > before, `${after} rows after, ${before} before`);
  t.unmount();
});

test('an async iterable works as the event source', async () => {
  async function* events(): AsyncGenerator<VkitEvent> {
    yield started(1);
    yield queued('check:a');
    await tick(5);
    yield finished('check:a', 'PASS');
    yield settled('READY', [item('check:a', 'PASS')], 1);
  }
  const t = setup({ events: events() });
  await tick(80);
  const f = t.frame();
  assert.match(live(f), /vkit gate READY {2}cycle 1/);
  assert.match(f, /^ran {5}check:a 120ms$/m);
  t.unmount();
});
