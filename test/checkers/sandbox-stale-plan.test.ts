/**
 * The host's mounts change under the built-in sandbox (containers start and stop beside a build):
 * a plan made from a table that misses a writable mount is refused by the init before the check
 * starts, and vkit plans again from the fresh table instead of reporting the check BLOCKED. A
 * refusal that stays is never a run: the check's command does not happen.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Mount, parseMountinfo } from '../../src/checkers/mounts.js';
import { runProcess, STATUS_FD } from '../../src/checkers/process.js';
import { confine, probeSandbox, runConfined, SANDBOX_PLANS, stalePlan } from '../../src/checkers/sandbox-backend.js';

const unavailable = await probeSandbox('builtin', process.env, STATUS_FD);
if (unavailable && process.env.VKIT_REQUIRE_SYSTEM === '1')
  throw new Error(`VKIT_REQUIRE_SYSTEM=1 but the built-in sandbox cannot run: ${unavailable}`);
if (unavailable) console.error(`SKIP sandbox-stale-plan: the built-in sandbox cannot run here: ${unavailable}`);

/** The host's table without one writable mount the check's view would have to make read-only. */
function staleTable(workDir: string): { mounts: Mount[]; hidden: string } {
  const mounts = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
  const covered = (p: string) =>
    ['/dev', '/proc', '/tmp', workDir].some((c) => p === c || p.startsWith(`${c}/`) || c.startsWith(`${p}/`));
  const writable = (m: Mount) => {
    const line = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .find((l) => l.split(' ')[4] === m.escaped);
    return line !== undefined && /^rw(,|$)/.test(line.split(' ')[5]!);
  };
  const hidden = mounts.find((m) => m.path !== '/' && !covered(m.path) && existsSync(m.path) && writable(m));
  const chosen = hidden?.path ?? '/';
  return { mounts: mounts.filter((m) => m.path !== chosen), hidden: chosen };
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-stale-'));
  const layout = { mode: 'isolated' as const, root: dir, cwd: dir, protect: [], keep: [] };
  const req = {
    argv: ['/bin/sh', '-c', 'echo ran >> marker'],
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 20_000,
    signal: new AbortController().signal,
  };
  const env = { ...process.env, VKIT_SANDBOX: 'builtin' };
  const run = (wrap: Parameters<typeof runProcess>[3]) => runProcess(req, join(dir, 'out'), join(dir, 'err'), wrap);
  return { dir, layout, env, run, ...staleTable(dir) };
}

test('a plan from a stale mount table is refused before the check starts', { skip: unavailable }, async () => {
  const s = setUp();
  try {
    const wrap = confine(s.layout, STATUS_FD, s.env, s.mounts);
    assert.notEqual(typeof wrap, 'string');
    if (typeof wrap === 'string') return;
    const result = await s.run(wrap).finally(() => wrap.cleanup());
    assert.equal(result.exitCode, null, `ran with ${s.hidden} missing from the plan`);
    assert.match(result.spawnError ?? '', /would be writable/);
    assert.ok(stalePlan(result), result.spawnError);
    assert.equal(existsSync(join(s.dir, 'marker')), false, 'the command ran');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('vkit plans again from the fresh table, and the check runs once', { skip: unavailable }, async () => {
  const s = setUp();
  try {
    let plans = 0;
    const result = await runConfined((n) => {
      plans = n;
      return confine(s.layout, STATUS_FD, s.env, n === 1 ? s.mounts : undefined);
    }, s.run);
    assert.notEqual(typeof result, 'string');
    if (typeof result === 'string') return;
    assert.equal(result.spawnError, undefined);
    assert.equal(result.exitCode, 0);
    assert.equal(plans, 2);
    assert.equal(readFileSync(join(s.dir, 'marker'), 'utf8'), 'ran\n');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a table that stays stale ends in a refusal after a bounded number of plans, never a run', {
  skip: unavailable,
}, async () => {
  const s = setUp();
  try {
    let plans = 0;
    const result = await runConfined((n) => {
      plans = n;
      return confine(s.layout, STATUS_FD, s.env, s.mounts);
    }, s.run);
    assert.notEqual(typeof result, 'string');
    if (typeof result === 'string') return;
    assert.equal(plans, SANDBOX_PLANS);
    assert.equal(result.exitCode, null);
    assert.match(result.spawnError ?? '', /would be writable/);
    assert.equal(existsSync(join(s.dir, 'marker')), false, 'the command ran');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});
