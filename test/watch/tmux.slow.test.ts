/**
 * `vkit watch` in a real terminal: tmux runs the binary, the TUI draws the gate from the event
 * stream, an edit starts a cycle whose result appears on screen, `r` reruns the selected item as a
 * fresh run, `q` stops cleanly, Ctrl-C cancels the running check and exits 130. Without tmux it skips, naming `npm run setup:system`; with
 * VKIT_REQUIRE_SYSTEM=1 it fails instead. Ink draws no live frame when CI is set, so the TUI session
 * runs with CI unset, and a second session checks that watch falls back to lines when it is set.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { cli, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, VKIT_BIN } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const required = process.env.VKIT_REQUIRE_SYSTEM === '1';
const skip = !hasTmux && !required ? 'tmux is not installed: run `npm run setup:system`' : false;

test('vkit watch under tmux: the TUI shows the gate, an edit reruns, r reruns the selection, q quits', {
  skip,
}, async () => {
  assert.ok(hasTmux, 'tmux is required (VKIT_REQUIRE_SYSTEM=1): run `npm run setup:system`');
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.manifest({
    checks: [
      { id: 'alpha', run: nodeCheck("require('fs').readFileSync('a.txt')"), inputs: ['a.txt'] },
      {
        id: 'beta',
        run: nodeCheck("process.exit(require('fs').readFileSync('b.txt', 'utf8').includes('bad') ? 1 : 0)"),
        inputs: ['b.txt'],
      },
    ],
  });
  const session = `vkit-watch-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  const waitFor = async (pred: (s: string) => boolean, what: string) => {
    for (let i = 0; i < 200; i++) {
      if (pred(screen())) return;
      await sleep(50);
    }
    assert.fail(`timed out waiting for ${what}; screen:\n${screen()}`);
  };
  try {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION ${process.execPath} ${VKIT_BIN} watch --root ${repo.dir} --store ${storeDir(repo)}; echo EXITED $?; sleep 5`;
    assert.equal(tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '30', cmd).status, 0);
    await waitFor((s) => /vkit gate READY\s+cycle 1/.test(s), 'the first cycle to settle READY');
    assert.match(screen(), /check:alpha/);
    assert.match(screen(), /j\/k move/);

    repo.write('b.txt', 'bad\n');
    await waitFor((s) => /vkit gate REJECTED\s+cycle 2/.test(s), 'the edit to make the gate REJECTED');
    // Failing first: beta is now the first row, and selected.
    const rows = screen()
      .split('\n')
      .filter((l) => /^[> ] +(PASS|FAIL|BLOCKED|STALE|MISSING|running|queued)\s/.test(l));
    assert.match(rows[0]!, /FAIL.*check:beta/);

    repo.write('b.txt', 'good\n');
    await waitFor((s) => /vkit gate READY\s+cycle 3/.test(s), 'the fix to make it READY again');

    // Both PASS now: the first row, check:alpha, is selected. r reruns it as a fresh run (ran, not
    // cached, though its evidence is intact) and leaves beta cached.
    tmux('send-keys', '-t', session, 'r');
    await waitFor((s) => /^cycle 4 settled: READY/m.test(s), 'r to rerun the selection in cycle 4');
    const after3 = screen().split(/^cycle 3 settled:.*$/m)[1] ?? '';
    assert.match(after3, /^ran\s+check:alpha\b/m, `alpha reran fresh; screen:\n${screen()}`);
    assert.match(after3, /^cached\s+check:beta\b/m);
    tmux('send-keys', '-t', session, 'q');
    await waitFor((s) => /EXITED 0/.test(s), 'q to stop the watch');
  } finally {
    tmux('kill-server');
    repo.cleanup();
  }
});

test('vkit watch under tmux: Ctrl-C in the TUI cancels the running check (interrupted, cancelled) and exits 130', {
  skip,
}, async () => {
  assert.ok(hasTmux, 'tmux is required (VKIT_REQUIRE_SYSTEM=1): run `npm run setup:system`');
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({
    checks: [{ id: 'sleepy', run: nodeCheck('setTimeout(() => {}, 60000)'), inputs: ['a.txt'], timeout_s: 120 }],
  });
  const session = `vkit-watch-int-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  try {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION ${process.execPath} ${VKIT_BIN} watch --root ${repo.dir} --store ${storeDir(repo)}; echo EXITED $?; sleep 5`;
    assert.equal(tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '30', cmd).status, 0);
    const t0 = Date.now();
    for (;;) {
      const runs = cli(repo, ['runs', '--json']).json().runs;
      if (runs[0]?.state === 'running' && /running 0\/1 done: check:sleepy/.test(screen())) break;
      assert.ok(Date.now() - t0 < 20_000, `the check never ran; screen:\n${screen()}`);
      await sleep(100);
    }
    tmux('send-keys', '-t', session, 'C-c');
    for (let i = 0; i < 300 && !/EXITED \d+/.test(screen()); i++) await sleep(50);
    assert.match(screen(), /EXITED 130/, `screen:\n${screen()}`);
    const runs = cli(repo, ['runs', '--json']).json().runs;
    assert.equal(runs.length, 1);
    assert.equal(runs[0].state, 'interrupted');
    assert.equal(runs[0].reason, 'cancelled');
  } finally {
    tmux('kill-server');
    repo.cleanup();
  }
});

test('vkit watch on a terminal with CI set prints greppable lines instead of the TUI', { skip }, async () => {
  assert.ok(hasTmux, 'tmux is required (VKIT_REQUIRE_SYSTEM=1): run `npm run setup:system`');
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({
    checks: [{ id: 'alpha', run: nodeCheck("require('fs').readFileSync('a.txt')"), inputs: ['a.txt'] }],
  });
  const session = `vkit-watch-ci-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  try {
    const cmd = `env CI=true ${process.execPath} ${VKIT_BIN} watch --root ${repo.dir} --store ${storeDir(repo)}`;
    assert.equal(tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '30', cmd).status, 0);
    for (let i = 0; i < 200 && !/cycle 1 settled: READY/.test(screen()); i++) await sleep(50);
    const s = screen();
    assert.match(s, /cycle 1 settled: READY/, `the settle line is printed; screen:\n${s}`);
    assert.doesNotMatch(s, /j\/k move/, 'no TUI key help');
  } finally {
    tmux('kill-server');
    repo.cleanup();
  }
});
