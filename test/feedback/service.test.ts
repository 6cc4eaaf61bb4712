/**
 * The feedback service against real temp repos: where files land (git common dir, linked worktrees,
 * no git), content-digest names and duplicates, ordering and bounded previews, validation with field
 * paths, and concurrent identical submissions from one process and from several.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { InvalidInputError } from '../../src/errors.js';
import {
  addFeedback,
  feedbackDir,
  listFeedback,
  parseFeedback,
  renderFeedback,
  validateFeedback,
  type FeedbackInput,
} from '../../src/service/feedback.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';

const REQ: FeedbackInput = {
  task: 'Prove the allocator never double-frees',
  missing: 'Kani harnesses for unsafe blocks',
  benefit: 'Rules out a class of memory errors for all inputs up to the bound',
};

const real = (p: string) => realpathSync(p);

test('in a git work tree the file lands in <git common dir>/vkit/feedback, and only there', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const r = await addFeedback(repo.dir, REQ);
    assert.equal(r.created, true);
    assert.equal(r.kind, 'formal');
    assert.equal(real(join(r.file, '..')), real(join(repo.dir, '.git', 'vkit', 'feedback')));
    assert.match(r.file, /\/formal-[0-9a-f]{16}\.md$/);
    assert.equal(r.file.slice(-19, -3), r.id.slice(7, 23), 'the name carries the first 16 hex of the identity');
    assert.equal(await feedbackDir(repo.dir), join(r.file, '..'));
    // Feedback never touches the store: nothing but feedback/ appears under <git common dir>/vkit.
    assert.deepEqual(readdirSync(join(repo.dir, '.git', 'vkit')), ['feedback']);
    assert.equal(existsSync(join(repo.dir, '.vkit')), false);
    // From a subdirectory of the work tree: the same place.
    repo.write('sub/b.txt', 'b\n');
    assert.equal(real(await feedbackDir(join(repo.dir, 'sub'))), real(join(repo.dir, '.git', 'vkit', 'feedback')));
  } finally {
    repo.cleanup();
  }
});

test('from a linked git worktree the file lands in the common dir shared by all worktrees', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' }, { commit: true });
  const outside = mkdtempSync(join(tmpdir(), 'vkit-wt-'));
  const wt = join(outside, 'wt');
  try {
    repo.git('worktree', 'add', '-q', wt);
    const r = await addFeedback(wt, REQ);
    assert.equal(r.created, true);
    assert.equal(real(join(r.file, '..')), real(join(repo.dir, '.git', 'vkit', 'feedback')));
    assert.equal(existsSync(join(wt, '.vkit')), false);
    // The same request from the main worktree is a duplicate: one shared directory.
    const again = await addFeedback(repo.dir, REQ);
    assert.equal(again.created, false);
    assert.equal(real(again.file), real(r.file));
    const listed = await listFeedback(wt);
    assert.equal(listed.total, 1);
  } finally {
    repo.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('without git the file lands in <root>/.vkit/feedback', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' }, { git: false });
  try {
    const r = await addFeedback(repo.dir, { ...REQ, kind: 'reliable' });
    assert.equal(r.created, true);
    assert.equal(join(r.file, '..'), join(repo.dir, '.vkit', 'feedback'));
    assert.match(r.file, /\/reliable-[0-9a-f]{16}\.md$/);
    assert.deepEqual(readdirSync(join(repo.dir, '.vkit')), ['feedback'], 'no store is opened');
  } finally {
    repo.cleanup();
  }
});

test('a root that is not a directory is an invalid request', async () => {
  await assert.rejects(
    addFeedback('/nonexistent/vkit-root', REQ),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'ERR_ROOT' && e.exitCode === 2,
  );
  await assert.rejects(
    listFeedback('/nonexistent/vkit-root'),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'ERR_ROOT',
  );
});

test('the Markdown file: title, kind, linked run, task, missing capability, benefit; no time in it', async () => {
  const repo = tempRepo();
  try {
    const r = await addFeedback(repo.dir, { ...REQ, run: 'run_0abc123' });
    const text = readFileSync(r.file, 'utf8');
    const lines = text.split('\n');
    assert.equal(lines[0], '# vkit feedback: formal verification request');
    assert.ok(lines.includes('- Kind: formal'));
    assert.ok(lines.includes('- Linked run: run_0abc123'));
    assert.ok(lines.includes(`- Identity: ${r.id}`));
    for (const [heading, body] of [
      ['## Task', REQ.task],
      ['## Missing capability', REQ.missing],
      ['## Expected verification benefit', REQ.benefit],
    ] as const) {
      assert.equal(lines[lines.indexOf(heading) + 2], body, heading);
    }
    assert.doesNotMatch(text, /\d{4}-\d{2}-\d{2}|T\d{2}:\d{2}/, 'no timestamp');
    assert.ok(text.endsWith('\n'));
    // Deterministic: the same request renders the same bytes in another repo.
    const other = tempRepo();
    try {
      const r2 = await addFeedback(other.dir, { ...REQ, run: 'run_0abc123' });
      assert.equal(readFileSync(r2.file, 'utf8'), text);
      assert.equal(r2.id, r.id);
    } finally {
      other.cleanup();
    }
    const noRun = await addFeedback(repo.dir, REQ);
    assert.ok(readFileSync(noRun.file, 'utf8').includes('- Linked run: none\n'));
  } finally {
    repo.cleanup();
  }
});

test('render and parse round-trip; a field that looks like a heading stays a field', () => {
  const { value } = validateFeedback({
    task: '## Missing capability',
    missing: '# vkit feedback: x',
    benefit: '- Kind: reliable',
    kind: 'reliable',
    run: 'run_z9',
  });
  assert.ok(value);
  assert.deepEqual(parseFeedback(renderFeedback(value)), value);
  assert.equal(parseFeedback('# something else\n'), undefined);
});

test('a duplicate keeps the existing file untouched (bytes, inode, mtime) and says created: false', async () => {
  const repo = tempRepo();
  try {
    const first = await addFeedback(repo.dir, REQ);
    assert.equal(first.created, true);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(first.file, old, old);
    const before = statSync(first.file, { bigint: true });
    const bytes = readFileSync(first.file);

    const dup = await addFeedback(repo.dir, REQ);
    // Whitespace and wrapping differences are the same request.
    const rewrapped = await addFeedback(repo.dir, {
      ...REQ,
      task: `  ${REQ.task.replace(/ /g, '\n  ')}\t`,
      kind: 'formal',
    });
    for (const r of [dup, rewrapped]) {
      assert.equal(r.created, false);
      assert.equal(r.file, first.file);
      assert.equal(r.id, first.id);
    }
    const after = statSync(first.file, { bigint: true });
    assert.equal(after.mtimeNs, before.mtimeNs);
    assert.equal(after.ctimeNs, before.ctimeNs, 'not even its metadata changed');
    assert.equal(after.ino, before.ino);
    assert.deepEqual(readFileSync(first.file), bytes);
    assert.deepEqual(
      readdirSync(join(first.file, '..')),
      [join(first.file).split('/').pop()],
      'one file, no temp files left',
    );
  } finally {
    repo.cleanup();
  }
});

test('a different run id, kind or text makes a different file', async () => {
  const repo = tempRepo();
  try {
    const files = new Set<string>();
    for (const req of [
      REQ,
      { ...REQ, run: 'run_1' },
      { ...REQ, run: 'run_2' },
      { ...REQ, kind: 'reliable' as const },
      { ...REQ, kind: 'reliable' as const, run: 'run_1' },
      { ...REQ, benefit: `${REQ.benefit}.` },
    ]) {
      const r = await addFeedback(repo.dir, req);
      assert.equal(r.created, true, JSON.stringify(req));
      files.add(r.file);
    }
    assert.equal(files.size, 6);
    assert.equal(readdirSync(await feedbackDir(repo.dir)).length, 6);
    // An explicit kind formal is the default kind: same request.
    assert.equal((await addFeedback(repo.dir, { ...REQ, kind: 'formal' })).created, false);
  } finally {
    repo.cleanup();
  }
});

/** Adds requests and gives each file an mtime `age` seconds in the past. */
async function seed(
  root: string,
  entries: Array<{ kind: 'formal' | 'reliable'; task: string; age: number }>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const e of entries) {
    const r = await addFeedback(root, { ...REQ, kind: e.kind, task: e.task });
    const t = new Date(Date.now() - e.age * 1000);
    utimesSync(r.file, t, t);
    names.set(e.task, r.file);
  }
  return names;
}

