/**
 * What `vkit watch` listens to, through the built binary in real temp repos: a local module the
 * config imports (an edit recompiles the graph), and a formal component's inputs and the
 * `vkit.lock.json` its capture includes. A file nothing declares starts no cycle.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempRepo } from '../_support/repo.js';
import { DEAD_SOCKET, ledgerRepo, writeAcceptedLock } from '../formal/_formal.js';
import { startWatch } from './_watch.js';

/** First two words of the action lines between two indexes (`ran check:a`), sorted. */
const actionsBetween = (lines: string[], from: number, to: number) =>
  lines
    .slice(from + 1, to)
    .filter((l) => /^(ran|cached|failed|blocked)\s/.test(l))
    .map((l) => l.split(/\s+/).slice(0, 2).join(' '))
    .sort();

const CONFIG = `import { defineConfig } from 'vkit';\nimport { checks } from './checks.ts';\nexport default defineConfig({ checks });\n`;
const check = (id: string, file: string) =>
  `{ id: '${id}', run: ['node', '-e', "require('fs').readFileSync('${file}')"], inputs: ['${file}'] }`;

test('an edit to a module vkit.config.ts imports recompiles the graph: the new check runs, the old one is cached', async () => {
  const repo = tempRepo({
    'vkit.config.ts': CONFIG,
    'checks.ts': `export const checks = [${check('a', 'a.txt')}];\n`,
    'a.txt': 'a\n',
    'b.txt': 'b\n',
  });
  const w = startWatch(repo);
  try {
    const s1 = await w.line(/^cycle 1 settled: READY/, 0, 30_000);
    assert.deepEqual(actionsBetween(w.lines, 0, s1), ['ran check:a']);
    repo.write('checks.ts', `export const checks = [${check('a', 'a.txt')}, ${check('b', 'b.txt')}];\n`);
    const c2 = await w.line(/^cycle 2 started:/, s1, 30_000);
    assert.equal(w.lines[c2], 'cycle 2 started: 1 changed (checks.ts)');
    const s2 = await w.line(/^cycle 2 settled: READY in \d+ ms$/, c2, 30_000);
    assert.deepEqual(actionsBetween(w.lines, c2, s2), ['cached check:a', 'ran check:b']);
  } finally {
    await w.stop();
    repo.cleanup();
  }
});

test('a formal component: an edit to one of its inputs, or to vkit.lock.json, starts a cycle; an undeclared file does not', async () => {
  const repo = ledgerRepo();
  // No container engine is ever reached: the component is judged (BLOCKED) before one is asked for.
  const w = startWatch(repo, [], { VKIT_CONTAINER_SOCKET: DEAD_SOCKET });
  try {
    const s1 = await w.line(/^cycle 1 settled: BLOCKED in \d+ ms$/, 0, 30_000);
    assert.ok(actionsBetween(w.lines, 0, s1).includes('blocked formal:allocation'), w.lines.join('\n'));
    repo.write('notes.md', 'not an input of anything\n');
    repo.write('src/allocation.v', '(* edited *)\n');
    const c2 = await w.line(/^cycle 2 started:/, s1, 30_000);
    assert.equal(w.lines[c2], 'cycle 2 started: 1 changed (src/allocation.v)');
    const s2 = await w.line(/^cycle 2 settled:/, c2, 30_000);
    assert.ok(actionsBetween(w.lines, c2, s2).includes('blocked formal:allocation'), w.lines.join('\n'));
    await writeAcceptedLock(repo);
    const c3 = await w.line(/^cycle 3 started:/, s2, 30_000);
    assert.equal(w.lines[c3], 'cycle 3 started: 1 changed (vkit.lock.json)');
    await w.line(/^cycle 3 settled:/, c3, 30_000);
  } finally {
    await w.stop();
    repo.cleanup();
  }
});
