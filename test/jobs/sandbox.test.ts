/**
 * The check sandbox and the worker's environment (issue 14, "A check can forge evidence or read
 * secrets"): a sandboxed check cannot write the store or `.git`, sees no process outside its run,
 * and takes every descendant (one that left its process group with setsid too) down with it; a
 * worker holds only what its jobs declare; a receipt put into the store by anything but its own
 * run's worker is never a hit; a sandbox that could not start a check is never read as its exit code.
 * Every test that confines a check runs once per sandbox backend (bubblewrap, the built-in one):
 * a backend this machine lacks is skipped loudly (`test/_support/sandboxes.ts`).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { runProcess, STATUS_FD } from '../../src/checkers/process.js';
import { confine } from '../../src/checkers/sandbox-backend.js';
import { toolPaths } from '../../src/checkers/sandbox.js';
import { NO_USER_NAMESPACES, sandboxBackends } from '../_support/sandboxes.js';
import { blobPath, cli, openStoreOf, receiptJson, storeDir } from '../_support/evidence.js';
import { sleep, waitFor } from '../_support/wait.js';
import { tempRepo, VKIT_BIN, vkit, vkitAsync } from '../_support/repo.js';

const backends = await sandboxBackends('test/jobs/sandbox.test.ts');

for (const b of backends) {
  test(`[${b.name}] ` +
    'a sandboxed check cannot write the store or .git, sees only its own processes, and the work tree stays writable', {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      const store = storeDir(repo);
      const probe = `/tmp/vkit-sandbox-probe-${process.pid}`;
      // Each attempt is recorded in the work tree (writable) as `ok` or `refused`.
      const attempt = (name: string, cmd: string) =>
        `(${cmd}) 2>/dev/null && echo "${name} ok" >> report.txt || echo "${name} refused" >> report.txt`;
      const script = [
        attempt('store', `touch ${store}/cas/forged`),
        attempt('index', `echo x >> ${store}/index.sqlite`),
        attempt('git', 'touch .git/forged'),
        attempt('worktree', 'touch made.txt'),
        attempt('tmp', `touch ${probe}`),
        'ps -e -o pid= | wc -l > procs.txt',
      ].join('; ');
      repo.manifest({ checks: [{ id: 'probe', run: script, inputs: ['a.txt'] }] });
      const r = cli(repo, ['build'], b.env);
      assert.equal(r.code, 0, r.stderr);
      const report = readFileSync(join(repo.dir, 'report.txt'), 'utf8');
      assert.match(report, /store refused/);
      assert.match(report, /index refused/);
      assert.match(report, /git refused/);
      assert.match(report, /worktree ok/);
      assert.match(report, /tmp ok/, 'a private /tmp is writable');
      assert.ok(!existsSync(probe), 'and private: nothing reached the real /tmp');
      assert.ok(!existsSync(join(repo.dir, '.git', 'forged')));
      // Its own PID namespace: bwrap's init, the shell, ps (and wc) — not the machine's processes.
      assert.ok(
        Number(readFileSync(join(repo.dir, 'procs.txt'), 'utf8')) <= 5,
        "only the run's own processes are visible",
      );
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] each check gets a new /tmp: nothing one check leaves there is seen by the next, in either mode`, {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      // `second` runs after `first` (and in the same worker): what `first` left in /tmp must be gone.
      const leave = 'echo left > /tmp/vkit-left && test -s /tmp/vkit-left';
      const look = (name: string) => `test ! -e /tmp/vkit-left && touch /tmp/vkit-mine && echo fresh > ${name}`;
      repo.manifest({
        checks: [
          { id: 'first', run: leave, inputs: ['a.txt'] },
          { id: 'second', run: look('second.txt'), inputs: ['a.txt'], after: ['first'] },
          { id: 'third', run: leave, inputs: ['a.txt'], after: ['second'], sandbox: 'hermetic' },
          {
            id: 'fourth',
            run: look('out/fourth.txt'),
            inputs: ['a.txt'],
            outputs: ['out/**'],
            after: ['third'],
            sandbox: 'hermetic',
          },
        ],
      });
      const r = cli(repo, ['build', '--jobs', '1'], b.env);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(readFileSync(join(repo.dir, 'second.txt'), 'utf8'), 'fresh\n');
      assert.equal(readFileSync(join(repo.dir, 'out', 'fourth.txt'), 'utf8'), 'fresh\n');
      assert.ok(!existsSync('/tmp/vkit-left') && !existsSync('/tmp/vkit-mine'), 'nor did anything reach the real /tmp');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] ` +
    'opting out takes a stated reason, which the receipt keeps; the sandbox is part of the identity', {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      repo.manifest({
        checks: [{ id: 'c', run: 'touch .git/opted-out', inputs: ['a.txt'], sandbox: { none: 'writes a git hook' } }],
      });
      const first = cli(repo, ['build', '--json'], b.env);
      assert.equal(first.code, 0, first.stderr);
      assert.ok(existsSync(join(repo.dir, '.git', 'opted-out')), "an unsandboxed check keeps the user's permissions");
      const receipt = receiptJson(repo, first.json().actions[0].receipt);
      assert.deepEqual(receipt.definition.sandbox, { none: 'writes a git hook' });
      // The same command sandboxed is another action: the unsandboxed evidence does not answer for it.
      repo.manifest({ checks: [{ id: 'c', run: 'touch .git/opted-out', inputs: ['a.txt'] }] });
      const second = cli(repo, ['build', '--json'], b.env);
      assert.equal(second.code, 1, 'sandboxed, the same command cannot write .git');
      assert.equal(second.json().actions[0].status, 'failed', 'run afresh, not the cached PASS');
      // A blank reason is a config error naming the field.
      repo.manifest({ checks: [{ id: 'c', run: 'true', inputs: ['a.txt'], sandbox: { none: ' ' } }] });
      const blank = cli(repo, ['build'], b.env);
      assert.equal(blank.code, 2);
      assert.match(blank.stderr, /checks\[0\]\.sandbox/);
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] a descendant that calls setsid dies with its check, also when the check times out`, {
    skip: b.skip,
  }, async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      // The escapee writes a file two seconds after its check ended (and keeps writing if it can).
      const escapee = (file: string) =>
        `setsid sh -c 'sleep 2; while :; do echo late >> ${file}; sleep 0.2; done' >/dev/null 2>&1 < /dev/null &`;
      repo.manifest({
        checks: [
          { id: 'quick', run: `${escapee('late-quick.txt')} exit 0`, inputs: ['a.txt'] },
          { id: 'slow', run: `${escapee('late-slow.txt')} sleep 30`, inputs: ['a.txt'], timeout_s: 1 },
        ],
      });
      const r = cli(repo, ['build'], b.env);
      assert.equal(r.code, 3, r.stderr); // the slow one timed out: BLOCKED
      await sleep(3500);
      assert.ok(!existsSync(join(repo.dir, 'late-quick.txt')), 'the setsid descendant of a finished check is gone');
      assert.ok(!existsSync(join(repo.dir, 'late-slow.txt')), 'the setsid descendant of a timed-out check is gone');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] ` +
    'workers hold only the variables their jobs declare: /proc/$PPID/environ shows no undeclared secret', {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      // Unsandboxed, so the check can read its parent (the worker) at all; sandboxed it sees none.
      const read = 'tr "\\0" "\\n" < /proc/$PPID/environ > parent-env.txt; env > own-env.txt';
      repo.manifest({
        checks: [
          {
            id: 'peek',
            run: read,
            inputs: ['a.txt'],
            env: ['T_DECLARED'],
            sandbox: { none: 'reads its parent on purpose' },
          },
        ],
      });
      const env = { T_UNDECLARED_SECRET: 'hunter2-do-not-leak', T_DECLARED: 'declared-value' };
      // A worker started for the queue (no standby): started with the queue's variables.
      const r = cli(repo, ['build'], { ...env, ...b.env, VKIT_STANDBY: '0' });
      assert.equal(r.code, 0, r.stderr);
      const parent = readFileSync(join(repo.dir, 'parent-env.txt'), 'utf8');
      assert.ok(!parent.includes('hunter2-do-not-leak'), 'the undeclared secret never reached the worker');
      assert.match(parent, /^T_DECLARED=declared-value$/m, 'a declared variable does (the check gets it anyway)');
      assert.match(parent, /^PATH=/m);
      // A standby worker (started ahead, D55, D58: its process started with what every worker gets,
      // its variables replaced when assigned): neither in its process's environment; the check has the declared one.
      repo.write('a.txt', 'edited\n');
      const standby = cli(repo, ['build'], { ...env, ...b.env });
      assert.equal(standby.code, 0, standby.stderr);
      const started = readFileSync(join(repo.dir, 'parent-env.txt'), 'utf8');
      assert.match(started, /^PATH=/m);
      assert.doesNotMatch(started, /^T_DECLARED=/m, "the standby's process started before its queue's variables");
      assert.ok(!started.includes('hunter2-do-not-leak'), 'the undeclared secret never reached the standby');
      const own = readFileSync(join(repo.dir, 'own-env.txt'), 'utf8');
      assert.match(own, /^T_DECLARED=declared-value$/m, 'the check has its declared variable');
      assert.ok(!own.includes('hunter2-do-not-leak'), 'and not the undeclared secret');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] ` +
    "a receipt put into the store by anything but its run's worker is never a hit: a forged PASS is BLOCKED, and the next build reruns", {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      repo.manifest({ checks: [{ id: 'victim', run: 'exit 1', inputs: ['a.txt'] }] });
      const built = cli(repo, ['build', '--json'], b.env);
      assert.equal(built.code, 1);
      const failId: string = built.json().actions[0].receipt;
      // What an unsandboxed check (or anyone with write access) could do: a PASS copy of the FAIL
      // receipt, written under its true sha256 name, and the action cache pointed at it.
      const forged = {
        ...receiptJson(repo, failId),
        outcome: 'PASS',
        reason: null,
        claim: 'established',
        exit_code: 0,
      };
      const bytes = Buffer.from(JSON.stringify(forged));
      const forgedId = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      mkdirSync(dirname(blobPath(repo, forgedId)), { recursive: true });
      writeFileSync(blobPath(repo, forgedId), bytes);
      const db = new Database(join(storeDir(repo), 'index.sqlite'));
      db.prepare('UPDATE action_cache SET receipt = ? WHERE receipt = ?').run(forgedId, failId);
      db.prepare('UPDATE latest SET receipt = ? WHERE receipt = ?').run(forgedId, failId);
      db.close();

      const gate = cli(repo, ['gate', '--json'], b.env);
      assert.equal(gate.code, 3, `a forged receipt must not read as READY: ${gate.stdout}`);
      assert.match(gate.stdout, /not its run's own/);
      const deep = cli(repo, ['gate', '--deep'], b.env);
      assert.equal(deep.code, 3);
      const again = cli(repo, ['build', '--json'], b.env);
      assert.equal(again.code, 1, 'the next build reruns the check and sees the truth');
      assert.equal(again.json().actions[0].status, 'failed', 'run afresh');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] a sandbox that cannot start the command is a spawn error, never an exit code a check could expect`, {
    skip: b.skip,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-sandbox-unit-'));
    try {
      const out = join(dir, 'out');
      const err = join(dir, 'err');
      const req = {
        argv: ['/bin/sh', '-c', 'exit 1'],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        timeoutMs: 10_000,
        signal: new AbortController().signal,
      };
      const layout = { mode: 'isolated' as const, root: dir, cwd: dir, protect: [], keep: [] };
      const made = () => {
        const wrap = confine(layout, STATUS_FD, { ...process.env, ...b.env });
        assert.ok(typeof wrap !== 'string', String(wrap));
        return wrap;
      };
      // A bind whose source is missing: both backends exit 1 then, the very code this command exits with.
      const broken = made();
      if (b.name === 'bwrap') broken.argv.splice(broken.argv.indexOf('--'), 0, '--bind', join(dir, 'missing'), '/mnt');
      else appendFileSync(join(stageOf(broken.argv), 'fstab'), `${join(dir, 'missing')} /mnt none bind 0 0\n`);
      const failed = await runProcess(req, out, err, broken).finally(() => broken.cleanup());
      assert.equal(failed.exitCode, null);
      assert.match(failed.spawnError ?? '', /sandbox could not start it \((bwrap|vkit-sandbox|mount): /);
      const fine = made();
      const ran = await runProcess(req, out, err, fine).finally(() => fine.cleanup());
      assert.equal(ran.exitCode, 1);
      assert.equal(ran.spawnError, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`[${b.name}] exit status and signals: a check's own exit code is its answer, a death by signal is BLOCKED`, {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      repo.manifest({
        checks: [
          { id: 'seven', run: 'exit 7', inputs: ['a.txt'] },
          { id: 'term', run: 'kill -TERM $$; sleep 5', inputs: ['a.txt'] },
          { id: 'expects', run: 'exit 3', inputs: ['a.txt'], expect: { exit_code: 3 } },
        ],
      });
      const r = cli(repo, ['build', '--json'], b.env);
      const by = Object.fromEntries(
        r
          .json()
          .actions.map((a: { label: string; outcome: string; reason: string | null }) => [
            a.label,
            `${a.outcome} ${a.reason ?? ''}`.trim(),
          ]),
      );
      assert.deepEqual(by, {
        'check:seven': 'FAIL exit code 7, expected 0',
        'check:term': 'BLOCKED killed by SIGTERM',
        'check:expects': 'PASS',
      });
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] a sandboxed check dies with its worker: SIGKILL of the worker leaves nothing running`, {
    skip: b.skip,
  }, async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      // Beats into the work tree five times a second until it is killed.
      repo.manifest({
        checks: [{ id: 'beats', run: 'while :; do date +%s%N > beat.txt; sleep 0.2; done', inputs: ['a.txt'] }],
      });
      const child = vkitAsync(['build', '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir, env: b.env });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const beat = join(repo.dir, 'beat.txt');
      await waitFor(() => existsSync(beat), 20_000, 'the check to start beating');
      const store = openStoreOf(repo);
      let worker: number;
      try {
        const [run] = store.lifecycle.listRuns({ limit: 1 });
        worker = store.lifecycle.attemptsOf(run!.id).at(-1)!.pid;
      } finally {
        store.close();
      }
      process.kill(worker, 'SIGKILL');
      child.kill('SIGKILL');
      await exited;
      await sleep(1500);
      const last = readFileSync(beat, 'utf8');
      await sleep(1500);
      assert.equal(readFileSync(beat, 'utf8'), last, 'no beat after the worker died: the sandboxed check died with it');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] where user namespaces are disabled a sandboxed check is BLOCKED naming each remedy, never run unconfined`, {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      repo.manifest({
        checks: [
          { id: 'c', run: 'touch ran.txt', inputs: ['a.txt'] },
          { id: 'out', run: 'true', inputs: ['a.txt'], sandbox: { none: 'needs no confinement' } },
        ],
      });
      const [cmd, ...prefix] = NO_USER_NAMESPACES;
      const r = spawnSync(
        cmd!,
        [...prefix, process.execPath, VKIT_BIN, 'build', '--root', repo.dir, '--store', storeDir(repo)],
        { cwd: repo.dir, encoding: 'utf8', env: { ...process.env, ...b.env, NO_COLOR: '1' } },
      );
      const said = r.stdout + r.stderr;
      assert.equal(r.status, 3, said);
      assert.ok(!existsSync(join(repo.dir, 'ran.txt')), 'the check never ran unconfined');
      assert.match(said, /user namespaces/);
      assert.match(said, /bubblewrap/);
      assert.match(said, /sandbox: \{ none/);
      assert.match(said, /check:out/, 'a check opted out still runs');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] the receipt and \`run show\` name the sandbox that confined the check, which is not part of its key`, {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    try {
      repo.manifest({ checks: [{ id: 'c', run: ['/bin/true'], inputs: ['a.txt'] }] });
      const r = cli(repo, ['build', '--json'], b.env);
      assert.equal(r.code, 0, r.stderr);
      const action = r.json().actions[0];
      const receipt = receiptJson(repo, action.receipt);
      assert.equal(receipt.confined_by.length, 1);
      assert.match(receipt.confined_by[0], b.name === 'bwrap' ? /^bwrap \d+\.\d+/ : /^built-in$/);
      const shown = cli(repo, ['run', 'show', '--run', action.run, '--json'], b.env);
      assert.deepEqual(shown.json().summary.sandbox, receipt.confined_by);
      // The other backend gives the same guarantees: its build is a hit on this evidence.
      const other = b.name === 'bwrap' ? 'builtin' : 'bwrap';
      const again = cli(repo, ['build', '--json'], { VKIT_SANDBOX: other });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.json().actions[0].status, 'cached');
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] ` +
    "hermetic: only the captured inputs, the outputs' directories and the tool are there; an undeclared read fails loudly", {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'declared\n', 'b.txt': 'undeclared\n' });
    try {
      repo.manifest({
        sandbox: 'hermetic',
        checks: [
          {
            id: 'reads-declared',
            run: 'mkdir -p out && cat a.txt > out/copy.txt && test ! -e .git && test ! -e b.txt',
            inputs: ['a.txt'],
            outputs: ['out/**'],
          },
          { id: 'reads-undeclared', run: 'cat b.txt', inputs: ['a.txt'] },
          { id: 'writes-input', run: 'echo changed > a.txt', inputs: ['a.txt'] },
        ],
      });
      const r = cli(repo, ['build', '--json'], b.env);
      const by = Object.fromEntries(
        r.json().actions.map((a: { label: string; outcome: string }) => [a.label, a.outcome]),
      );
      assert.deepEqual(
        by,
        { 'check:reads-declared': 'PASS', 'check:reads-undeclared': 'FAIL', 'check:writes-input': 'FAIL' },
        r.stdout,
      );
      assert.equal(
        readFileSync(join(repo.dir, 'out', 'copy.txt'), 'utf8'),
        'declared\n',
        'the output reached the work tree',
      );
      assert.equal(readFileSync(join(repo.dir, 'a.txt'), 'utf8'), 'declared\n', 'inputs are read-only');
      // An output at the root would need the whole root writable: a config error naming it.
      repo.manifest({ checks: [{ id: 'c', run: 'true', inputs: ['a.txt'], outputs: ['*.log'], sandbox: 'hermetic' }] });
      const bad = cli(repo, ['build'], b.env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /checks\[0\]\.outputs\[0\]/);
    } finally {
      repo.cleanup();
    }
  });

  test(`[${b.name}] ` +
    'the protected gate runs every check sandboxed, whatever the config says: its private store is out of their reach', {
    skip: b.skip,
  }, () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    // Outside /tmp: the sandbox's private /tmp would hide a store there (which is no test of read-only).
    const store = mkdtempSync(join('/var/tmp', 'vkit-private-'));
    try {
      // The requirements opt a check out of the sandbox; the candidate's check tries to write the store.
      repo.manifest({
        checks: [
          {
            id: 'reach',
            run: 'mkdir -p "$T_STORE/x" && touch "$T_STORE/x/forged"',
            inputs: ['a.txt'],
            env: ['T_STORE'],
            sandbox: { none: 'a reason the protected gate does not honour' },
          },
        ],
      });
      repo.commitAll('target');
      const local = cli(repo, ['build'], { ...b.env, T_STORE: join(store, 'local') });
      assert.equal(local.code, 0, 'locally the opt-out is honoured');
      assert.ok(existsSync(join(store, 'local', 'x', 'forged')));
      const r = vkit(
        [
          'gate',
          '--protected',
          '--target',
          'main',
          '--candidate',
          'HEAD',
          '--store',
          join(store, 'protected'),
          '--root',
          repo.dir,
          '--json',
        ],
        { cwd: repo.dir, env: { ...b.env, T_STORE: join(store, 'protected') } },
      );
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.equal(r.json().gate.status, 'REJECTED');
      assert.ok(!existsSync(join(store, 'protected', 'x')), 'nothing written into the private store by the check');
    } finally {
      repo.cleanup();
      rmSync(store, { recursive: true, force: true });
    }
  });
}

test("a hermetic check's tool is read only as far as its `#!` line, whatever its size", () => {
  // Reading the whole file cost half a second per sandboxed run of a 100 MB node binary; a sparse
  // 3 GiB tool (which node cannot even read whole) must still show its interpreter.
  const dir = mkdtempSync(join(tmpdir(), 'vkit-tool-'));
  try {
    const big = join(dir, 'big-tool');
    writeFileSync(big, '#!/bin/sh\n');
    truncateSync(big, 3 * 1024 ** 3);
    assert.deepEqual(toolPaths(big), [big, big, '/bin/sh']);
    const binary = join(dir, 'binary');
    writeFileSync(binary, Buffer.alloc(1000, 0x7f));
    assert.deepEqual(toolPaths(binary), [binary, binary]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The built-in sandbox's stage directory, named in its command line right after `vkit-sandbox`. */
function stageOf(argv: readonly string[]): string {
  return argv[argv.indexOf('vkit-sandbox') + 1]!;
}
