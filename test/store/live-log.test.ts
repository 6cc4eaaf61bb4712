/**
 * The live-log tail reader the TUI polls while a check runs: a growing file, a partial last line, a
 * file truncated or gone under it, and output trying to drive the terminal. Real files in a temp dir.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { liveLogPaths, readLiveOutput, readTail } from '../../src/store/live-log.js';

const KEY = `sha256:${'ab'.repeat(32)}`;

/** A test body given a fresh temp dir, removed after it. */
function inTempDir(body: (t: { dir: string }) => void): () => void {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-live-'));
    try {
      body({ dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'readTail follows a growing file: new lines appear, a partial last line is marked',
  inTempDir((t) => {
    const file = join(t.dir, 'out');
    writeFileSync(file, 'one\n');
    assert.deepEqual(readTail(file, 1024, 10), { lines: ['one'], partial: false, cut: false });
    appendFileSync(file, 'two\nthr');
    assert.deepEqual(readTail(file, 1024, 10), { lines: ['one', 'two', 'thr'], partial: true, cut: false });
    appendFileSync(file, 'ee\n');
    assert.deepEqual(readTail(file, 1024, 10), { lines: ['one', 'two', 'three'], partial: false, cut: false });
  }),
);

test(
  'readTail reads only the last bytes: the cut first line is dropped, and only maxLines kept',
  inTempDir((t) => {
    const file = join(t.dir, 'out');
    const lines = Array.from({ length: 10_000 }, (_, i) => `line ${i}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const tail = readTail(file, 64, 3);
    assert.deepEqual(tail, { lines: ['line 9997', 'line 9998', 'line 9999'], partial: false, cut: true });
    // 64 bytes hold about seven lines: the first piece read is the end of a line, never shown as one.
    const all = readTail(file, 64, 100)!;
    assert.ok(all.lines.length < 8, `${all.lines.length} lines from 64 bytes`);
    assert.ok(
      all.lines.every((l) => /^line \d{4}$/.test(l)),
      all.lines.join('|'),
    );
  }),
);

test(
  'readTail: a truncated file reads from its new end, a missing one is undefined',
  inTempDir((t) => {
    const file = join(t.dir, 'out');
    writeFileSync(file, 'old one\nold two\n');
    truncateSync(file, 0);
    assert.deepEqual(readTail(file, 1024, 10), { lines: [], partial: false, cut: false });
    appendFileSync(file, 'new\n');
    assert.deepEqual(readTail(file, 1024, 10)?.lines, ['new']);
    rmSync(file);
    assert.equal(readTail(file, 1024, 10), undefined);
    assert.equal(readTail(join(t.dir, 'never'), 1024, 10), undefined);
  }),
);

test(
  'readTail strips what could drive the terminal: escapes, C0 and C1 controls; a CR shows its last rewrite',
  inTempDir((t) => {
    const file = join(t.dir, 'out');
    const hostile = [
      '\u001b[31mred\u001b[0m',
      '\u001b]0;new title\u0007title',
      '\u001b[2J\u001b[Hclear',
      'bell\u0007 back\u0008 nul\u0000',
      'c1\u009b31m \u009d8;;x\u009c end',
      'progress 10%\rprogress 100%',
      'crlf\r',
      'tab\there',
    ];
    writeFileSync(file, `${hostile.join('\n')}\n`);
    const tail = readTail(file, 4096, 20)!;
    assert.deepEqual(tail.lines, [
      'red',
      'title',
      'clear',
      'bell back nul',
      'c1 8;;x end',
      'progress 100%',
      'crlf',
      'tab  here',
    ]);
    for (const l of tail.lines) assert.doesNotMatch(l, /[\u0000-\u001f\u007f-\u009f]/, JSON.stringify(l));
  }),
);

test(
  'readLiveOutput finds the latest process of a key by its file names; other keys and older attempts are ignored',
  inTempDir((t) => {
    const tmp = join(t.dir, 'tmp');
    mkdirSync(tmp);
    assert.equal(readLiveOutput(t.dir, KEY), undefined, 'nothing running');
    assert.equal(readLiveOutput(join(t.dir, 'gone'), KEY), undefined, 'no store');
    const older = liveLogPaths(join(tmp, '123-1000-0'), KEY);
    writeFileSync(older.stdout, 'leftover of a killed worker\n');
    writeFileSync(older.stderr, '');
    const other = liveLogPaths(join(tmp, '123-3000-0'), `sha256:${'cd'.repeat(32)}`);
    writeFileSync(other.stdout, 'another check\n');
    const current = liveLogPaths(join(tmp, '456-2000-7'), KEY);
    writeFileSync(current.stdout, 'hello\n');
    writeFileSync(current.stderr, 'warn\npart');
    assert.deepEqual(readLiveOutput(t.dir, KEY), {
      stdout: { lines: ['hello'], partial: false, cut: false },
      stderr: { lines: ['warn', 'part'], partial: true, cut: false },
    });
    // Before this attempt's process starts, an earlier attempt's leftover is not taken for its output.
    rmSync(current.stdout);
    rmSync(current.stderr);
    assert.equal(readLiveOutput(t.dir, KEY, { since: 1500 }), undefined);
    assert.deepEqual(
      readLiveOutput(t.dir, KEY)?.stdout.lines,
      ['leftover of a killed worker'],
      'the files are what is read',
    );
    assert.equal(readLiveOutput(t.dir, 'not-a-key'), undefined);
  }),
);
