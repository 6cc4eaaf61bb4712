/**
 * A fresh process's no-op record (D51): a repeated no-op `build` or `gate` is answered from the
 * record its last run left, with exactly the answer a full run gives, and every change a full run
 * would see (an input edited even with its size and mtime put back, touched, added or excluded, a
 * receipt tampered with, a commit to the store by another process, a tool replaced on PATH, a write
 * through a hard link, a damaged record) is never answered from it. Whether a command was answered
 * from its record is observed from outside: git on PATH is a wrapper that logs every call, and a
 * recalled answer runs no git at all.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { gitLogger } from '../_support/git-log.js';
import { retryUntilRecalled, SETTLE_MS } from '../_support/noop-records.js';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const bin = mkdtempSync(join(tmpdir(), 'vkit-rec-bin-'));
const logs = mkdtempSync(join(tmpdir(), 'vkit-rec-log-'));
const LOG = join(logs, 'git-calls');
const PATH = `${bin}:${process.env.PATH}`;
// VKIT_NOOP_DEBUG=1: a run says when it kept no record, so fromRecord waits only when that may help.
const ENV = { PATH, VKIT_DAEMON: '0', VKIT_NOOP_DEBUG: '1' };
let repo: TempRepo;

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => vkit(args, { cwd: repo.dir, env: { ...ENV, ...env } });
let observe: ReturnType<typeof gitLogger>;
const observed = (args: string[], env: NodeJS.ProcessEnv = {}) => observe(() => run(args, env));
const withoutMs = (report: { stats: Record<string, unknown> }) => ({ ...report, stats: { ...report.stats, ms: 0 } });

/**
 * Runs `args` until its answer comes from a record, and returns that one. After a change, a record is
 * written only once the changed file and the store's index (written by the run re-hashing it) are
 * both out of the racy window: a few runs apart.
 */
async function fromRecord(args: string[]) {
  const { r, recalled } = await retryUntilRecalled(() => observed(args), 8);
  if (!recalled) assert.fail(`never answered from a record: ${args.join(' ')}\n${r.stderr}`);
  return r;
}

function tool(exitCode: number) {
  writeFileSync(join(bin, 'vkit-rec-tool'), `#!/bin/sh\nexit ${exitCode}\n`);
  chmodSync(join(bin, 'vkit-rec-tool'), 0o755);
}

before(async () => {
  observe = gitLogger(bin, LOG);
  tool(0);
  repo = tempRepo({
    'src/a.txt': 'a\n',
    'src/deep/b.txt': 'b\n',
    'check.js': "process.exit(require('fs').readFileSync('src/a.txt', 'utf8') === 'a\\n' ? 0 : 1)\n",
    '.gitignore': 'ignored/\n',
    'ignored/x.txt': 'x\n',
  });
  repo.manifest({
    checks: [
      { id: 'a', run: ['node', 'check.js'], inputs: ['check.js', 'src/**'] },
      {
        id: 'tool',
        run: ['vkit-rec-tool'],
        inputs: ['src/a.txt'],
        sandbox: { none: 'the tool lives outside the work tree' },
      },
    ],
  });
  repo.commitAll();
  assert.equal(run(['build']).code, 0);
  await sleep(SETTLE_MS);
});

after(() => {
  repo.cleanup();
  rmSync(bin, { recursive: true, force: true });
  rmSync(logs, { recursive: true, force: true });
});

