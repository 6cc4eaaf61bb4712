/**
 * Smoke test in a real terminal: tmux runs `startTui` (raw-mode keys, real stdout), sends keys and
 * reads the screen (with CI unset: Ink draws no live frame under CI). Without tmux it skips, naming `npm run setup:system`; with VKIT_REQUIRE_SYSTEM=1 it fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const required = process.env.VKIT_REQUIRE_SYSTEM === '1';
const skip = !hasTmux && !required ? 'tmux is not installed: run `npm run setup:system`' : false;

test('the live TUI in tmux: draws the gate, keys reach the callbacks, q quits', { skip }, async () => {
  assert.ok(hasTmux, 'tmux is required (VKIT_REQUIRE_SYSTEM=1): run `npm run setup:system`');
  const dir = mkdtempSync(join(tmpdir(), 'vkit-tmux-'));
  const calls = join(dir, 'calls.txt');
  const session = `vkit-tui-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  const waitFor = async (re: RegExp, what: string) => {
    for (let i = 0; i < 100; i++) {
      if (re.test(screen())) return;
      await sleep(50);
    }
    assert.fail(`timed out waiting for ${what}; screen:\n${screen()}`);
  };
  const calledWith = async (line: string) => {
    for (let i = 0; i < 100; i++) {
      if (existsSync(calls) && readFileSync(calls, 'utf8').split('\n').includes(line)) return;
      await sleep(50);
    }
    assert.fail(`callback not called: ${line}`);
  };
  try {
    const driver = join(REPO_ROOT, 'dist', 'test', 'tui', 'tmux-app.js');
    const r = tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '100',
      '-y',
      '30',
      `env -u CI -u CONTINUOUS_INTEGRATION ${process.execPath} ${driver} ${calls}; sleep 5`,
    );
    assert.equal(r.status, 0, r.stderr);
    await waitFor(/vkit gate REJECTED/, 'the gate');
    const s = screen();
    assert.match(s, /^failed\s+check:b 120ms\s+exit code 1, expected 0$/m, 'the finished line is in the normal screen');
    assert.match(s, /^> FAIL\s+check\s+yes.*check:b$/m, 'failing item first and selected');
    tmux('send-keys', '-t', session, 'Enter');
    await waitFor(/last 1 log line\(s\):/, 'the details pane');
    tmux('send-keys', '-t', session, 'r');
    await calledWith('rerun check:b');
    tmux('send-keys', '-t', session, 'j');
    tmux('send-keys', '-t', session, 'r');
    await calledWith('rerun check:a');
    tmux('send-keys', '-t', session, 'a');
    await calledWith('rerun-all');
    tmux('send-keys', '-t', session, 'q');
    await calledWith('quit');
    await waitFor(/tui exited/, 'the app to exit');
  } finally {
    tmux('kill-server');
    rmSync(dir, { recursive: true, force: true });
  }
});
