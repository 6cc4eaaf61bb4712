/**
 * A check's declared outputs on disk must be the ones its receipt names for its item to pass: a
 * sibling that rewrites them during the build, or a hand that edits or deletes them afterwards,
 * leaves evidence for bytes that are no longer there. Neither that build nor the next `gate` may be
 * READY, and the reason names the output file.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';

interface Item {
  id: string;
  status: string;
  reason: string;
}

const writeA = nodeCheck(
  "const fs=require('fs');fs.mkdirSync('out',{recursive:true});fs.writeFileSync('out/a.txt','from a\\n')",
);

/** `a` declares out/a.txt; `b`, after it, overwrites that file (a config mistake vkit must not hide). */
function siblingRewrites(): TempRepo {
  const repo = tempRepo({ '.gitignore': 'out/\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.manifest({
    checks: [
      { id: 'a', run: writeA, inputs: ['a.txt'], outputs: ['out/a.txt'] },
      {
        id: 'b',
        after: ['a'],
        run: nodeCheck("require('fs').writeFileSync('out/a.txt','from b\\n')"),
        inputs: ['b.txt'],
      },
    ],
  });
  return repo;
}

const itemOf = (items: Item[], id: string) => items.find((i) => i.id === id)!;

test("a check's declared output rewritten by a sibling: neither that build nor the next gate is READY, and both name the file", () => {
  const repo = siblingRewrites();
  try {
    const built = cli(repo, ['build', '--json']);
    assert.equal(readFileSync(join(repo.dir, 'out/a.txt'), 'utf8'), 'from b\n', 'b did overwrite a’s output');
    const report = built.json();
    assert.deepEqual(
      report.actions.map((a: { label: string; status: string }) => `${a.label}:${a.status}`),
      ['check:a:ran', 'check:b:ran'],
    );
    assert.equal(report.gate.status, 'BLOCKED', JSON.stringify(report.gate));
    assert.equal(built.code, 3);
    const a = itemOf(report.gate.items, 'check:a');
    assert.equal(a.status, 'STALE');
    assert.match(a.reason, /out\/a\.txt changed/);
    assert.match(a.reason, /check:b/, 'the reason names the check that ran since');
    // The dependent stands on a's result, which the tree no longer holds: as the next gate says.
    assert.equal(itemOf(report.gate.items, 'check:b').status, 'BLOCKED');

    const gate = cli(repo, ['gate']);
    assert.equal(gate.code, 3, gate.stdout);
    assert.match(gate.stdout, /gate BLOCKED/);
    assert.match(gate.stdout, /STALE\s+check:a\s+.*out\/a\.txt changed/);
    const json = cli(repo, ['gate', '--json']).json();
    assert.equal(json.status, 'BLOCKED');
    assert.equal(itemOf(json.items, 'check:a').status, 'STALE');
    assert.match(itemOf(json.items, 'check:a').reason, /out\/a\.txt changed/);
    assert.deepEqual(
      json.items.map((i: Item) => i.status),
      report.gate.items.map((i: Item) => i.status),
      'the build ended where the next gate stands',
    );

    // The next build reruns a (its output on disk is not its evidence's), which puts it back; b's
    // key holds a's unchanged result, so b's evidence stands and does not run to overwrite it again.
    const again = cli(repo, ['build', '--json']);
    assert.equal(again.code, 0, again.stdout);
    assert.deepEqual(
      again.json().actions.map((x: { status: string }) => x.status),
      ['ran', 'cached'],
    );
    assert.equal(readFileSync(join(repo.dir, 'out/a.txt'), 'utf8'), 'from a\n');
    assert.equal(cli(repo, ['gate']).code, 0);
  } finally {
    repo.cleanup();
  }
});

