/**
 * A dependent's key holds its dependency's result, including the digests of the dependency's
 * outputs. A cache hit does not rewrite those outputs on disk, so the files a dependent reads may
 * be another run's. A dependent run against them must not be recorded (and cached) as a PASS for
 * the dependency result its key names: that is a READY gate for inputs that really fail.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo, type TempRepo } from '../_support/repo.js';

/** A "builds" dist/v.txt from src/v.txt (a declared output); B, after A, passes only if the built file is good. */
function buildAndTest(): TempRepo {
  const repo = tempRepo({ '.gitignore': 'dist/\n', 'test.txt': 't\n', 'src/v.txt': 'good\n' });
  repo.manifest({
    checks: [
      {
        id: 'A',
        run: [
          'node',
          '-e',
          "const fs=require('fs');fs.mkdirSync('dist',{recursive:true});fs.copyFileSync('src/v.txt','dist/v.txt')",
        ],
        inputs: ['src/v.txt'],
        outputs: ['dist/v.txt'],
      },
      {
        id: 'B',
        after: ['A'],
        run: ['node', '-e', "process.exit(require('fs').readFileSync('dist/v.txt','utf8')==='good\\n'?0:1)"],
        inputs: ['test.txt'],
      },
    ],
  });
  return repo;
}

test("a dependent run against outputs that are not its dependency's recorded ones is BLOCKED, never a PASS for them", () => {
  const repo = buildAndTest();
  try {
    assert.equal(cli(repo, ['build']).code, 0); // good: both pass
    repo.write('src/v.txt', 'bad\n');
    assert.equal(cli(repo, ['build']).code, 1); // bad: A builds dist from it, B fails
    repo.write('src/v.txt', 'good\n');
    assert.equal(cli(repo, ['verify', '--check', 'A']).code, 0); // dist/v.txt on disk is good again
    repo.write('src/v.txt', 'bad\n');
    // A is a cache hit for "bad" (its result names the bad dist/v.txt), but the good one is on disk.
    assert.equal(readFileSync(join(repo.dir, 'dist', 'v.txt'), 'utf8'), 'good\n');
    const verified = cli(repo, ['verify', '--check', 'B', '--json']);
    assert.notEqual(verified.code, 0, `B ran against outputs A's current result does not name: ${verified.stdout}`);
    const gate = cli(repo, ['build', '--json']);
    assert.notEqual(gate.json().gate.status, 'READY', 'src/v.txt is bad: the gate must not be READY');
  } finally {
    repo.cleanup();
  }
});

test('a build reruns a cached action whose declared outputs on disk were removed or changed, putting them back', () => {
  const repo = buildAndTest();
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    const statusOf = (r: ReturnType<typeof cli>, label: string) =>
      r.json().actions.find((a: { label: string }) => a.label === label)?.status;
    const noop = cli(repo, ['build', '--json']);
    assert.deepEqual([statusOf(noop, 'check:A'), statusOf(noop, 'check:B')], ['cached', 'cached']);
    for (const disturb of [
      () => rmSync(join(repo.dir, 'dist', 'v.txt')),
      () => writeFileSync(join(repo.dir, 'dist', 'v.txt'), 'stale\n'),
    ]) {
      disturb();
      const again = cli(repo, ['build', '--json', '--explain']);
      assert.equal(again.code, 0, again.stdout);
      assert.deepEqual(
        [statusOf(again, 'check:A'), statusOf(again, 'check:B')],
        ['ran', 'cached'],
        'A reran; B kept its evidence (same result of A)',
      );
      assert.match(
        JSON.stringify(again.json().actions.find((a: { label: string }) => a.label === 'check:A').explain),
        /outputs on disk/,
      );
      assert.equal(readFileSync(join(repo.dir, 'dist', 'v.txt'), 'utf8'), 'good\n', 'the output is back');
    }
    // `vkit gate` runs nothing: A's evidence stays intact, but no longer stands for the tree, whose
    // dist/v.txt is gone; B, which read it, is held back with it.
    rmSync(join(repo.dir, 'dist', 'v.txt'));
    const gate = cli(repo, ['gate', '--json']);
    assert.equal(gate.code, 3, gate.stdout);
    assert.deepEqual(
      gate.json().items.map((i: { status: string; reason: string }) => `${i.status}: ${i.reason}`),
      [
        'STALE: its outputs on disk are not the ones its evidence names: dist/v.txt is missing; run vkit build',
        'BLOCKED: dependency check:A is STALE',
      ],
    );
  } finally {
    repo.cleanup();
  }
});
