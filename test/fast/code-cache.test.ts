/**
 * The bundle's scripts run with V8's code cache (src/fast/code-cache.ts, D56): each case runs a
 * small script in a fresh node process, as bin/vkit.js and the job worker do, and looks at what ran.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { REPO_ROOT } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'vkit-code-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const MODULE = join(REPO_ROOT, 'dist', 'src', 'fast', 'code-cache.js');

/** A script as the bundler writes one: strict, CommonJS exports, imports through the host's `__vkitImport`. */
const scriptText = (word: string) => `"use strict";
exports.word = () => '${word}';
exports.sep = async () => (await __vkitImport('node:path')).sep;
`;

/** Runs `file` through runCachedScript in a new process: how it loaded and what its functions answered. */
function runScript(file: string): { load: string; word: string; sep: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { runCachedScript } = await import(${JSON.stringify(`file://${MODULE}`)});
const { load, exports } = runCachedScript(${JSON.stringify(file)});
process.stdout.write(JSON.stringify({ load, word: exports.word(), sep: await exports.sep() }));`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return { ...JSON.parse(r.stdout), stderr: r.stderr };
}

test("the run without a cache writes one at its exit, named by a young script's SHA-256; the next run uses it, import() included", () => {
  const file = join(dir, 'first.cjs');
  writeFileSync(file, scriptText('one'));
  assert.deepEqual(runScript(file), { load: 'compiled', word: 'one', sep: '/', stderr: '' });
  const cache = readFileSync(`${file}.cache`);
  const header = `sha256 ${createHash('sha256').update(scriptText('one')).digest('hex')}\n`;
  assert.equal(cache.subarray(0, header.length).toString('latin1'), header);
  // From the cache, an import() in the script would have no callback (node 20): the host's import works.
  assert.deepEqual(runScript(file), { load: 'cached', word: 'one', sep: '/', stderr: '' });
});

test('a cache made for other bytes of the same length is never handed to V8 (which would run the old code)', () => {
  const file = join(dir, 'edited.cjs');
  writeFileSync(file, scriptText('AAAA'));
  runScript(file);
  assert.equal(runScript(file).load, 'cached');
  writeFileSync(file, scriptText('BBBB'));
  assert.equal(statSync(file).size, Buffer.byteLength(scriptText('AAAA')));
  // V8 checks only the source's length: handed the old cache, it would answer AAAA.
  assert.deepEqual(runScript(file), { load: 'compiled', word: 'BBBB', sep: '/', stderr: '' });
  assert.equal(runScript(file).load, 'cached', 'the cache was written anew for the new bytes');
});

test('a damaged cache under the right name is refused by V8: compiled around, written anew', () => {
  const file = join(dir, 'damaged.cjs');
  writeFileSync(file, scriptText('two'));
  const header = `sha256 ${createHash('sha256').update(scriptText('two')).digest('hex')}\n`;
  writeFileSync(`${file}.cache`, Buffer.concat([Buffer.from(header), Buffer.alloc(4096, 7)]));
  assert.deepEqual(runScript(file), { load: 'rejected', word: 'two', sep: '/', stderr: '' });
  assert.equal(runScript(file).load, 'cached');
});

test('a cache that cannot be written (its name taken by a directory): the script runs, nothing is left behind', () => {
  const file = join(dir, 'unwritable.cjs');
  writeFileSync(file, scriptText('three'));
  mkdirSync(`${file}.cache`);
  assert.deepEqual(runScript(file), { load: 'compiled', word: 'three', sep: '/', stderr: '' });
  assert.equal(runScript(file).load, 'compiled');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('unwritable.cjs.cache.')),
    [],
    'no temp file left',
  );
});

/** The name a settled script's cache carries: its stat, as runCachedScript writes it. */
const statName = (file: string) => {
  const st = statSync(file, { bigint: true });
  return `stat ${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}\n`;
};
const nameOf = (file: string) => {
  const cache = readFileSync(`${file}.cache`);
  return cache.subarray(0, cache.indexOf(0x0a) + 1).toString('latin1');
};

test('a settled script is named by its stat (no hashing); a write to it after that is never run from that cache, even at the same length and mtime', async () => {
  const file = join(dir, 'settled.cjs');
  writeFileSync(file, scriptText('CCCC'));
  runScript(file);
  assert.match(nameOf(file), /^sha256 /, 'young: named by its digest');
  await sleep(2100);
  // Used under its digest, then named by its stat once the script has settled.
  assert.equal(runScript(file).load, 'cached');
  assert.equal(nameOf(file), statName(file));
  assert.equal(runScript(file).load, 'cached');
  // The same length and the old mtime put back: only the ctime tells, and it does.
  const { mtimeNs } = statSync(file, { bigint: true });
  writeFileSync(file, scriptText('DDDD'));
  const mtime = `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`;
  assert.equal(spawnSync('touch', ['-m', '-d', mtime, file]).status, 0);
  assert.equal(statSync(file, { bigint: true }).mtimeNs, mtimeNs, 'the mtime is put back to the nanosecond');
  await sleep(2100); // settled again: only its stat name could stand in the way
  assert.deepEqual(runScript(file), { load: 'compiled', word: 'DDDD', sep: '/', stderr: '' });
});

test('a stat name is trusted only for a settled script: a young one with a cache under its (forged) stat name is compiled', () => {
  const file = join(dir, 'young.cjs');
  writeFileSync(file, scriptText('EEEE'));
  runScript(file);
  const data = readFileSync(`${file}.cache`);
  writeFileSync(file, scriptText('FFFF'));
  // The old code's cache renamed for the new bytes' stat: a young script never takes such a name.
  writeFileSync(
    `${file}.cache`,
    Buffer.concat([Buffer.from(statName(file), 'latin1'), data.subarray(data.indexOf(0x0a) + 1)]),
  );
  assert.deepEqual(runScript(file), { load: 'compiled', word: 'FFFF', sep: '/', stderr: '' });
});
