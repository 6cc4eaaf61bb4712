/**
 * `vkit watch` and an edit that puts the file's times back (`touch -r`, `cp -p`, `tar -x`, an
 * editor keeping times): the file watcher's own filter would drop it (its mtime did not move), but
 * vkit judges every event by its own fingerprint (size, mtime, ctime, inode), whose ctime did move.
 * A new cycle must run and settle on the new bytes, never stay READY on the old receipt, and the
 * watch must agree with `vkit gate`.
 */
import assert from 'node:assert/strict';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { tempRepo, vkit } from '../_support/repo.js';
import { startWatch } from './_watch.js';

/** Passes only while `file` holds `good\n`. */
const contentCheck = (id: string, file: string, inputs: string[]) => ({
  id,
  run: [
    'node',
    '-e',
    `process.exit(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8') === 'good\\n' ? 0 : 1)`,
  ],
  inputs,
});

/** Rewrites `file` with other bytes of the same size, then puts its atime and mtime back. */
function rewriteKeepingTimes(file: string, content: string): void {
  const st = statSync(file);
  assert.equal(Buffer.byteLength(content), st.size);
  writeFileSync(file, content);
  utimesSync(file, st.atime, st.mtime);
}

test('watch: an input rewritten with its size and times put back starts a cycle that rejects it, as the gate does', async () => {
  const repo = tempRepo({ 'data/a.txt': 'good\n', 'lit.txt': 'good\n' });
  try {
    repo.manifest({
      checks: [contentCheck('glob', 'data/a.txt', ['data/*']), contentCheck('lit', 'lit.txt', ['lit.txt'])],
    });
    // As a file saved a while ago and read since: its atime is later than its mtime.
    const now = new Date();
    const before = new Date(Date.now() - 60_000);
    for (const f of ['data/a.txt', 'lit.txt']) utimesSync(join(repo.dir, f), now, before);
    const w = startWatch(repo);
    try {
      const s1 = await w.line(/^cycle 1 settled: READY/);
      for (const [f, label] of [
        ['data/a.txt', 'glob'],
        ['lit.txt', 'lit'],
      ] as const) {
        const from = w.lines.length;
        rewriteKeepingTimes(join(repo.dir, f), 'bad!\n');
        const started = await w.line(/^cycle \d+ started:/, Math.max(from, s1 + 1), 10_000);
        assert.match(w.lines[started]!, new RegExp(`changed \\(.*${f.replace('.', '\\.')}`));
        const settled = await w.line(/^cycle \d+ settled:/, started);
        assert.match(w.lines[settled]!, /settled: REJECTED/, w.lines.join('\n'));
        assert.ok(
          w.lines.slice(started, settled).some((l) => new RegExp(`^failed\\s+check:${label}\\b`).test(l)),
          w.lines.join('\n'),
        );
        const gate = vkit(['gate', '--json', '--store', storeDir(repo)], { cwd: repo.dir, env: { VKIT_DAEMON: '0' } });
        assert.equal(gate.json().status, 'REJECTED');
        // Put right again (times kept too): the next cycle passes.
        const fixed = w.lines.length;
        rewriteKeepingTimes(join(repo.dir, f), 'good\n');
        await w.line(/^cycle \d+ settled: READY/, fixed);
      }
    } finally {
      await w.stop();
    }
  } finally {
    repo.cleanup();
  }
});
