/**
 * A damaged store index, seeded fuzz: a real store from a real build (one passing and one failing
 * check, so READY is never the true answer), damaged on a copy (truncated at several offsets, a
 * header byte altered, a table dropped through SQLite, bytes flipped in a page), then `vkit gate`,
 * `vkit build` and `vkit runs`. Each must end in an honest answer: REJECTED from intact evidence
 * (exit 1, a gate report), BLOCKED (exit 3, a gate report or `ERR_STORE_DAMAGED` with a hint), or
 * for `runs` a listing. Never READY, never an internal error (exit 4), never a raw stack, never a hang.
 *
 * `VKIT_FUZZ_SEED` picks the seed (printed), `VKIT_FUZZ_FLIPS` how many page flips (default 10):
 * `VKIT_FUZZ_SEED=7 VKIT_FUZZ_FLIPS=200` is a longer run. Two cases run at a time.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { storeDir } from '../_support/evidence.js';
import { waitFor } from '../_support/wait.js';
import { nodeCheck, tempRepo, VKIT_BIN, type TempRepo } from '../_support/repo.js';
import { prng as random } from '../_support/random.js';

const SEED = Number(process.env.VKIT_FUZZ_SEED ?? 1_000_003);
const FLIPS = Number(process.env.VKIT_FUZZ_FLIPS ?? 10);
const PAGE = 4096;
const TABLES = ['blobs', 'file_states', 'action_cache', 'jobs', 'runs', 'attempts', 'latest'];

interface Damage {
  name: string;
  apply(index: string): void;
}

function flipAt(index: string, offset: number, xor: number): void {
  const bytes = readFileSync(index);
  bytes[offset] = bytes[offset]! ^ xor;
  writeFileSync(index, bytes);
}

function damages(size: number): Damage[] {
  const rand = random(SEED);
  const int = (n: number) => Math.floor(rand() * n);
  const pages = Math.floor(size / PAGE);
  const out: Damage[] = [];
  for (const at of [0, 100, PAGE, Math.floor(pages / 2) * PAGE, size - 1, int(size)]) {
    out.push({ name: `truncate at ${at}`, apply: (index) => truncateSync(index, at) });
  }
  // The header: magic, page size, format versions, reserved space, payload fractions, change
  // counter, page count, freelist, schema cookie and format, encoding, user_version, version numbers.
  for (const at of [0, 16, 18, 20, 28, 40, 56, 60]) {
    const xor = 1 + int(255);
    out.push({ name: `header byte ${at} ^ ${xor}`, apply: (index) => flipAt(index, at, xor) });
  }
  for (const table of TABLES) {
    out.push({
      name: `DROP TABLE ${table}`,
      apply: (index) => {
        const db = new Database(index);
        db.pragma('foreign_keys = OFF'); // attempts name runs: dropping runs must not be refused
        db.exec(`DROP TABLE ${table}`);
        db.close();
      },
    });
  }
  for (let i = 0; i < FLIPS; i++) {
    const page = 1 + int(pages - 1);
    const count = 1 + int(8);
    const flips = Array.from({ length: count }, () => ({ at: page * PAGE + int(PAGE), xor: 1 + int(255) }));
    out.push({
      name: `page ${page}: ${flips.map((f) => `${f.at}^${f.xor}`).join(' ')}`,
      apply: (index) => flips.forEach((f) => flipAt(index, f.at, f.xor)),
    });
  }
  return out;
}

let repo: TempRepo;
let pristine: string;
const work = mkdtempSync(join(tmpdir(), 'vkit-fuzz-'));

interface Answer {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  json: any;
}

function answer(code: number | null, signal: string | null, stdout: string, stderr: string): Answer {
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, signal, stdout, stderr, json };
}

const argsFor = (args: string[], store: string) => [VKIT_BIN, ...args, '--json', '--root', repo.dir, '--store', store];
const ENV = { ...process.env, NO_COLOR: '1', VKIT_DAEMON: '0' };

function run(args: string[], store: string): Promise<Answer> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      argsFor(args, store),
      { cwd: repo.dir, env: ENV, encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 24 },
      (_error, stdout, stderr) => resolve(answer(child.exitCode, child.signalCode, stdout, stderr)),
    );
  });
}

before(async () => {
  repo = tempRepo({ 'in.txt': 'in\n' });
  repo.age('in.txt');
  repo.manifest({
    checks: [
      { id: 'pass', run: nodeCheck("console.log('ok')"), inputs: ['in.txt'] },
      { id: 'fail', run: nodeCheck("console.error('no'); process.exit(1)"), inputs: ['in.txt'] },
    ],
  });
  const r = spawnSync(process.execPath, argsFor(['build'], storeDir(repo)), {
    cwd: repo.dir,
    env: ENV,
    encoding: 'utf8',
  });
  const built = answer(r.status, r.signal, r.stdout, r.stderr);
  assert.equal(built.code, 1, built.stderr);
  // The workers close the index when their queue stays empty; the last close folds the WAL into it.
  const index = join(storeDir(repo), 'index.sqlite');
  await waitFor(() => !existsSync(`${index}-wal`), 15_000, 'the workers to close the index');
  pristine = join(work, 'pristine');
  cpSync(storeDir(repo), pristine, { recursive: true });
});

after(() => {
  repo.cleanup();
  rmSync(work, { recursive: true, force: true });
});

test(`damaged index fuzz (seed ${SEED}): honest answers only`, async (t) => {
  t.diagnostic(`seed ${SEED} (VKIT_FUZZ_SEED), ${FLIPS} page flips (VKIT_FUZZ_FLIPS)`);
  const size = statSync(join(pristine, 'index.sqlite')).size;
  const cases = damages(size);
  assert.ok(cases.length >= 30);
  const failures: string[] = [];
  const fuzzCase = async (n: number, damage: Damage) => {
    const store = join(work, `case-${n}`);
    cpSync(pristine, store, { recursive: true });
    damage.apply(join(store, 'index.sqlite'));
    for (const verb of ['gate', 'build', 'runs']) {
      const r = await run([verb], store);
      const problem = judge(verb, r);
      if (problem)
        failures.push(
          `seed ${SEED} case ${n} (${damage.name}), vkit ${verb}: ${problem}\n  exit ${r.code}${r.signal ? ` signal ${r.signal}` : ''}\n  stdout ${r.stdout.slice(0, 400)}\n  stderr ${r.stderr.slice(0, 1500)}`,
        );
    }
    rmSync(store, { recursive: true, force: true });
  };
  const queue = [...cases.entries()];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await fuzzCase(...next);
  };
  await Promise.all([lane(), lane()]);
  assert.deepEqual(failures, []);
});

/** What is dishonest about one answer, or undefined. */
function judge(verb: string, r: Answer): string | undefined {
  if (r.code === null) return 'did not end (killed after 60 s)';
  if (/internal error|\n\s+at .+:\d+:\d+\)?$/m.test(r.stderr)) return 'a raw stack or an internal error';
  if (r.code === 4) return 'exit 4';
  const error = r.json?.error;
  if (error) {
    if (r.code !== 3 || error.code !== 'ERR_STORE_DAMAGED') return `error ${error.code} with exit ${r.code}`;
    if (!error.hint) return 'ERR_STORE_DAMAGED without a recovery hint';
    return undefined;
  }
  if (verb === 'runs')
    return r.code === 0 && Array.isArray(r.json?.runs) ? undefined : 'neither a listing nor ERR_STORE_DAMAGED';
  const gate = verb === 'gate' ? r.json : r.json?.gate;
  if (r.code === 0 || gate?.status === 'READY') return 'READY, though the failing check can never pass';
  if (r.code === 1 && gate?.status === 'REJECTED') return undefined;
  if (r.code === 3 && gate?.status === 'BLOCKED') return undefined;
  return `exit ${r.code} with gate ${gate?.status}`;
}
