/**
 * The built CLI: `vkit feedback add` / `vkit feedback list` exit codes, human and JSON output,
 * `--help`, invalid input (exit 2 with field paths), and `vkit gate` unchanged by feedback.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';

const ADD = [
  'feedback',
  'add',
  '--task',
  'prove the queue is linearizable',
  '--missing',
  'a TLA+ rule',
  '--benefit',
  'catches lost updates',
];

test('feedback add records once, a duplicate says so; feedback list previews formal first', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const first = vkit([...ADD, '--json', '--root', repo.dir]);
    assert.equal(first.code, 0, first.stderr);
    const r = first.json();
    assert.equal(r.schema, 'vkit.feedback-add/1');
    assert.equal(r.created, true);
    assert.match(r.file, /\/\.git\/vkit\/feedback\/formal-[0-9a-f]{16}\.md$/);

    const dup = vkit([...ADD, '--root', repo.dir]);
    assert.equal(dup.code, 0, dup.stderr);
    assert.match(dup.stdout, /^already recorded, existing file kept: .*formal-[0-9a-f]{16}\.md\n$/);
    assert.equal(readdirSync(join(repo.dir, '.git', 'vkit', 'feedback')).length, 1);

    const rel = vkit(
      [
        'feedback',
        'add',
        '--task',
        't',
        '--missing',
        'm',
        '--benefit',
        'b',
        '--kind',
        'reliable',
        '--run',
        'run_0abc',
        '--store',
        join(repo.dir, 'elsewhere'),
      ],
      { cwd: repo.dir },
    );
    assert.equal(rel.code, 0, rel.stderr);
    assert.match(
      rel.stdout,
      /^recorded reliable feedback: .*\.git\/vkit\/feedback\/reliable-[0-9a-f]{16}\.md\n$/,
      '--store does not move feedback',
    );

    const list = vkit(['feedback', 'list', '--json', '--root', repo.dir]);
    assert.equal(list.code, 0, list.stderr);
    const l = list.json();
    assert.equal(l.total, 2);
    assert.deepEqual(
      l.items.map((i: { kind: string }) => i.kind),
      ['formal', 'reliable'],
    );
    assert.equal(l.items[1].run, 'run_0abc');

    const human = vkit(['feedback', 'list', '--limit', '1', '--root', repo.dir]);
    assert.equal(human.code, 0, human.stderr);
    const lines = human.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(
      lines[0]!,
      /^formal\s+formal-[0-9a-f]{16}\.md\s+-\s+prove the queue is linearizable\s+missing: a TLA\+ rule$/,
    );
    assert.match(lines[1]!, /^1 of 2 shown from .*; --limit N for more$/);
  } finally {
    repo.cleanup();
  }
});

test('invalid feedback exits 2 with field paths; --help documents both verbs', () => {
  const repo = tempRepo();
  try {
    const bad = vkit([
      'feedback',
      'add',
      '--task',
      'a\n\nb',
      '--benefit',
      'b',
      '--kind',
      'proof',
      '--json',
      '--root',
      repo.dir,
    ]);
    assert.equal(bad.code, 2);
    const err = bad.json().error;
    assert.equal(err.code, 'ERR_FEEDBACK_INVALID');
    assert.deepEqual(
      err.issues.map((i: { path: string }) => i.path),
      ['task', 'missing', 'kind'],
    );
    assert.equal(vkit(['feedback', 'add', '--bogus', 'x', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['feedback', 'list', '--limit', 'ten', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['feedback', 'list', '--limit', '0', '--root', repo.dir]).code, 2);
    for (const verb of ['add', 'list']) {
      const help = vkit(['feedback', verb, '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, new RegExp(`^Usage: vkit feedback ${verb}`));
    }
  } finally {
    repo.cleanup();
  }
});

test('vkit gate output is the same before and after feedback', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("require('fs').readFileSync('a.txt')"), inputs: ['a.txt'] }] });
    assert.equal(vkit(['build', '--root', repo.dir]).code, 0);
    const before = vkit(['gate', '--json', '--root', repo.dir]);
    const beforeText = vkit(['gate', '--root', repo.dir]);
    assert.equal(before.code, 0, before.stderr);
    assert.equal(vkit([...ADD, '--root', repo.dir]).code, 0);
    assert.equal(vkit([...ADD, '--kind', 'reliable', '--root', repo.dir]).code, 0);
    const after = vkit(['gate', '--json', '--root', repo.dir]);
    assert.equal(after.code, before.code);
    assert.equal(after.stdout, before.stdout);
    assert.equal(vkit(['gate', '--root', repo.dir]).stdout, beforeText.stdout);
  } finally {
    repo.cleanup();
  }
});