test("a repeated no-op is answered from its record with a full run's answer: text, JSON and the gate", async () => {
  const json = await fromRecord(['build', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const full = run(['build', '--json'], { VKIT_NOOP_RECORDS: '0' });
  assert.deepEqual(withoutMs(json.json()), withoutMs(full.json()));
  assert.equal(typeof json.json().stats.ms, 'number');
  const text = await fromRecord(['build']);
  const fullText = run(['build'], { VKIT_NOOP_RECORDS: '0' });
  const timeless = (s: string) => s.replace(/ in \d+ms\n$/, ' in Xms\n');
  assert.match(text.stdout, / in \d+ms\n$/);
  assert.equal(timeless(text.stdout), timeless(fullText.stdout));
  assert.match(text.stdout, /cached\s+check:a/);
  const gate = await fromRecord(['gate', '--json']);
  assert.deepEqual(gate.json(), run(['gate', '--json'], { VKIT_NOOP_RECORDS: '0' }).json());
});

test('an input edited with its size and mtime put back is never answered from a record: the gate rejects', async () => {
  await fromRecord(['build', '--json']);
  const file = join(repo.dir, 'src/a.txt');
  const st = lstatSync(file);
  writeFileSync(file, 'X\n'); // same size
  utimesSync(file, st.atime, st.mtime); // same mtime: only the ctime tells
  const { r, recalled } = observed(['build', '--json']);
  assert.equal(recalled, false);
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.json().gate.status, 'REJECTED');
  repo.write('src/a.txt', 'a\n');
  assert.equal(run(['build']).code, 0);
});

test('a touched input, a new file in a directory and an edit deep in the tree are each seen', async () => {
  for (const [path, change] of [
    ['src/a.txt', () => utimesSync(join(repo.dir, 'src/a.txt'), new Date(), new Date(Date.now() - 20_000))],
    ['src/deep/new.txt', () => repo.write('src/deep/new.txt', 'new\n')],
    ['src/deep/b.txt', () => appendFileSync(join(repo.dir, 'src/deep/b.txt'), 'more\n')],
  ] as const) {
    await fromRecord(['build', '--json']);
    change();
    const { r, recalled } = observed(['build', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(recalled, false, `answered from a record after a change to ${path}`);
  }
  const after = (await fromRecord(['build', '--json'])).json();
  assert.ok(after.actions.every((a: { status: string }) => a.status === 'cached'));
});

test("a file git's exclude file newly ignores is seen (the listing changed); a change in an ignored directory is not", async () => {
  repo.write('src/deep/untracked.txt', 'u\n');
  assert.equal(run(['build']).code, 0);
  await fromRecord(['gate', '--json']);
  writeFileSync(join(repo.dir, 'ignored', 'x.txt'), 'changed\n');
  mkdirSync(join(repo.dir, 'ignored', 'more'), { recursive: true });
  assert.equal(observed(['gate', '--json']).recalled, true);
  await fromRecord(['build', '--json']);
  appendFileSync(join(repo.dir, '.git', 'info', 'exclude'), '\nsrc/deep/untracked.txt\n');
  try {
    // Now git ignores a file the check's glob selects: a config error, as a full run says.
    const { r, recalled } = observed(['build', '--json']);
    assert.equal(recalled, false);
    const full = run(['build', '--json'], { VKIT_NOOP_RECORDS: '0' });
    assert.equal(full.code, 2, full.stderr);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, full.stdout);
    assert.match(r.stdout, /untracked\.txt/);
  } finally {
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), '');
    rmSync(join(repo.dir, 'src/deep/untracked.txt'));
  }
});

test('a receipt file tampered with is never answered from a record: the gate sees it as a full run does', async () => {
  const gate = await fromRecord(['gate', '--json']);
  const receipt = (gate.json().items as Array<{ id: string; receipt: string }>).find(
    (i) => i.id === 'check:a',
  )!.receipt;
  const hex = receipt.replace('sha256:', '');
  const file = join(repo.dir, '.git', 'vkit', 'cas', hex.slice(0, 2), hex.slice(2));
  chmodSync(file, 0o644);
  appendFileSync(file, ' ');
  const { r, recalled } = observed(['gate', '--json']);
  assert.equal(recalled, false, 'a tampered receipt was answered from a record');
  assert.notEqual(r.json().status, 'READY');
  assert.deepEqual(r.json(), run(['gate', '--json'], { VKIT_NOOP_RECORDS: '0' }).json());
  assert.equal(run(['build']).code, 0);
});

test('a commit to the store by another process is never answered from a record', async () => {
  await fromRecord(['build', '--json']);
  const forced = run(['build', '--force', '--only', 'a', '--json']);
  assert.equal(forced.code, 0, forced.stderr);
  const { r, recalled } = observed(['build', '--json']);
  assert.equal(recalled, false);
  // The answer names the run the other process recorded.
  const a = (r.json().actions as Array<{ label: string; run: string }>).find((x) => x.label === 'check:a')!;
  assert.equal(a.run, (forced.json().actions as Array<{ label: string; run: string }>)[0]!.run);
});

test("a commit to the store since the record is found from the record's head, its body never read", async () => {
  const debug = { VKIT_NOOP_DEBUG: '1' };
  await fromRecord(['gate']);
  assert.equal(run(['build', '--force', '--only', 'a']).code, 0);
  // Every body made unreadable: only the head can say why the record does not answer.
  const dir = join(repo.dir, '.git', 'vkit', 'noop-records');
  try {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const text = readFileSync(join(dir, name), 'utf8');
      writeFileSync(join(dir, name), `${text.slice(0, text.indexOf('\n') + 1)}not a body`);
    }
    const r = run(['gate'], debug);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /no-op record not used: \S+\/index\.sqlite(-wal)? changed/);
  } finally {
    // The unreadable records are no later test's.
    for (const name of readdirSync(dir)) rmSync(join(dir, name));
  }
});

