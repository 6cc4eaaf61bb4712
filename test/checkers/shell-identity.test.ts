/**
 * The checker identity of a shell-string check. The shell (`/bin/sh -c`) is the tool; the command it
 * runs first is identified too, only where the string says for certain what it is. Shell syntax
 * never makes a check BLOCKED: when vkit cannot be sure, the identity is the shell alone and says the
 * command's tools are not separately identified. Strings that worked before keep their identity
 * exactly (it enters every action key), checked against the former first-word rule.
 */
import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { test } from 'node:test';
import { checkerIdentity, resolveExecutable, toolOf } from '../../src/checkers/identity.js';
import { sha256Id } from '../../src/hash/index.js';
import { cli, receiptJson } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

const SH = sha256Id(readFileSync(realpathSync('/bin/sh')));

/** The rule every shell string followed before: the first word after `NAME=value` prefixes, leading `(`/`{` dropped. */
function formerToolOf(run: string): { argv0: string; shell: boolean } {
  const words = run.trim().split(/\s+/);
  const first = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? words[0]!;
  return { argv0: first.replace(/^[({]+/, ''), shell: true };
}

/** Shell strings whose first word the former rule found correctly: their identity must not move. */
const WORKED_BEFORE = [
  'npm test',
  'cargo test --all',
  'make check',
  '  node -e 0  ',
  'FOO=1 make check',
  'CI=true RUST_LOG=debug cargo test',
  'RUSTFLAGS="-Dwarnings" cargo build',
  "NAME='x' make",
  'MAKEFLAGS=-j$(nproc) make',
  'V=$HOME/x make',
  'A=${B} make',
  'make && ./run-tests',
  'node -e 0 | grep x > out.txt',
  '(cd sub && make)',
  '[ -f a.txt ]',
  'test -f a.txt',
  'cd sub && make',
  '. ./env.sh && make',
  './scripts/check.sh --strict',
  '/usr/bin/env node -e 0',
  'exec make',
  'python3 -m pytest -q "tests/a b.py"',
];

for (const run of WORKED_BEFORE) {
  test(`a shell string that worked before keeps its tool: ${JSON.stringify(run)}`, () => {
    assert.deepEqual(toolOf(run), formerToolOf(run));
  });
}

/** Shell strings whose first command vkit cannot name for certain: the shell alone, never a guess. */
const UNSURE = [
  'h=$(cat f) && test -n "$h"',
  'if grep -q x f; then exit 1; fi',
  'for f in *.txt; do test -s "$f"; done',
  'while false; do :; done',
  'case x in x) true;; esac',
  '((x = 1))',
  '[[ -f a.txt ]]',
  '"$CC" -c a.c',
  "'make' check",
  '$CC -c a.c',
  '`which make` check',
  '\\make check',
  '2>err make',
  '>out make',
  '*.sh',
  '~/bin/check',
  '# a comment\nmake',
  'PATH=./node_modules/.bin:$PATH eslint .',
  'VERSION=$(cat VERSION) make',
  'A="$(date +%s)" make',
  'f() { true; }; f',
  'time make',
];

for (const run of UNSURE) {
  test(`shell syntax is never guessed at: ${JSON.stringify(run)} is identified as the shell alone`, () => {
    const tool = toolOf(run);
    assert.equal(tool.shell, true);
    const id = checkerIdentity(tool.argv0, tool.shell, { cwd: process.cwd() });
    assert.match(id.tool, /not separately identified/);
    assert.equal(id.sha256, SH);
    assert.equal(id.shell, SH);
    assert.equal(id.interpreter, undefined);
  });
}

test('what vkit can read past is read past: quoted prefix values, `!`, `(` and `{`, a trailing `;`', () => {
  assert.deepEqual(toolOf('( make )'), { argv0: 'make', shell: true });
  assert.deepEqual(toolOf('{ make; }'), { argv0: 'make', shell: true });
  assert.deepEqual(toolOf('RUSTFLAGS="-D warnings" cargo build'), { argv0: 'cargo', shell: true });
  assert.deepEqual(toolOf("MSG='a b c' node -e 0"), { argv0: 'node', shell: true });
  assert.deepEqual(toolOf('make; ./x'), { argv0: 'make', shell: true });
  // A negated command is still the command that runs: a missing one is BLOCKED, never a negated 127.
  assert.deepEqual(toolOf('! no-such-tool-xyz --flag'), { argv0: 'no-such-tool-xyz', shell: true });
  const node = resolveExecutable('node', process.cwd());
  assert.equal(
    checkerIdentity(toolOf('! node -e 0').argv0, true, { cwd: process.cwd() }).sha256,
    sha256Id(readFileSync(node)),
  );
});

test('CLI: `! grep -q` and `h=$(cat f) && test -n "$h"` run and pass; where vkit cannot read the string the receipt says the tools are not separately identified', () => {
  const repo = tempRepo({ 'a.txt': 'a\n', f: 'hello\n' });
  try {
    repo.manifest({
      checks: [
        { id: 'negated', run: '! grep -q zz f', inputs: ['a.txt', 'f'] },
        { id: 'substituted', run: 'h=$(cat f) && test -n "$h"', inputs: ['a.txt', 'f'] },
        { id: 'keyword', run: 'if grep -q hello f; then exit 0; else exit 1; fi', inputs: ['a.txt', 'f'] },
        { id: 'missing', run: 'true && no-such-tool-xyz', inputs: ['a.txt'] },
        { id: 'negated-missing', run: '! no-such-tool-xyz', inputs: ['a.txt'] },
      ],
    });
    const r = cli(repo, ['build', '--json']);
    const report = r.json();
    const byLabel = new Map<string, { outcome: string; reason?: string; receipt?: string }>(
      report.actions.map((a: { label: string }) => [a.label, a]),
    );
    for (const label of ['check:negated', 'check:substituted', 'check:keyword'])
      assert.equal(byLabel.get(label)!.outcome, 'PASS', `${label}: ${byLabel.get(label)!.reason}`);
    for (const label of ['check:substituted', 'check:keyword']) {
      const checker = receiptJson(repo, byLabel.get(label)!.receipt!).checker;
      assert.match(checker.tool, /not separately identified/, label);
      assert.equal(checker.sha256, SH, label);
      assert.equal(checker.shell, SH, label);
    }
    // Past `!` the command is certain: grep itself is identified (and a missing one would be BLOCKED).
    const negated = receiptJson(repo, byLabel.get('check:negated')!.receipt!).checker;
    assert.equal(negated.tool, 'grep');
    assert.equal(negated.sha256, sha256Id(readFileSync(resolveExecutable('grep', repo.dir))));
    // A command missing inside the shell is still BLOCKED by its exit 127, not guessed at beforehand.
    assert.equal(byLabel.get('check:missing')!.outcome, 'BLOCKED');
    assert.match(byLabel.get('check:missing')!.reason ?? '', /command not found/);
    // A negated missing command would exit 0 inside the shell (a pass); it is named, so it is BLOCKED first.
    assert.equal(byLabel.get('check:negated-missing')!.outcome, 'BLOCKED');
    assert.match(byLabel.get('check:negated-missing')!.reason ?? '', /tool not found: `no-such-tool-xyz`/);
    assert.equal(r.code, 3, r.stderr);

    // Nothing changed: every key holds, the three passes are cached.
    const again = cli(repo, ['build', '--json']).json();
    assert.deepEqual(again.actions.map((a: { label: string; status: string }) => `${a.label}=${a.status}`).sort(), [
      'check:keyword=cached',
      'check:missing=blocked',
      'check:negated-missing=blocked',
      'check:negated=cached',
      'check:substituted=cached',
    ]);
  } finally {
    repo.cleanup();
  }
});
