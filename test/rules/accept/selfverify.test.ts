/**
 * self_verify execution: every status produced by a real command (node -e ...), CRLF handling,
 * stream selection, time-outs, and `vkit acceptance run` (consent, one line per claim, exit codes,
 * subject root, bad input). Expected texts are never spelled literally in the commands (the
 * commands build them, 'AB' + 'C'), or they would be SELF-FULFILLING-SUSPECT.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SelfVerify } from '../../../rules/accept/lib/model.js';
import { runSelfVerify, selfFulfilling } from '../../../rules/accept/lib/selfverify.js';
import { tempRepo, vkit } from '../../_support/repo.js';

const sv = (command: string, expect: string, expect_stream: SelfVerify['expect_stream'] = 'stdout'): SelfVerify => ({
  command,
  expect,
  expect_stream,
});
/** A shell-safe `node -e` command (double quotes outside, single quotes inside the script). */
const node = (script: string) => `node -e "${script}"`;

test('EXECUTED-PASS: exit 0 and the expected text in stdout', async () => {
  const dir = tempRepo({}, { git: false });
  try {
    const r = await runSelfVerify(
      sv(node("console.log('first'); console.log('AB' + 'C OK: 3 cases')"), 'ABC OK: 3 cases'),
      dir.dir,
    );
    assert.equal(r.status, 'EXECUTED-PASS');
    assert.equal(r.exit_code, 0);
    assert.equal(r.output_summary, 'ABC OK: 3 cases');
    assert.equal(r.stdout, 'first\nABC OK: 3 cases\n');
    assert.equal(r.timed_out, false);
  } finally {
    dir.cleanup();
  }
});

test('EXECUTED-FAIL: a non-zero exit fails even when the expected text was printed', async () => {
  const r = await runSelfVerify(
    sv(node("console.log('AB' + 'C OK'); console.log('case 2 FAILED: got X'); process.exit(3)"), 'ABC OK'),
    process.cwd(),
  );
  assert.equal(r.status, 'EXECUTED-FAIL');
  assert.equal(r.exit_code, 3);
  assert.equal(r.output_summary, 'case 2 FAILED: got X (exit 3)', 'the first failing line, with the exit code');
});

test('EXPECT-MISMATCH: exit 0 without the text', async () => {
  const r = await runSelfVerify(sv(node("console.log('AB' + 'C NOT QUITE')"), 'ABC OK'), process.cwd());
  assert.equal(r.status, 'EXPECT-MISMATCH');
  assert.equal(r.exit_code, 0);
  assert.match(r.output_summary, /ABC NOT QUITE \(exit 0, expected text absent from stdout\)/);
});

test('SELF-FULFILLING-SUSPECT: the expected text in the command itself; the command is never run', async () => {
  const dir = tempRepo({}, { git: false });
  try {
    const r = await runSelfVerify(sv('touch ran.txt && echo "ALL PASS: 5 cases"', 'ALL PASS: 5 cases'), dir.dir);
    assert.equal(r.status, 'SELF-FULFILLING-SUSPECT');
    assert.equal(r.exit_code, null);
    assert.equal(existsSync(join(dir.dir, 'ran.txt')), false, 'not run');
    // Spelled across quotes, it is still spelled out.
    assert.equal(selfFulfilling(sv(`echo 'ALL' "PASS:" 5\\ cases`, 'ALL PASS: 5 cases')), true);
    assert.equal(selfFulfilling(sv(node("console.log('AL' + 'L PASS')"), 'ALL PASS')), false);
  } finally {
    dir.cleanup();
  }
});

test('NOT-RUN: no self_verify, an empty command, an empty expect (every output contains it)', async () => {
  assert.equal((await runSelfVerify(undefined, process.cwd())).status, 'NOT-RUN');
  assert.equal((await runSelfVerify(sv('   ', 'x'), process.cwd())).status, 'NOT-RUN');
  const empty = await runSelfVerify(sv('true', ' '), process.cwd());
  assert.equal(empty.status, 'NOT-RUN');
  assert.match(empty.output_summary, /empty `expect`/);
});

test('CRLF output is matched after CRLF -> LF (a multi-line expect too)', async () => {
  const cmd = node("process.stdout.write('start\\r\\nAB' + 'C\\r\\nOK: done\\r\\n')");
  assert.equal((await runSelfVerify(sv(cmd, 'ABC\nOK: done'), process.cwd())).status, 'EXECUTED-PASS');
  assert.equal(
    (await runSelfVerify(sv(cmd, 'ABC\r\nOK: done'), process.cwd())).status,
    'EXECUTED-PASS',
    'CRLF in expect is normalised too',
  );
  assert.equal((await runSelfVerify(sv(cmd, 'ABC OK'), process.cwd())).status, 'EXPECT-MISMATCH');
});