test('a declared output deleted or edited by hand after a READY build: the gate is BLOCKED naming it, the build puts it back', () => {
  const repo = tempRepo({ '.gitignore': 'out/\n', 'a.txt': 'a\n', 'c.txt': 'c\n' });
  repo.manifest({
    checks: [
      { id: 'a', run: writeA, inputs: ['a.txt'], outputs: ['out/a.txt'] },
      { id: 'c', run: nodeCheck('0'), inputs: ['c.txt'] },
    ],
  });
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    assert.equal(cli(repo, ['gate']).code, 0);
    for (const [disturb, said] of [
      [() => rmSync(join(repo.dir, 'out/a.txt')), /out\/a\.txt is missing/],
      [() => writeFileSync(join(repo.dir, 'out/a.txt'), 'by hand\n'), /out\/a\.txt changed/],
    ] as const) {
      disturb();
      const gate = cli(repo, ['gate', '--json']);
      assert.equal(gate.code, 3, gate.stdout);
      const json = gate.json();
      assert.equal(json.status, 'BLOCKED');
      assert.equal(itemOf(json.items, 'check:a').status, 'STALE');
      assert.match(itemOf(json.items, 'check:a').reason, said);
      // A build of another check leaves a's item as the gate sees it: `--only` never narrows the status.
      const other = cli(repo, ['build', '--only', 'c', '--json']);
      assert.equal(other.code, 3, other.stdout);
      assert.match(other.json().gate.reason, /check:a/);
      assert.equal(cli(repo, ['build']).code, 0);
      assert.equal(readFileSync(join(repo.dir, 'out/a.txt'), 'utf8'), 'from a\n');
      assert.equal(cli(repo, ['gate']).code, 0);
    }
  } finally {
    repo.cleanup();
  }
});

test("a sibling with no order between them, writing the check's output over and over: the check runs alone, and the build is READY only on its own bytes", () => {
  const repo = tempRepo({ '.gitignore': 'out/\nlog.txt\n', 'a.txt': 'a\n', 'c.txt': 'c\n' });
  const stamp = (who: string, body: string) =>
    nodeCheck(
      `const fs=require('fs');fs.appendFileSync('log.txt','${who} start\\n');${body};fs.appendFileSync('log.txt','${who} end\\n')`,
    );
  repo.manifest({
    checks: [
      {
        id: 'a',
        run: stamp('a', "fs.mkdirSync('out',{recursive:true});fs.writeFileSync('out/a.txt','from a\\n')"),
        inputs: ['a.txt'],
        outputs: ['out/a.txt'],
      },
      {
        id: 'c',
        // Writes a's output for a second and a half: were a to run beside it, a's worker would
        // hash c's bytes as a's own.
        run: stamp(
          'c',
          "fs.mkdirSync('out',{recursive:true});const t=Date.now();while(Date.now()-t<1500)fs.writeFileSync('out/a.txt','from c\\n')",
        ),
        inputs: ['c.txt'],
      },
    ],
  });
  try {
    const built = cli(repo, ['build', '--jobs', '2', '--json']);
    const log = readFileSync(join(repo.dir, 'log.txt'), 'utf8').trim().split('\n');
    assert.equal(log.length, 4, log.join('; '));
    assert.equal(log[0]!.split(' ')[0], log[1]!.split(' ')[0], `a and c overlapped: ${log.join('; ')}`);
    const onDisk = readFileSync(join(repo.dir, 'out/a.txt'), 'utf8');
    const report = built.json();
    assert.equal(itemOf(report.gate.items, 'check:c').status, 'PASS', 'c does not depend on a');
    if (onDisk === 'from a\n') {
      // c ran first, a after it: a's output is its own.
      assert.deepEqual(log, ['c start', 'c end', 'a start', 'a end']);
      assert.equal(report.gate.status, 'READY', JSON.stringify(report.gate));
      assert.equal(cli(repo, ['gate']).code, 0);
    } else {
      // a ran first, c wrote over its output after: neither the build nor the gate is READY.
      assert.deepEqual(log, ['a start', 'a end', 'c start', 'c end']);
      assert.equal(report.gate.status, 'BLOCKED', JSON.stringify(report.gate));
      assert.match(itemOf(report.gate.items, 'check:a').reason, /out\/a\.txt changed while check:c ran/);
      assert.equal(cli(repo, ['gate']).code, 3);
    }
  } finally {
    repo.cleanup();
  }
});
