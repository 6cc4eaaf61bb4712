/**
 * A fresh `vkit build` whose no-op record missed because the work tree changed (an edit since the
 * last no-op) starts its worker ahead (a speculative standby, jobs/standby.ts, D55): the run it
 * queues is claimed by a worker started with `--standby`, seen from the check itself (its
 * ancestors' command lines); so does one with no record for its command line at all (D58). A miss
 * for any other reason (records off), and `VKIT_STANDBY=0`, start the worker only when the run is queued. The command's output ends with the command, not with its worker.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { keptNoRecord, SETTLE_MS } from '../_support/noop-records.js';
import { tempRepo, vkit, vkitAsync, type TempRepo } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const marks = mkdtempSync(join(tmpdir(), 'vkit-standby-mark-'));
const MARK = join(marks, 'ancestry');
let repo: TempRepo;

// The check writes the pids and command lines of its parent, grandparent and great-grandparent.
const ANCESTRY = `
const fs = require('fs');
const lines = [];
let pid = process.ppid;
for (let i = 0; i < 3 && pid > 1; i++) {
  lines.push(pid + ' ' + fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '));
  pid = Number(fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1]);
}
fs.writeFileSync(${JSON.stringify(MARK)}, lines.join('\\n'));
`;

before(() => {
  repo = tempRepo({ 'src/a.txt': 'a\n', 'ancestry.js': ANCESTRY });
  repo.manifest({
    checks: [
      {
        id: 'ancestry',
        run: ['node', 'ancestry.js'],
        inputs: ['ancestry.js', 'src/**'],
        sandbox: { none: 'it reads its worker process from /proc and writes outside the tree' },
      },
    ],
  });
  repo.commitAll();
});

after(() => {
  repo.cleanup();
  rmSync(marks, { recursive: true, force: true });
});

const base = { VKIT_DAEMON: '0', VKIT_NOOP_DEBUG: '1' };
const edit = () => repo.write('src/a.txt', `edited ${process.hrtime.bigint()}\n`);

/** Builds until the command line (with `env`) is answered from its no-op record. */
async function recorded(env: NodeJS.ProcessEnv = {}) {
  for (let i = 0; i < 8; i++) {
    const r = vkit(['build'], { cwd: repo.dir, env: { ...base, ...env } });
    assert.equal(r.code, 0, r.stderr);
    if (!r.stderr.includes('no-op record not used')) return;
    if (keptNoRecord(r.stderr)) await sleep(SETTLE_MS);
  }
  assert.fail('never answered from a record');
}

/** A build that runs the check, its output read to its end (as `vkit build | tee` would); the check's ancestry. */
async function edited(env: NodeJS.ProcessEnv = {}): Promise<string> {
  edit();
  const child = vkitAsync(['build'], { cwd: repo.dir, env: { ...base, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.match(stdout, /1 ran/);
  return readFileSync(MARK, 'utf8');
}

/** A process still running (not gone, and not a zombie no one has reaped yet). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
  } catch {
    return false;
  }
}

test("an edit since the last no-op: the build's run is claimed by the worker it started ahead, and its output ends with it", async () => {
  await recorded();
  const standby = /^(\d+) .*\/worker(-main)?\.js --standby/m.exec(await edited());
  assert.ok(standby, 'the run was claimed by a standby worker');
  // The worker stays 1.5 s after its queue empties: had it held the command's stderr, the streams
  // would have ended only with it.
  assert.ok(running(Number(standby[1])), "the command's output ended before its worker");
});

test('no record for this command line at all (its last build ran something, or it is the first): the worker starts ahead too', async () => {
  const standby = /^(\d+) .*\/worker(-main)?\.js --standby/m.exec(await edited({ VKIT_TEST_OTHER_LINE: '1' }));
  assert.ok(standby, 'the run was claimed by a standby worker');
});

test('a record missed for another reason (records off: no record can answer): the worker starts when the run is queued', async () => {
  const ancestry = await edited({ VKIT_NOOP_RECORDS: '0' });
  assert.match(ancestry, /\/worker(-main)?\.js --store/);
  assert.doesNotMatch(ancestry, /--standby/);
});

test('VKIT_STANDBY=0: the worker starts when the run is queued', async () => {
  await recorded({ VKIT_STANDBY: '0' });
  const ancestry = await edited({ VKIT_STANDBY: '0' });
  assert.match(ancestry, /\/worker(-main)?\.js --store/);
  assert.doesNotMatch(ancestry, /--standby/);
});