test('expect_stream selects stdout, stderr or the interleaved combination', async () => {
  const cmd = node("console.log('part ' + 'one'); console.error('part ' + 'two')");
  assert.equal((await runSelfVerify(sv(cmd, 'part two', 'stdout'), process.cwd())).status, 'EXPECT-MISMATCH');
  assert.equal((await runSelfVerify(sv(cmd, 'part two', 'stderr'), process.cwd())).status, 'EXECUTED-PASS');
  assert.equal((await runSelfVerify(sv(cmd, 'part one', 'stderr'), process.cwd())).status, 'EXPECT-MISMATCH');
  const combined = await runSelfVerify(sv(cmd, 'part one\npart two', 'combined'), process.cwd());
  assert.equal(combined.status, 'EXECUTED-PASS', 'both lines, in the order written');
  assert.equal(
    (await runSelfVerify(sv(cmd, 'part two\npart one', 'combined'), process.cwd())).status,
    'EXPECT-MISMATCH',
  );
});

test('a time-out kills the command and is EXECUTED-FAIL, never a pass', async () => {
  const started = Date.now();
  const r = await runSelfVerify(
    sv(node("console.log('AB' + 'C'); setTimeout(() => {}, 20000)"), 'ABC'),
    process.cwd(),
    { timeoutMs: 400 },
  );
  assert.equal(r.status, 'EXECUTED-FAIL');
  assert.equal(r.timed_out, true);
  assert.equal(r.exit_code, null);
  assert.match(r.output_summary, /timed out/);
  assert.ok(Date.now() - started < 10_000);
});

// ---------------------------------------------------------------------------------------------
// vkit acceptance run

const q = (s: string) => JSON.stringify(s);

function pkg(
  claims: { id: string; command?: string; expect?: string; stream?: string }[],
  subjectRoot?: string,
): string {
  return `# a package for run
[format]
id = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name = "toy"
kind = "tool"
${subjectRoot === undefined ? '' : `root = ${q(subjectRoot)}\n`}commit = "1c65772c4f078ca520f899ce3974565c612da56e"
dirty = false
${claims
  .map(
    (c) => `
[[claim]]
id = ${q(c.id)}
statement = "s"
${
  c.command === undefined
    ? ''
    : `
  [claim.self_verify]
  command = ${q(c.command)}
${c.expect === undefined ? '' : `  expect = ${q(c.expect)}\n`}${c.stream === undefined ? '' : `  expect_stream = ${q(c.stream)}\n`}`
}`,
  )
  .join('')}`;
}

const PASS = { command: node("console.log('AB' + 'C')"), expect: 'ABC' };
const FAIL = { command: node('process.exit(2)'), expect: 'ABC' };

test('run refuses without --yes-run-commands (exit 2), lists the commands, and runs nothing', () => {
  const repo = tempRepo(
    { 'acceptance.toml': pkg([{ id: 'A', command: 'touch ran.txt', expect: 'x' }, { id: 'B' }]) },
    { git: false },
  );
  try {
    const r = vkit(['acceptance', 'run', 'acceptance.toml', '--root', repo.dir]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /without --yes-run-commands/);
    assert.match(r.stderr, /^ {2}A: touch ran\.txt$/m);
    assert.match(r.stderr, /^ {2}B: \(no self_verify command\)$/m);
    assert.equal(existsSync(join(repo.dir, 'ran.txt')), false);
  } finally {
    repo.cleanup();
  }
});

