/**
 * Batched output of a one-off `build` or `gate` (src/cli/coalesce.ts), in a real child process
 * whose stdout and stderr are the same file: every line arrives, in the order written across both
 * streams, in far fewer writes than lines, including what was written just before `process.exit`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { REPO_ROOT } from '../_support/repo.js';

const MODULE = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'cli', 'coalesce.js')).href;

/** Runs `body` after batching is installed over write-counting streams; returns the shared file and the counts. */
function child(body: string): { text: string; writes: Record<string, number>; code: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-coalesce-'));
  try {
    const out = join(dir, 'out');
    const fd = openSync(out, 'w');
    const script = `
      const writes = { out: 0, err: 0 };
      for (const [name, s] of [['out', process.stdout], ['err', process.stderr]]) {
        const w = s.write.bind(s);
        s.write = (...a) => { writes[name]++; return w(...a); };
      }
      process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'writes'))}, JSON.stringify(writes)));
      import(${JSON.stringify(MODULE)}).then(({ coalesceOutput }) => { coalesceOutput(); ${body} });`;
    const r = spawnSync(process.execPath, ['-e', script], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    return {
      text: readFileSync(out, 'utf8'),
      writes: JSON.parse(readFileSync(join(dir, 'writes'), 'utf8')),
      code: r.status,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a thousand lines leave in a few writes, in order across stdout and stderr', () => {
  const r = child(`
    for (let i = 0; i < 1000; i++) process.stdout.write('line ' + i + '\\n');
    process.stderr.write('warning\\n');
    for (let i = 1000; i < 1500; i++) process.stdout.write('line ' + i + '\\n');
    setImmediate(() => process.stdout.write('later\\n'));`);
  assert.equal(r.code, 0);
  const expected = [
    ...Array.from({ length: 1000 }, (_, i) => `line ${i}`),
    'warning',
    ...Array.from({ length: 500 }, (_, i) => `line ${1000 + i}`),
    'later',
  ];
  assert.deepEqual(r.text.trimEnd().split('\n'), expected);
  assert.ok(r.writes.out! <= 4, `stdout writes: ${r.writes.out}`);
  assert.equal(r.writes.err, 1);
});

test('what waits is written when the process exits at once', () => {
  const r = child(`
    process.stdout.write('before exit\\n');
    process.stderr.write('why\\n');
    process.stdout.write('last\\n');
    process.exit(3);`);
  assert.equal(r.code, 3);
  assert.equal(r.text, 'before exit\nwhy\nlast\n');
});

test('a write with a callback is not held back, and what waited goes first', () => {
  const r = child(`
    process.stdout.write('first\\n');
    process.stdout.write('second\\n', () => process.stdout.write('after callback\\n'));`);
  assert.equal(r.text, 'first\nsecond\nafter callback\n');
});
