/**
 * `vkit gate --format markdown`: a CI job's summary page. The verdict is the heading, failing items
 * come first, and nothing an item's text holds (a pipe, a newline, markup) breaks the table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toMarkdown } from '../../src/gate/formats.js';
import type { Gate } from '../../src/gate/schema.js';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('the markdown summary: verdict heading, failing items first, cells that cannot break the table', () => {
  const gate: Gate = {
    schema: 'vkit.gate/1',
    status: 'REJECTED',
    reason: '1 required item failed',
    items: [
      { id: 'check:a', required: true, status: 'PASS', reason: '', run: 'run_1' },
      {
        id: 'check:b',
        required: true,
        status: 'FAIL',
        reason: 'exit 1 | expected 0\n<script>x</script>',
        run: 'run_2',
      },
      { id: 'check:c', required: false, status: 'BLOCKED', reason: 'no sandbox', run: null },
    ],
  };
  const md = toMarkdown(gate);
  const lines = md.split('\n');
  assert.equal(lines[0], '## vkit gate: ❌ REJECTED');
  const rows = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| status'));
  assert.deepEqual(
    rows.map((r) => r.split(' | ')[1]),
    ['check:b', 'check:c', 'check:a'],
  );
  // Every row has exactly the table's four cells: the reason's pipe and newline are escaped, no raw HTML.
  for (const r of rows) assert.equal(r.split(/(?<!\\)\|/).length - 2, 4, r);
  assert.ok(!md.includes('<script>'), md);
  assert.match(md, /exit 1 \\\| expected 0 \\<script\\>x\\<\/script\\>/);
});

test('vkit gate --format markdown exits with the gate, and an unknown format names markdown', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({ checks: [{ id: 'bad', run: nodeCheck('process.exit(1)'), inputs: ['a.txt'] }] });
  try {
    assert.equal(cli(repo, ['build']).code, 1);
    const r = cli(repo, ['gate', '--format', 'markdown']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^## vkit gate: ❌ REJECTED\n/);
    assert.match(r.stdout, /\| ❌ FAIL \| check:bad \| yes \|/);
    const bad = cli(repo, ['gate', '--format', 'html']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr + bad.stdout, /sarif, junit or markdown/);
  } finally {
    repo.cleanup();
  }
});
