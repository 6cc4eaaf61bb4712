/**
 * The watching resident build process (`vkit daemon start --watch`): a repeated no-op is answered
 * from memory with exactly the fresh process's answer, and every change a fresh process would see
 * (an input edited, touched or added, a receipt file tampered with, a commit to the store by another
 * process, a tool replaced on PATH) is never answered from memory.
 */
import assert from 'node:assert/strict';
import {
  appendFileSync,
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';

const runtime = mkdtempSync(join(tmpdir(), 'vkit-watch-rt-'));
// A tool outside the repository, found on PATH: its identity is part of the check's key.
const bin = mkdtempSync(join(tmpdir(), 'vkit-watch-bin-'));
const PATH = `${bin}:${process.env.PATH}`;
const ENV = { XDG_RUNTIME_DIR: runtime, PATH };
let repo: TempRepo;

const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  vkit([...args, '--root', repo.dir], { cwd: repo.dir, env: { ...ENV, ...env } });
const status = () =>
  vkit(['daemon', 'status', '--root', repo.dir, '--json'], { env: ENV }).json() as {
    served: number;
    watch: { recalled: number; refused?: string; missed?: string; restarts: number };
  };
const recalled = () => status().watch.recalled;
const withoutMs = (report: { stats: Record<string, unknown> }) => ({ ...report, stats: { ...report.stats, ms: 0 } });

/** Runs `args` until an answer is kept, then once more: that one must come from memory. */
function fromMemory(args: string[]) {
  for (let i = 0; i < 4; i++) {
    const before = recalled();
    const r = run(args);
    if (recalled() === before + 1) return r;
  }
  assert.fail(`never answered from memory: ${status().watch.refused}`);
}

function tool(exitCode: number) {
  writeFileSync(join(bin, 'vkit-watch-tool'), `#!/bin/sh\nexit ${exitCode}\n`);
  chmodSync(join(bin, 'vkit-watch-tool'), 0o755);
  const old = new Date(Date.now() - 10_000);
  utimesSync(join(bin, 'vkit-watch-tool'), old, old);
}

before(() => {
  repo = tempRepo({
    'src/a.txt': 'a\n',
    'src/deep/b.txt': 'b\n',
    'check.js': "process.exit(require('fs').readFileSync('src/a.txt', 'utf8') === 'a\\n' ? 0 : 1)\n",
    '.gitignore': 'ignored/\n',
    'ignored/x.txt': 'x\n',
  });
  tool(0);
  repo.manifest({
    checks: [
      { id: 'a', run: ['node', 'check.js'], inputs: ['check.js', 'src/**'] },
      {
        id: 'tool',
        run: ['vkit-watch-tool'],
        inputs: ['src/a.txt'],
        sandbox: { none: 'the tool lives outside the work tree' },
      },
    ],
  });
  for (const f of ['src/a.txt', 'src/deep/b.txt', 'check.js', '.gitignore', 'vkit.manifest.json']) repo.age(f);
  repo.commitAll();
  const r = vkit(['daemon', 'start', '--root', repo.dir, '--idle-s', '300', '--watch'], { env: ENV });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /watching the tree/);
});

after(() => {
  vkit(['daemon', 'stop', '--root', repo.dir], { env: ENV });
  repo.cleanup();
  rmSync(runtime, { recursive: true, force: true });
  rmSync(bin, { recursive: true, force: true });
});

test("a repeated no-op is answered from memory with the fresh process's answer, text and JSON", () => {
  const json = fromMemory(['build', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const fresh = run(['build', '--json'], { VKIT_DAEMON: '0' });
  assert.deepEqual(withoutMs(json.json()), withoutMs(fresh.json()));
  const text = fromMemory(['build']);
  const freshText = run(['build'], { VKIT_DAEMON: '0' });
  const lines = (s: string) => s.replace(/in \d+ms/, 'in Xms');
  assert.equal(lines(text.stdout), lines(freshText.stdout));
  assert.match(text.stdout, /cached\s+check:a/);
  const gate = fromMemory(['gate', '--json']);
  assert.deepEqual(gate.json(), run(['gate', '--json'], { VKIT_DAEMON: '0' }).json());
});

test('an edited input is never answered from memory: the check reruns and the gate rejects', () => {
  fromMemory(['build', '--json']);
  const before = recalled();
  repo.write('src/a.txt', 'changed\n');
  const r = run(['build', '--json']);
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.json().gate.status, 'REJECTED');
  assert.equal(recalled(), before);
  repo.write('src/a.txt', 'a\n');
  repo.age('src/a.txt');
  assert.equal(run(['build']).code, 0);
});

test('an input rewritten with its size and times put back (touch -r) is never answered from memory: the gate rejects', () => {
  fromMemory(['build', '--json']);
  const before = recalled();
  const file = join(repo.dir, 'src/a.txt');
  const st = lstatSync(file);
  writeFileSync(file, 'X\n'); // same size
  utimesSync(file, st.atime, st.mtime); // same times: only the ctime (and the watch) tells
  const r = run(['build', '--json']);
  assert.equal(recalled(), before);
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.json().gate.status, 'REJECTED');
  repo.write('src/a.txt', 'a\n');
  repo.age('src/a.txt');
  assert.equal(run(['build']).code, 0);
});

