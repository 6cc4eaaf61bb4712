/**
 * A vkit.config.ts runs in its own thread and hands vkit plain data only: nothing it does while
 * loading (exit, odd throws, rejections, timers, endless loops, memory, prototype and global
 * tricks, stdout) can fake an answer, change vkit's exit code, hang vkit or leave files behind.
 * Every such config is exit 2 naming the config file; a config that only pollutes its own
 * globals still gets vkit's true answer.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';

/** The CLI with a hard time limit: a regression that hangs fails the test instead of stalling it. */
const cli = (repo: TempRepo, args: string[], env: NodeJS.ProcessEnv = {}) =>
  vkit([...args, '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir, env, timeoutMs: 40_000 });

const CHECK = `{ id: 'fails', run: ['node', '-e', 'process.exit(1)'], inputs: ['a.txt'] }`;
const config = (before: string, after = '') =>
  `import { defineConfig } from 'vkit';\n${before}\nexport default defineConfig({ checks: [${CHECK}] });\n${after}\n`;

const refused: Array<[string, string, RegExp, Record<string, string>?]> = [
  ['process.exit(0) while loading', config('process.exit(0);'), /process\.exit\(0\)/],
  [
    'an unhandled rejection',
    config(`Promise.reject(new Error('nobody catches me'));\nawait new Promise((r) => setTimeout(r, 50));`),
    /unhandled|nobody catches me/,
  ],
  [
    'a throw from a timer',
    config(`setTimeout(() => { throw new Error('timer bomb'); }, 0);\nawait new Promise((r) => setTimeout(r, 50));`),
    /timer bomb/,
  ],
  ['a top-level await that never settles', config('await new Promise(() => {});'), /never settles|without an answer/],
  ['an endless loop', config('while (true) {}'), /did not finish within 2 s/, { VKIT_CONFIG_TIMEOUT_S: '2' }],
  [
    'unbounded memory',
    config('const keep: string[] = []; while (true) keep.push("x".repeat(1e6) + keep.length);'),
    /more than 64 MB|memory/,
    { VKIT_CONFIG_MEMORY_MB: '64', VKIT_CONFIG_TIMEOUT_S: '20' },
  ],
  ['a throw of an unprintable value', config('throw Object.create(null);'), /threw: a thrown/],
  [
    'a default export that is a Proxy whose traps throw',
    `export default new Proxy({}, { ownKeys() { throw new Error('trap'); }, get() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } });\n`,
    /trap|cannot be read/,
  ],
];

for (const [name, text, message, env] of refused) {
  test(`config with ${name}: gate and build exit 2 naming the config, no temp module left`, () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': text });
    try {
      for (const verb of ['gate', 'build']) {
        const started = Date.now();
        const r = cli(repo, [verb], { VKIT_DAEMON: '0', ...env });
        assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /vkit\.config\.ts/);
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /internal error| {4}at /, 'no stack');
        assert.equal(r.stdout, '', 'nothing on stdout');
        assert.ok(Date.now() - started < 30_000, `${verb} took ${Date.now() - started} ms`);
      }
      assert.deepEqual(
        readdirSync(repo.dir).filter((f) => f.includes('.timestamp-')),
        [],
      );
    } finally {
      repo.cleanup();
    }
  });
}

test('a config that leaves a timer running does not keep vkit alive', () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': config('setInterval(() => {}, 1000);') });
  try {
    const started = Date.now();
    const r = cli(repo, ['build'], { VKIT_DAEMON: '0' });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(Date.now() - started < 20_000);
  } finally {
    repo.cleanup();
  }
});

test('prototype pollution and replaced globals stay in the config: the gate says REJECTED for a failing check', () => {
  const tricks = `(Object.prototype as any).status = 'READY';\n(Object.prototype as any).exitCode = 0;\n(globalThis as any).Promise = undefined;\n(Array.prototype as any).filter = () => [];`;
  const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': config(tricks) });
  try {
    const build = cli(repo, ['build', '--json'], { VKIT_DAEMON: '0' });
    assert.equal(build.code, 1, build.stdout + build.stderr);
    const gate = cli(repo, ['gate', '--json'], { VKIT_DAEMON: '0' });
    assert.equal(gate.code, 1, gate.stdout + gate.stderr);
    assert.equal(JSON.parse(gate.stdout).status, 'REJECTED');
  } finally {
    repo.cleanup();
  }
});

test("what a config prints goes to stderr: --json stdout is vkit's answer alone", () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'vkit.config.ts': config(`console.log(JSON.stringify({ status: 'READY' }));\nprocess.stdout.write('more\\n');`),
  });
  try {
    const gate = cli(repo, ['gate', '--json'], { VKIT_DAEMON: '0' });
    assert.equal(gate.code, 3, gate.stdout + gate.stderr);
    assert.equal(JSON.parse(gate.stdout).status, 'BLOCKED', 'one JSON document: the real gate');
    assert.match(gate.stderr, /\{"status":"READY"\}/);
    assert.match(gate.stderr, /more/);
  } finally {
    repo.cleanup();
  }
});