test('listing: formal requests first, then reliable; newest first in each; equal times by file name', async () => {
  const repo = tempRepo();
  try {
    const files = await seed(repo.dir, [
      { kind: 'reliable', task: 'r-new', age: 10 },
      { kind: 'formal', task: 'f-old', age: 300 },
      { kind: 'reliable', task: 'r-old', age: 200 },
      { kind: 'formal', task: 'f-new', age: 5 },
      { kind: 'formal', task: 'f-tie-1', age: 100 },
      { kind: 'formal', task: 'f-tie-2', age: 100 },
    ]);
    // Same second: give the two ties exactly the same mtime.
    const tie = new Date(Math.floor(Date.now() / 1000) * 1000 - 100_000);
    utimesSync(files.get('f-tie-1')!, tie, tie);
    utimesSync(files.get('f-tie-2')!, tie, tie);
    const ties = [files.get('f-tie-1')!, files.get('f-tie-2')!].sort();

    const list = await listFeedback(repo.dir);
    assert.equal(list.schema, 'vkit.feedback-list/1');
    assert.equal(list.total, 6);
    assert.equal(list.shown, 6);
    assert.deepEqual(
      list.items.map((i) => i.kind),
      ['formal', 'formal', 'formal', 'formal', 'reliable', 'reliable'],
    );
    assert.deepEqual(
      list.items.map((i) => i.file),
      [files.get('f-new'), ...ties, files.get('f-old'), files.get('r-new'), files.get('r-old')],
    );
    assert.deepEqual(await listFeedback(repo.dir), list, 'stable');

    // Bounded: the limit applies after ordering, so a reliable request never hides a formal one.
    const two = await listFeedback(repo.dir, { limit: 2 });
    assert.equal(two.total, 6);
    assert.equal(two.shown, 2);
    assert.deepEqual(two.items, list.items.slice(0, 2));
  } finally {
    repo.cleanup();
  }
});