test('a .gitignore that ignores itself, appended to, is never answered from memory: a config error as a fresh run says', () => {
  // The root's .gitignore untracked and ignoring itself: no listed file, only its directory's watch hears it.
  repo.git('rm', '-q', '--cached', '.gitignore');
  repo.write('.gitignore', 'ignored/\n.gitignore\n');
  repo.write('src/deep/untracked.txt', 'u\n');
  for (const f of ['.gitignore', 'src/deep/untracked.txt']) repo.age(f);
  try {
    assert.equal(run(['build']).code, 0);
    fromMemory(['build', '--json']);
    const before = recalled();
    appendFileSync(join(repo.dir, '.gitignore'), 'src/deep/untracked.txt\n');
    const r = run(['build', '--json']);
    assert.equal(recalled(), before);
    const fresh = run(['build', '--json'], { VKIT_DAEMON: '0' });
    assert.equal(fresh.code, 2, fresh.stdout);
    assert.equal(r.code, 2, r.stdout);
    assert.equal(r.stdout, fresh.stdout);
  } finally {
    repo.write('.gitignore', 'ignored/\n');
    repo.age('.gitignore');
    repo.git('add', '.gitignore');
    rmSync(join(repo.dir, 'src/deep/untracked.txt'));
  }
  assert.equal(run(['build']).code, 0);
});

test('a touched input, a new file in a watched directory and an edit deep in the tree are each seen', () => {
  for (const [path, change] of [
    ['src/a.txt', () => utimesSync(join(repo.dir, 'src/a.txt'), new Date(), new Date(Date.now() - 20_000))],
    ['src/deep/new.txt', () => repo.write('src/deep/new.txt', 'new\n')],
    ['src/deep/b.txt', () => appendFileSync(join(repo.dir, 'src/deep/b.txt'), 'more\n')],
  ] as const) {
    fromMemory(['build', '--json']);
    const before = recalled();
    change();
    const r = run(['build', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(recalled(), before, `answered from memory after a change to ${path}`);
    // Out of the racy-clean window, so that the next no-op writes nothing (and can be kept).
    repo.age(path);
  }
  // Two new input bytes: the check ran on them.
  assert.ok(
    run(['build', '--json'])
      .json()
      .actions.every((a: { status: string }) => a.status === 'cached'),
  );
});

test('a change inside a directory git ignores whole does not drop the answer', () => {
  fromMemory(['gate', '--json']);
  const before = recalled();
  writeFileSync(join(repo.dir, 'ignored', 'x.txt'), 'changed\n');
  mkdirSync(join(repo.dir, 'ignored', 'more'), { recursive: true });
  assert.equal(run(['gate', '--json']).code, 0);
  assert.equal(recalled(), before + 1);
});

test('a receipt file tampered with is never answered from memory: the gate sees it as a fresh one does', () => {
  const built = fromMemory(['gate', '--json']);
  const receipt = (built.json().items as Array<{ id: string; receipt: string }>).find(
    (i) => i.id === 'check:a',
  )!.receipt;
  const hex = receipt.replace('sha256:', '');
  const file = join(repo.dir, '.git', 'vkit', 'cas', hex.slice(0, 2), hex.slice(2));
  chmodSync(file, 0o644);
  appendFileSync(file, ' ');
  const before = recalled();
  const served = run(['gate', '--json']);
  assert.equal(recalled(), before, 'a tampered receipt was answered from memory');
  assert.notEqual(served.json().status, 'READY');
  assert.deepEqual(served.json(), run(['gate', '--json'], { VKIT_DAEMON: '0' }).json());
  // The next build reruns the check and the gate is whole again.
  assert.equal(run(['build']).code, 0);
});

test('a commit to the store by another process is never answered from memory', () => {
  fromMemory(['build', '--json']);
  const before = recalled();
  const forced = run(['build', '--force', '--only', 'a', '--json'], { VKIT_DAEMON: '0' });
  assert.equal(forced.code, 0, forced.stderr);
  const r = run(['build', '--json']);
  assert.equal(recalled(), before);
  assert.equal(status().watch.missed, 'the store was written');
  // The fresh answer names the run the other process recorded.
  const a = (r.json().actions as Array<{ label: string; run: string }>).find((x) => x.label === 'check:a')!;
  assert.equal(a.run, (forced.json().actions as Array<{ label: string; run: string }>)[0]!.run);
});

test('a tool replaced on PATH is never answered from memory: the check runs with the new tool', () => {
  fromMemory(['build', '--json']);
  const before = recalled();
  tool(1);
  const r = run(['build', '--json']);
  assert.equal(recalled(), before);
  assert.equal(r.code, 1, r.stdout);
  const t = (r.json().actions as Array<{ label: string; status: string }>).find((x) => x.label === 'check:tool')!;
  assert.equal(t.status, 'failed');
  tool(0);
  assert.equal(run(['build']).code, 0);
});

test('another environment or date is another question: never answered with the first one', () => {
  fromMemory(['gate', '--json']);
  const before = recalled();
  assert.equal(run(['gate', '--json'], { SOME_VAR: 'x' }).code, 0);
  assert.equal(run(['gate', '--json', '--now', '2099-01-01']).code, 0);
  assert.equal(recalled(), before);
});

test('a write through a hard link made outside the tree after the answer was kept is never answered from memory', () => {
  fromMemory(['build', '--json']);
  // Not on PATH (whose directories are watched by their stats): nothing but the file's own watch can tell.
  const elsewhere = mkdtempSync(join(tmpdir(), 'vkit-watch-link-'));
  const outside = join(elsewhere, 'linked-a.txt');
  linkSync(join(repo.dir, 'src/a.txt'), outside);
  try {
    writeFileSync(outside, 'changed through the other link\n');
    const before = recalled();
    const r = run(['build', '--json']);
    assert.equal(recalled(), before);
    assert.equal(r.code, 1, r.stdout);
    assert.equal(r.json().gate.status, 'REJECTED');
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
    repo.write('src/a.txt', 'a\n');
    repo.age('src/a.txt');
  }
  assert.equal(run(['build']).code, 0);
});
