/**
 * What CI systems accept: `gate --format sarif` validates against the SARIF 2.1.0 schema and every
 * result points at the line of its check's entry in the config (a code-scanning upload refuses a
 * result without a location); `--format junit` carries a failing check's log tail as the failure's
 * body; no terminal escape reaches SARIF, JUnit or a build's JSON, whatever the check printed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';
import { sarifErrors } from '../_support/sarif.js';

const ESC = '\u001b';

test('SARIF validates and locates every result on its entry; JUnit failures carry the log tail; no escapes anywhere', () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.age('a.txt');
  repo.age('b.txt');
  repo.manifest({
    checks: [
      { id: 'fine', run: nodeCheck('0'), inputs: ['a.txt'] },
      {
        id: 'broken',
        // What a test runner prints on a terminal: colours, a title escape, a carriage return.
        run: nodeCheck(
          "console.log('\\u001b[31mAssertionError: expected 1 to equal 2\\u001b[39m');console.error('\\u001b]0;title\\u0007at test.js:3\\r');process.exit(1)",
        ),
        inputs: ['b.txt'],
      },
    ],
  });
  try {
    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 1);
    const tail = built.json().actions.find((a: { label: string }) => a.label === 'check:broken').tail as string[];
    assert.ok(tail.includes('AssertionError: expected 1 to equal 2'), tail.join('\n'));
    assert.ok(!built.stdout.includes(ESC) && !built.stdout.includes('\\u001b'), built.stdout);

    const manifestLines = readFileSync(join(repo.dir, 'vkit.manifest.json'), 'utf8').split('\n');
    const lineOf = (id: string) => manifestLines.findIndex((l) => l.includes(`"id": "${id}"`)) + 1;
    const sarif = cli(repo, ['gate', '--format', 'sarif']);
    assert.equal(sarif.code, 1);
    const doc = sarif.json();
    assert.equal(sarifErrors(doc), undefined);
    const results = doc.runs[0].results as any[];
    for (const [id, line] of [
      ['check:fine', lineOf('fine')],
      ['check:broken', lineOf('broken')],
    ] as const) {
      const r = results.find((x) => x.ruleId === id);
      const where = r.locations[0].physicalLocation;
      assert.equal(where.artifactLocation.uri, 'vkit.manifest.json');
      assert.ok(line > 1);
      assert.equal(where.region.startLine, line, `${id}: the line of its entry`);
    }
    for (const r of results) assert.ok(r.locations?.length === 1, `every result has a location: ${r.ruleId}`);
    const broken = results.find((x) => x.ruleId === 'check:broken');
    assert.match(broken.message.text, /AssertionError: expected 1 to equal 2/);
    assert.ok(!JSON.stringify(doc).includes('\\u001b') && !sarif.stdout.includes(ESC), sarif.stdout);
    assert.ok(!('informationUri' in doc.runs[0].tool.driver), 'no made-up home page');

    const junit = cli(repo, ['gate', '--format', 'junit']);
    assert.equal(junit.code, 1);
    const failure = /<failure message="[^"]*">([^<]*)<\/failure>/.exec(junit.stdout);
    assert.ok(failure, junit.stdout);
    assert.match(failure[1]!, /AssertionError: expected 1 to equal 2\nat test\.js:3/);
    assert.ok(!junit.stdout.includes(ESC) && !junit.stdout.includes('\r'), junit.stdout);
  } finally {
    repo.cleanup();
  }
});