test('previews are bounded: task and missing cut to 120 characters, benefit not included, run shown', async () => {
  const repo = tempRepo();
  try {
    const longTask = 'x'.repeat(3000);
    const longMissing = '検証'.repeat(100) + '😀'.repeat(50);
    await addFeedback(repo.dir, { task: longTask, missing: longMissing, benefit: 'b', run: 'run_abc' });
    await addFeedback(repo.dir, { task: 'short task', missing: 'short missing', benefit: 'b', kind: 'reliable' });
    const list = await listFeedback(repo.dir);
    const [long, short] = list.items;
    assert.equal([...long!.task!].length, 120);
    assert.ok(long!.task!.endsWith('…'));
    assert.equal(long!.task, `${'x'.repeat(119)}…`);
    assert.equal([...long!.missing!].length, 120);
    assert.ok(long!.missing!.endsWith('…'));
    assert.doesNotMatch(long!.missing!, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'never cuts a surrogate pair');
    assert.equal(long!.run, 'run_abc');
    assert.deepEqual(Object.keys(long!).sort(), ['file', 'kind', 'missing', 'run', 'task']);
    assert.equal(short!.task, 'short task');
    assert.equal(short!.missing, 'short missing');
    assert.equal(short!.run, null);
    // The file itself keeps the full text.
    assert.equal(parseFeedback(readFileSync(long!.file, 'utf8'))!.task, longTask);
  } finally {
    repo.cleanup();
  }
});

test('listing is read-only and ignores foreign names; a hand-broken file is listed without preview', async () => {
  const repo = tempRepo();
  try {
    const empty = await listFeedback(repo.dir);
    assert.deepEqual({ total: empty.total, shown: empty.shown, items: empty.items }, { total: 0, shown: 0, items: [] });
    assert.equal(existsSync(empty.dir), false, 'listing never creates the directory');
    const r = await addFeedback(repo.dir, REQ);
    writeFileSync(join(empty.dir, 'README.md'), 'notes\n');
    writeFileSync(join(empty.dir, '.tmp-1-abc'), 'partial');
    writeFileSync(join(empty.dir, 'reliable-0123456789abcdef.md'), 'edited by hand\n');
    const list = await listFeedback(repo.dir);
    assert.equal(list.total, 2);
    assert.deepEqual(
      list.items.map((i) => [i.kind, i.task]),
      [
        ['formal', REQ.task],
        ['reliable', null],
      ],
    );
    assert.equal(list.items[0]!.file, r.file);
  } finally {
    repo.cleanup();
  }
});

function check(input: unknown, paths: string[], match?: RegExp): void {
  const { value, issues } = validateFeedback(input);
  assert.equal(value, undefined, JSON.stringify(input));
  assert.deepEqual(
    issues.map((i) => i.path),
    paths,
    JSON.stringify(input),
  );
  if (match) assert.match(issues.map((i) => i.message).join('\n'), match);
}

