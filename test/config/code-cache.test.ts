/**
 * The bundle's scripts run with V8's code cache (src/config/code-cache.ts, D56): each case runs a
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

const dir = mkdtempSync(join(tmpdir(), 'vkit-code-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const MODULE = join(REPO_ROOT, 'dist', 'src', 'config', 'code-cache.js');

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

test("the run without a cache writes one at its exit, named by the script's SHA-256; the next run uses it, import() included", () => {
  const file = join(dir, 'first.cjs');
  writeFileSync(file, scriptText('one'));
  assert.deepEqual(runScript(file), { load: 'compiled', word: 'one', sep: '/', stderr: '' });
  const cache = readFileSync(`${file}.cache`);
  const header = `${createHash('sha256').update(scriptText('one')).digest('hex')}\n`;
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
  const header = `${createHash('sha256').update(scriptText('two')).digest('hex')}\n`;
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