test("a commit to the store's index that touches no file of the evidence is never answered from a record", async () => {
  const recorded = await fromRecord(['gate', '--json']);
  assert.equal(recorded.json().status, 'READY');
  // Another process forgets every result (as a damaged or foreign index could): no CAS file changes.
  const db = new Database(join(repo.dir, '.git', 'vkit', 'index.sqlite'));
  db.exec('DELETE FROM action_cache; DELETE FROM latest;');
  db.close();
  const { r, recalled } = observed(['gate', '--json']);
  assert.equal(recalled, false);
  assert.notEqual(r.json().status, 'READY');
  assert.deepEqual(r.json(), run(['gate', '--json'], { VKIT_NOOP_RECORDS: '0' }).json());
  assert.equal(run(['build']).code, 0);
});

test('a tool replaced on PATH is never answered from a record: the check runs with the new tool', async () => {
  await fromRecord(['build', '--json']);
  tool(1);
  const { r, recalled } = observed(['build', '--json']);
  assert.equal(recalled, false);
  assert.equal(r.code, 1, r.stdout);
  const t = (r.json().actions as Array<{ label: string; status: string }>).find((x) => x.label === 'check:tool')!;
  assert.equal(t.status, 'failed');
  tool(0);
  assert.equal(run(['build']).code, 0);
});

test('another environment or date is another question; a write through a hard link made outside is seen', async () => {
  await fromRecord(['gate', '--json']);
  assert.equal(observed(['gate', '--json'], { SOME_VAR: 'x' }).recalled, false);
  assert.equal(observed(['gate', '--json', '--now', '2099-01-01']).recalled, false);
  await fromRecord(['build', '--json']);
  const elsewhere = mkdtempSync(join(tmpdir(), 'vkit-rec-link-'));
  try {
    const outside = join(elsewhere, 'linked-a.txt');
    linkSync(join(repo.dir, 'src/a.txt'), outside);
    writeFileSync(outside, 'changed through the other link\n');
    const { r, recalled } = observed(['build', '--json']);
    assert.equal(recalled, false);
    assert.equal(r.json().gate.status, 'REJECTED');
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
    repo.write('src/a.txt', 'a\n');
  }
  assert.equal(run(['build']).code, 0);
});

test('a store that is a file is a clear error, never a crash', () => {
  const r = run(['build', '--store', join(repo.dir, 'check.js')]);
  assert.equal(r.code, 2, r.stderr);
  assert.doesNotMatch(r.stderr, /internal error/);
});

test('a damaged record, a malformed one, or one made for another command line, is never used', async () => {
  await fromRecord(['gate']);
  const dir = join(repo.dir, '.git', 'vkit', 'noop-records');
  const files = () => readdirSync(dir).map((f) => join(dir, f));
  // The body forged to say something else, its digest line kept: refused.
  for (const file of files()) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"exit":0', '"exit":7'));
  }
  const forged = observed(['gate']);
  assert.equal(forged.recalled, false);
  assert.equal(forged.r.code, 0);
  // Digested again but malformed (a chunk that cannot be written): refused before anything is printed.
  await fromRecord(['gate']);
  for (const file of files()) {
    const body = JSON.parse(readFileSync(file, 'utf8').split('\n').slice(1).join('\n'));
    body.output = [
      [1, 'FORGED\n'],
      [3, 5],
    ];
    const text = JSON.stringify(body);
    // The head's store states kept: only the body is forged (and digested again).
    const head = readFileSync(file, 'utf8').split('\n')[0]!;
    writeFileSync(file, `${createHash('sha256').update(text).digest('hex')}${head.slice(64)}\n${text}`);
  }
  const malformed = observed(['gate']);
  assert.equal(malformed.recalled, false);
  assert.equal(malformed.r.code, 0, malformed.r.stderr);
  assert.doesNotMatch(malformed.r.stdout, /FORGED/);
  // Every record copied over the one for `gate --json`: none was made for it.
  await fromRecord(['gate', '--json']);
  const plainGate = '\\"argv\\":[\\"gate\\"]'; // as the identity is quoted in the record
  const text = readFileSync(files().find((f) => readFileSync(f, 'utf8').includes(plainGate))!, 'utf8');
  for (const file of files()) if (!readFileSync(file, 'utf8').includes(plainGate)) writeFileSync(file, text);
  const other = observed(['gate', '--json']);
  assert.equal(other.recalled, false);
  assert.equal(other.r.json().status, 'READY');
});