test('validation: every problem reported with its field path', () => {
  check({ missing: 'm', benefit: 'b' }, ['task'], /Expected `task` to be a non-empty single paragraph, got nothing/);
  check({ task: '', missing: 'm', benefit: 'b' }, ['task'], /empty string/);
  check({ task: ' \n\t ', missing: 'm', benefit: 'b' }, ['task']);
  check({ task: 't', missing: 'first\n\nsecond', benefit: 'b' }, ['missing'], /single paragraph/);
  check({ task: 't', missing: 'first\r\n  \r\nsecond', benefit: 'b' }, ['missing']);
  check({ task: 't', missing: 'first\u2029second', benefit: 'b' }, ['missing']);
  check({ task: 't', missing: 'm', benefit: 'x'.repeat(4001) }, ['benefit'], /at most 4,000 characters, got 4,001/);
  check({ task: 't', missing: 'm', benefit: 'b\u0007' }, ['benefit'], /U\+0007/);
  check({ task: 't', missing: 'm', benefit: 'b\uD800' }, ['benefit'], /lone surrogate/);
  check({ task: 42, missing: 'm', benefit: 'b' }, ['task'], /got number `42`/);
  check(
    { task: 't', missing: 'm', benefit: 'b', kind: 'Formal' },
    ['kind'],
    /Expected `kind` to be formal or reliable, got `Formal`/,
  );
  for (const run of ['run-1', 'RUN_1', 'run_ABC', 'run_', 'xrun_1', `run_${'a'.repeat(65)}`, 7])
    check({ task: 't', missing: 'm', benefit: 'b', run }, ['run'], /Expected `run` to be a run id/);
  check({ task: 't', missing: 'm', benefit: 'b', extra: 1 }, ['extra'], /Unknown field/);
  check({}, ['task', 'missing', 'benefit']);
  check('task', [''], /object/);
  check(null, ['']);
});

test('validation: accepted inputs are normalised; 4,000 characters is the limit, counted in code points', () => {
  const ok = validateFeedback({
    task: ' a\n b\r\n\tc ',
    missing: '😀'.repeat(4000),
    benefit: 'e\u0301',
    run: 'run_0z',
  });
  assert.deepEqual(ok.issues, []);
  assert.deepEqual(ok.value, {
    kind: 'formal',
    task: 'a b c',
    missing: '😀'.repeat(4000),
    benefit: '\u00e9',
    run: 'run_0z',
  });
  assert.equal(
    validateFeedback({ task: 't', missing: 'm', benefit: 'x'.repeat(4000), kind: 'reliable', run: undefined }).value
      ?.kind,
    'reliable',
  );
});

test('invalid input throws InvalidInputError (exit code 2) and writes nothing', async () => {
  const repo = tempRepo();
  try {
    await assert.rejects(
      addFeedback(repo.dir, { task: '', missing: 'm', benefit: 'b', kind: 'proof' as 'formal', run: 'bad' }),
      (e: unknown) => {
        assert.ok(e instanceof InvalidInputError);
        assert.equal(e.code, 'ERR_FEEDBACK_INVALID');
        assert.equal(e.exitCode, 2);
        assert.deepEqual(
          e.issues.map((i) => i.path),
          ['task', 'kind', 'run'],
        );
        assert.match(e.message, /^task: Expected `task`/);
        return true;
      },
    );
    for (const limit of [0, 201, 1.5, Number.NaN]) {
      await assert.rejects(
        listFeedback(repo.dir, { limit }),
        (e: unknown) => e instanceof InvalidInputError && e.exitCode === 2 && e.issues[0]!.path === 'limit',
        String(limit),
      );
    }
    assert.equal(existsSync(join(repo.dir, '.git', 'vkit')), false);
  } finally {
    repo.cleanup();
  }
});

test('5 identical adds at once (Promise.all) leave exactly one file; exactly one says created', async () => {
  const repo = tempRepo();
  try {
    const results = await Promise.all(Array.from({ length: 5 }, () => addFeedback(repo.dir, REQ)));
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.equal(new Set(results.map((r) => r.file)).size, 1);
    const dir = await feedbackDir(repo.dir);
    assert.deepEqual(readdirSync(dir), [results[0]!.file.split('/').pop()]);
    assert.ok(parseFeedback(readFileSync(results[0]!.file, 'utf8')), 'the one file is whole');
  } finally {
    repo.cleanup();
  }
});

test('5 identical adds from 5 processes at once leave exactly one whole file', async () => {
  const repo = tempRepo();
  try {
    const url = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'service', 'feedback.js')).href;
    const script = `import { addFeedback } from ${JSON.stringify(url)}; const r = await addFeedback(process.argv[1], JSON.parse(process.argv[2])); process.stdout.write(JSON.stringify(r));`;
    const outputs = await Promise.all(
      Array.from(
        { length: 5 },
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              ['--input-type=module', '-e', script, repo.dir, JSON.stringify(REQ)],
              { stdio: ['ignore', 'pipe', 'inherit'] },
            );
            let out = '';
            child.stdout.on('data', (c: Buffer) => (out += c.toString()));
            child.on('error', reject);
            child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    const results = outputs.map((o) => JSON.parse(o) as { file: string; created: boolean });
    assert.equal(results.filter((r) => r.created).length, 1);
    const dir = await feedbackDir(repo.dir);
    assert.equal(readdirSync(dir).length, 1);
    assert.ok(parseFeedback(readFileSync(results[0]!.file, 'utf8')));
  } finally {
    repo.cleanup();
  }
});
