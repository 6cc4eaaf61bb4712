/**
 * A no-op record (D51) stands on every file git may read ignore rules from, present or not yet:
 * a `.gitignore` that ignores itself (so it is no listed file), a `core.excludesFile` that did not
 * exist when the record was written, the default global excludes file (`$XDG_CONFIG_HOME/git/ignore`,
 * else `~/.config/git/ignore`) created afterwards, `.git/info/exclude` created afterwards, and a
 * `.gitignore` new in a directory of the tree. After each, git ignores `data/b.txt`, which the
 * check's inputs glob selects: a config error (exit 2), as a full run says; never the recorded READY.
 * "Recalled" is observed from outside, as in noop-record.slow.test.ts: git on PATH logs its calls.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gitLogger } from '../_support/git-log.js';
import { retryUntilRecalled, SETTLE_MS } from '../_support/noop-records.js';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const bin = mkdtempSync(join(tmpdir(), 'vkit-ign-bin-'));
const LOG = join(bin, 'git-calls.log');
const observe = gitLogger(bin, LOG);
const cleanups: Array<() => void> = [];

after(() => {
  for (const c of cleanups) c();
  rmSync(bin, { recursive: true, force: true });
});

/**
 * A repo whose one check selects `data/**` (`data/b.txt` untracked), built once, with its own HOME and
 * XDG_CONFIG_HOME (empty temp directories: no global git configuration or excludes file yet).
 */
async function setup(files: Record<string, string> = {}, xdg = true) {
  const home = mkdtempSync(join(tmpdir(), 'vkit-ign-home-'));
  const repo: TempRepo = tempRepo({ 'data/a.txt': 'a\n' });
  cleanups.push(() => {
    repo.cleanup();
    rmSync(home, { recursive: true, force: true });
  });
  repo.manifest({ checks: [{ id: 'a', run: ['true'], inputs: ['data/**'] }] });
  repo.commitAll();
  // Untracked: an ignore rule can make git ignore it (a tracked file it would still list).
  repo.write('data/b.txt', 'b\n');
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH}`,
    VKIT_DAEMON: '0',
    // A run says when it kept no record: `recorded` waits only when that may help.
    VKIT_NOOP_DEBUG: '1',
    HOME: home,
    XDG_CONFIG_HOME: xdg ? join(home, 'xdg') : undefined,
  };
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    vkit(args, { cwd: repo.dir, env: { ...env, ...extra } });
  const built = run(['build']);
  assert.equal(built.code, 0, built.stderr);
  await sleep(SETTLE_MS);
  return { repo, home, run };
}

/** Runs `build` until a record answers it (READY, exit 0): the record now exists and is in use. */
async function recorded(run: (args: string[]) => ReturnType<typeof vkit>) {
  const { r, recalled } = await retryUntilRecalled(() => observe(() => run(['build'])), 8);
  if (!recalled) assert.fail(`never answered from a record\n${r.stderr}`);
  assert.equal(r.code, 0, r.stdout);
}

/** The next `build` is not answered from the record: it gives a full run's answer, the config error. */
function seesIgnored(run: (args: string[], extra?: NodeJS.ProcessEnv) => ReturnType<typeof vkit>) {
  const { r, recalled } = observe(() => run(['build']));
  const full = run(['build'], { VKIT_NOOP_RECORDS: '0' });
  assert.equal(full.code, 2, `a full run should refuse the ignored input:\n${full.stdout}${full.stderr}`);
  assert.match(full.stdout + full.stderr, /data\/b\.txt/);
  assert.equal(r.code, 2, `answered ${r.code} (recalled: ${recalled}) where a full run exits 2:\n${r.stdout}`);
  assert.equal(recalled, false);
  assert.equal(r.stdout, full.stdout);
}

test('a self-ignored .gitignore appended to is seen: the next build exits 2 as a full run does', async () => {
  const { repo, run } = await setup({ '.gitignore': '.gitignore\n' });
  await recorded(run);
  appendFileSync(join(repo.dir, '.gitignore'), 'data/b.txt\n');
  seesIgnored(run);
});

test('a core.excludesFile absent when the record was written, created afterwards, is seen', async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'vkit-ign-excl-'));
  cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
  const excludes = join(elsewhere, 'not-yet', 'excludes');
  const { repo, run } = await setup();
  repo.git('config', 'core.excludesFile', excludes);
  assert.equal(run(['build']).code, 0);
  await sleep(SETTLE_MS);
  await recorded(run);
  mkdirSync(join(elsewhere, 'not-yet'));
  writeFileSync(excludes, 'data/b.txt\n');
  seesIgnored(run);
});

test('the default global excludes file ($XDG_CONFIG_HOME/git/ignore) created afterwards is seen', async () => {
  const { home, run } = await setup();
  await recorded(run);
  mkdirSync(join(home, 'xdg', 'git'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'git', 'ignore'), 'data/b.txt\n');
  seesIgnored(run);
});

test('without XDG_CONFIG_HOME, ~/.config/git/ignore created afterwards is seen', async () => {
  const { home, run } = await setup({}, false);
  await recorded(run);
  mkdirSync(join(home, '.config', 'git'), { recursive: true });
  writeFileSync(join(home, '.config', 'git', 'ignore'), 'data/b.txt\n');
  seesIgnored(run);
});

test('.git/info/exclude created afterwards, and a .gitignore new in a directory of the tree, are seen', async () => {
  const { repo, run } = await setup();
  rmSync(join(repo.dir, '.git', 'info'), { recursive: true, force: true });
  assert.equal(run(['build']).code, 0);
  await sleep(SETTLE_MS);
  await recorded(run);
  mkdirSync(join(repo.dir, '.git', 'info'));
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'data/b.txt\n');
  seesIgnored(run);
  rmSync(join(repo.dir, '.git', 'info', 'exclude'));
  assert.equal(run(['build']).code, 0);
  await sleep(SETTLE_MS);
  await recorded(run);
  writeFileSync(join(repo.dir, 'data', '.gitignore'), 'b.txt\n');
  seesIgnored(run);
});