test('run prints one line per claim and exits 0 / 1 / 3 by the worst status', () => {
  const repo = tempRepo(
    {
      'pass.toml': pkg([
        { id: 'P1', ...PASS },
        { id: 'P2', command: node('console.log(String.fromCharCode(88, 89))'), expect: 'XY' },
      ]),
      'fail.toml': pkg([
        { id: 'P1', ...PASS },
        { id: 'F1', ...FAIL },
        { id: 'S1', command: 'echo ABC', expect: 'ABC' },
      ]),
      'open.toml': pkg([{ id: 'P1', ...PASS }, { id: 'S1', command: 'echo ABC', expect: 'ABC' }, { id: 'N1' }]),
    },
    { git: false },
  );
  try {
    const pass = vkit(['acceptance', 'run', 'pass.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(pass.code, 0, pass.stdout + pass.stderr);
    assert.equal(pass.stdout.split('\n')[0], `EXECUTED-PASS P1: ${PASS.command}`);
    assert.match(pass.stdout, /^PASS pass\.toml: 2 claims run in \.: 2 EXECUTED-PASS$/m);

    const fail = vkit(['acceptance', 'run', 'fail.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(fail.code, 1, fail.stdout);
    assert.match(fail.stdout, /^EXECUTED-FAIL F1: node -e "process.exit\(2\)"$/m);
    assert.match(fail.stdout, /^SELF-FULFILLING-SUSPECT S1: echo ABC$/m);

    const open = vkit(['acceptance', 'run', 'open.toml', '--yes-run-commands', '--root', repo.dir, '--json']);
    assert.equal(open.code, 3, open.stdout);
    const j = open.json();
    assert.deepEqual(
      j.results.map((r: any) => [r.claim, r.status]),
      [
        ['P1', 'EXECUTED-PASS'],
        ['S1', 'SELF-FULFILLING-SUSPECT'],
        ['N1', 'NOT-RUN'],
      ],
    );
    assert.equal(j.counts['EXECUTED-PASS'], 1);

    const only = vkit(['acceptance', 'run', 'fail.toml', '--claim', 'P1', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(only.code, 0, only.stdout);
    assert.doesNotMatch(only.stdout, /F1/);
    const unknown = vkit(['acceptance', 'run', 'fail.toml', '--claim', 'ZZ', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no claim `ZZ`.*claims: P1, F1, S1/);
  } finally {
    repo.cleanup();
  }
});

test('run executes in the subject root ([subject] root relative to --root; default the package directory)', () => {
  const where = node("console.log(require('path').basename(process.cwd()).toUpperCase() + ' HERE')");
  const repo = tempRepo(
    {
      'docs/with-root.toml': pkg([{ id: 'W', command: where, expect: 'SUB HERE' }], 'sub'),
      'docs/no-root.toml': pkg([{ id: 'W', command: where, expect: 'DOCS HERE' }]),
      'docs/escape.toml': pkg([{ id: 'W', command: where, expect: 'X' }], '../outside'),
      'sub/.keep': '',
    },
    { git: false },
  );
  try {
    assert.equal(vkit(['acceptance', 'run', 'docs/with-root.toml', '--yes-run-commands', '--root', repo.dir]).code, 0);
    assert.equal(vkit(['acceptance', 'run', 'docs/no-root.toml', '--yes-run-commands', '--root', repo.dir]).code, 0);
    const escaped = vkit(['acceptance', 'run', 'docs/escape.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(escaped.code, 2);
    assert.match(
      escaped.stderr,
      /docs\/escape\.toml:\d+ subject\.root: \[subject\] root `\.\.\/outside` is absolute or leaves --root/,
    );
  } finally {
    repo.cleanup();
  }
});

test('run: malformed self_verify, a 0.3 package, unparsable TOML and bad flags are exit 2 with file and line', () => {
  const repo = tempRepo(
    {
      'stream.toml': pkg([{ id: 'A', ...PASS, stream: 'both' }]),
      'noexpect.toml': pkg([{ id: 'A', command: 'true' }]),
      'old.toml': pkg([{ id: 'A', ...PASS }]).replace('acceptance/0.4', 'acceptance/0.3'),
      'broken.toml': '[format]\nid = \n',
    },
    { git: false },
  );
  try {
    const stream = vkit(['acceptance', 'run', 'stream.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(stream.code, 2);
    assert.match(
      stream.stderr,
      /stream\.toml:\d+ claim\[0\]\.self_verify\.expect_stream: expect_stream must be one of stdout, stderr, combined/,
    );
    const noexpect = vkit(['acceptance', 'run', 'noexpect.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(noexpect.code, 2);
    assert.match(noexpect.stderr, /expect is required with command/);
    const old = vkit(['acceptance', 'run', 'old.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(old.code, 2);
    assert.match(old.stderr, /vkit acceptance migrate old\.toml/);
    const broken = vkit(['acceptance', 'run', 'broken.toml', '--yes-run-commands', '--root', repo.dir]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /broken\.toml:2/);
    assert.equal(vkit(['acceptance', 'run', '--yes-run-commands', '--root', repo.dir]).code, 2);
    assert.equal(
      vkit(['acceptance', 'run', 'stream.toml', '--timeout', '-1', '--yes-run-commands', '--root', repo.dir]).code,
      2,
    );
    assert.equal(vkit(['acceptance', 'run', '--help']).code, 0);
  } finally {
    repo.cleanup();
  }
});
