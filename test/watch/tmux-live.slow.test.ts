/**
 * `vkit watch` in a real terminal shows a running check's output so far: tmux runs the binary, the
 * check prints a line then sleeps, and the details pane shows that line and the elapsed time while
 * the row is running, then the final state. Skips without tmux (naming `npm run setup:system`);
 * with VKIT_REQUIRE_SYSTEM=1 it fails instead. CI is unset in the session: Ink draws no live frame under it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, VKIT_BIN } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const required = process.env.VKIT_REQUIRE_SYSTEM === '1';
const skip = !hasTmux && !required ? 'tmux is not installed: run `npm run setup:system`' : false;

test('vkit watch under tmux: the details pane tails a running check’s output, then shows its result', {
  skip,
}, async () => {
  assert.ok(hasTmux, 'tmux is required (VKIT_REQUIRE_SYSTEM=1): run `npm run setup:system`');
  const repo = tempRepo({ 'a.txt': 'a\n' });
  // The marker is built at run time, so the command line on screen never shows it; an escape that
  // would set the terminal's title comes with it and must not reach the terminal.
  const code =
    "process.stdout.write('\\u001b]2;PWNED\\u0007' + ['LIVE', 'MARKER', '4217'].join('-') + '\\n'); setTimeout(() => console.log('done'), 2000)";
  repo.manifest({ checks: [{ id: 'slow', run: nodeCheck(code), inputs: ['a.txt'], timeout_s: 60 }] });
  const session = `vkit-watch-live-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  const waitFor = async (pred: (s: string) => boolean, what: string) => {
    for (let i = 0; i < 200; i++) {
      const s = screen();
      if (pred(s)) return s;
      await sleep(50);
    }
    assert.fail(`timed out waiting for ${what}; screen:\n${screen()}`);
  };
  try {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION ${process.execPath} ${VKIT_BIN} watch --root ${repo.dir} --store ${storeDir(repo)}; echo EXITED $?; sleep 5`;
    assert.equal(tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '30', cmd).status, 0);
    await waitFor((s) => /running\s+check\s.*check:slow/.test(s), 'the check to be running');
    tmux('send-keys', '-t', session, 'Enter');
    const live = await waitFor((s) => /LIVE-MARKER-4217/.test(s), 'the running check’s output in the details pane');
    assert.match(live, /check:slow running/, `the row is still running; screen:\n${live}`);
    assert.match(live, /running for \d+s/, 'the elapsed time');
    assert.match(live, /live stdout, last 1 line\(s\) so far:/);
    const title = tmux('display-message', '-p', '-t', session, '#{pane_title}').stdout;
    assert.doesNotMatch(title, /PWNED/, 'the check’s output cannot set the terminal’s title');

    const final = await waitFor((s) => /vkit gate READY/.test(s) && /reason: passed/.test(s), 'the check to end');
    assert.doesNotMatch(final, /live stdout/, `the live tail is gone once the check ended; screen:\n${final}`);
    await waitFor((s) => /last 2 log line\(s\):/.test(s) && /LIVE-MARKER-4217/.test(s), 'the receipt’s log');
    tmux('send-keys', '-t', session, 'q');
    await waitFor((s) => /EXITED 0/.test(s), 'q to stop the watch');
  } finally {
    tmux('kill-server');
    repo.cleanup();
  }
});
