/**
 * `vkit build | head -1`: a reader that goes away early never changes vkit's answer. The exit code
 * stays the gate's and nothing is printed about the closed pipe (no stack), whether stdout closes
 * before the first line or after it, whether stderr closes too, and when a resident build process
 * serves the command (its client writes what the server sends).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkit, vkitAsync, type TempRepo } from '../_support/repo.js';

let repo: TempRepo;
// A private runtime directory: the resident process of the last test never meets the user's.
const runtime = mkdtempSync(join(tmpdir(), 'vkit-epipe-rt-'));

before(() => {
  repo = tempRepo({ 'in.txt': 'in\n' });
  repo.age('in.txt');
  // Many checks: a build prints many lines, so writes go on after the reader left.
  repo.manifest({
    checks: Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, run: nodeCheck('0'), inputs: ['in.txt'] })),
  });
  repo.commitAll();
  assert.equal(vkit(['build', '--root', repo.dir, '--store', storeDir(repo)], { env: { VKIT_DAEMON: '0' } }).code, 0);
});

after(() => {
  vkit(['daemon', 'stop', '--root', repo.dir], { env: { XDG_RUNTIME_DIR: runtime } });
  repo.cleanup();
  rmSync(runtime, { recursive: true, force: true });
});

/** Runs vkit with its stdout (and maybe stderr) read by a reader that leaves after `lines` lines. */
function withEarlyReader(
  args: string[],
  opts: { lines: number; closeStderr?: boolean; env?: NodeJS.ProcessEnv },
): Promise<{ code: number | null; signal: string | null; stderr: string; seen: string }> {
  const child = vkitAsync([...args, '--root', repo.dir, '--store', storeDir(repo)], {
    cwd: repo.dir,
    env: { VKIT_DAEMON: '0', ...opts.env },
  });
  let seen = '';
  let stderr = '';
  const leave = () => child.stdout.destroy();
  if (opts.lines === 0) leave();
  else
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.split('\n').length > opts.lines) leave();
    });
  if (opts.closeStderr) child.stderr.destroy();
  else child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr, seen })));
}

for (const [args, gateCode] of [
  [['build'], 0],
  [['build', '--json'], 0],
  [['gate', '--json'], 0],
  [['build', '--only', 'nope'], 2],
] as const) {
  for (const lines of [0, 1]) {
    test(`vkit ${args.join(' ')} with stdout closed after ${lines} line(s): exit ${gateCode}, no stack`, async () => {
      const r = await withEarlyReader([...args], { lines });
      assert.equal(r.signal, null);
      assert.equal(r.code, gateCode, r.stderr);
      assert.doesNotMatch(r.stderr, /EPIPE|internal error|\n\s+at /);
    });
  }
}

test('stdout and stderr both closed at once: the exit code is still the answer', async () => {
  for (const [args, code] of [
    [['build'], 0],
    [['build', '--only', 'nope'], 2],
  ] as const) {
    const r = await withEarlyReader([...args], { lines: 0, closeStderr: true });
    assert.equal(r.code, code, args.join(' '));
  }
});

test('a served build (resident process) with stdout closed after one line: exit 0, no stack', async () => {
  const env = { XDG_RUNTIME_DIR: runtime };
  const started = vkit(['daemon', 'start', '--root', repo.dir, '--idle-s', '60'], { env });
  assert.equal(started.code, 0, started.stderr);
  for (const lines of [0, 1]) {
    const r = await withEarlyReader(['build'], { lines, env: { ...env, VKIT_DAEMON: '1' } });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /EPIPE|internal error|\n\s+at /);
  }
  const status = vkit(['daemon', 'status', '--root', repo.dir, '--json'], { env }).json() as { served?: number };
  assert.ok((status.served ?? 0) >= 2, 'the builds were served by the resident process');
});
