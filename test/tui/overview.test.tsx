/** `vkit tui`: the one-shot overview (Ink's renderToString), the plain non-TTY lines and the CLI verb. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { cli, storeDir } from '../_support/evidence.js';
import { nodeCheck, REPO_ROOT, tempRepo, vkit } from '../_support/repo.js';
import { overviewLines } from '../../src/tui/lines.js';
import { renderOverviewOnce } from '../../src/tui/overview.js';
import { stateFromGate } from '../../src/tui/state.js';
import type { Gate } from '../../src/gate/schema.js';
import { item } from './events.js';

const gate: Gate = {
  schema: 'vkit.gate/1',
  status: 'REJECTED',
  reason: '1 required item(s) failed: check:b',
  items: [
    item('check:a', 'PASS'),
    item('check:b', 'FAIL', true, 'exit code 1, expected 0'),
    item('formal:c', 'MISSING', false),
  ],
};

test('renderOverviewOnce prints the header and every item, failing first, and returns the text', () => {
  let written = '';
  const text = renderOverviewOnce(gate, { root: '/repo', store: '/store', columns: 100, write: (t) => (written += t) });
  assert.equal(written, `${text}\n`);
  assert.match(text, /vkit gate REJECTED {2}from retained evidence/);
  assert.match(text, /root \/repo store \/store/);
  assert.match(text, /1 required item\(s\) failed: check:b/);
  const ids = text
    .split('\n')
    .filter((l) => /^ {2}(PASS|FAIL|MISSING)/.test(l))
    .map((l) => l.trim().split(/\s+/).at(-1));
  assert.deepEqual(ids, ['check:b', 'formal:c', 'check:a']);
  assert.doesNotMatch(text, /^>/m, 'no selection in the one-shot overview');
});

test('overviewLines: one plain greppable line per item', () => {
  assert.deepEqual(overviewLines(stateFromGate(gate, '/repo', '/store')), [
    'gate REJECTED: 1 required item(s) failed: check:b',
    'root /repo',
    'store /store',
    'FAIL    check:b run run-b  exit code 1, expected 0',
    'MISSING formal:c (not required)  missing evidence',
    'PASS    check:a run run-a  passed',
  ]);
});

test('vkit tui (not a TTY) prints plain lines from retained evidence and exits with the gate code', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'A', run: nodeCheck('process.exit(1)'), inputs: ['a.txt'] }] });
    let r = cli(repo, ['tui']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /^gate BLOCKED: /m);
    assert.match(r.stdout, /^MISSING check:A/m);
    assert.equal(cli(repo, ['build']).code, 1);
    r = cli(repo, ['tui']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^gate REJECTED: /m);
    assert.match(r.stdout, /^FAIL {4}check:A run run_/m);
    assert.match(r.stdout, new RegExp(`^store ${storeDir(repo).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const j = cli(repo, ['tui', '--json']);
    assert.equal(j.code, 1);
    assert.equal(JSON.parse(j.stdout).status, 'REJECTED');
    assert.equal(cli(repo, ['tui', '--bogus']).code, 2);
  } finally {
    repo.cleanup();
  }
});

test('vkit tui --help and the main help list the verb', () => {
  const h = vkit(['tui', '--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /^Usage: vkit tui/);
  assert.match(vkit(['--help']).stdout, /^ {2}tui {10}the gate overview once/m);
});

/** Static `import ... from` specifiers of a compiled module (dynamic `import()` excluded). */
function staticImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)';/gms)]
    .map((m) => m[1]!)
    .concat([...src.matchAll(/^import\s+'([^']+)';/gm)].map((m) => m[1]!));
}

test('Ink and React are never loaded eagerly by the CLI: --version stays fast', () => {
  const start = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');
  const seen = new Set<string>();
  const bare = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec));
      else bare.add(spec.split('/')[0]!.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  walk(start);
  // The command table imports handlers on first use: the build verbs' and the tui verb's own.
  walk(join(REPO_ROOT, 'dist', 'src', 'cli', 'commands.js'));
  walk(join(REPO_ROOT, 'dist', 'src', 'cli', 'tui.js'));
  for (const heavy of ['ink', 'react', 'react-reconciler']) assert.ok(!bare.has(heavy), `${heavy} is imported eagerly`);
});
