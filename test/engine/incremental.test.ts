/**
 * Incrementality: what a build reruns, and why. No-op builds run and hash nothing; adding an
 * unrelated check reruns nothing; a one-file edit reruns exactly the checks that read it and their
 * `after` dependents; `--explain` names what changed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build, type BuildRequest } from '../../src/service/index.js';
import type { BuildReport } from '../../src/engine/schema.js';
import { cli, openOpts } from '../_support/evidence.js';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';

const readCheck = (id: string, inputs: string[], extra: Record<string, unknown> = {}) => ({
  id,
  run: nodeCheck(
    `for (const f of ${JSON.stringify(inputs.filter((i) => !/[*?{[]/.test(i)))}) require('fs').readFileSync(f)`,
  ),
  inputs,
  ...extra,
});

function byLabel(report: BuildReport) {
  return Object.fromEntries(report.actions.map((a) => [a.label, a]));
}

async function buildIn(repo: TempRepo, req: BuildRequest = {}) {
  return build(openOpts(repo), req);
}

function withRepo(files: Record<string, string>, fn: (repo: TempRepo) => Promise<void>) {
  return async () => {
    const repo = tempRepo(files);
    try {
      for (const f of Object.keys(files)) repo.age(f);
      await fn(repo);
    } finally {
      repo.cleanup();
    }
  };
}

test(
  'no-op build runs nothing and re-hashes nothing',
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'lib/c.txt': 'c\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt']), readCheck('bc', ['b.txt', 'lib/*.txt'])] });
    const first = await buildIn(repo);
    assert.equal(first.gate.status, 'READY');
    assert.deepEqual(
      first.actions.map((a) => a.status),
      ['ran', 'ran'],
    );
    assert.equal(first.stats.ran, 2);
    assert.equal(first.stats.hashed, 3, 'the first build hashes each input once');

    const second = await buildIn(repo);
    assert.deepEqual(
      second.actions.map((a) => a.status),
      ['cached', 'cached'],
    );
    assert.equal(second.stats.ran, 0);
    assert.equal(second.stats.cached, 2);
    assert.equal(second.stats.hashed, 0, 'aged, unchanged files are never re-hashed');
    assert.equal(second.stats.reused_hashes, 3);
    assert.deepEqual(
      second.actions.map((a) => a.key),
      first.actions.map((a) => a.key),
    );
    assert.deepEqual(
      second.actions.map((a) => a.run),
      first.actions.map((a) => a.run),
      'cached actions point at the runs that produced them',
    );
    assert.equal(second.gate.status, 'READY');
  }),
);

test(
  'a file modified within the racy window is re-hashed on the next build, and still cached',
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt'])] });
    repo.write('a.txt', 'a\n'); // fresh mtime: racily clean when recorded
    await buildIn(repo);
    const second = await buildIn(repo);
    assert.equal(second.stats.hashed, 1);
    assert.equal(second.actions[0]!.status, 'cached');
  }),
);

test(
  'a digest learnt by a capture alone (no check ran) is recorded: the next build reuses it',
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('ab', ['a.txt', 'b.txt'])] });
    await buildIn(repo);
    // New stat fingerprints, same bytes: the capture re-hashes both, the key is unchanged, nothing runs.
    repo.write('a.txt', 'a\n');
    repo.write('b.txt', 'b\n');
    repo.age('a.txt');
    repo.age('b.txt');
    const second = await buildIn(repo);
    assert.equal(second.actions[0]!.status, 'cached');
    assert.equal(second.stats.hashed, 2);
    // Recorded by the build's grouped write, not by a worker (none ran).
    const third = await buildIn(repo);
    assert.equal(third.stats.hashed, 0);
    assert.equal(third.stats.reused_hashes, 2);
  }),
);

test(
  'an edit that keeps the size and puts the mtime back is seen by its ctime: re-hashed and run, never reused (D59)',
  withRepo({ 'a.txt': 'aaaa\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt'])] });
    const first = await buildIn(repo);
    const file = join(repo.dir, 'a.txt');
    const { mtimeNs } = statSync(file, { bigint: true });
    writeFileSync(file, 'bbbb\n');
    const mtime = `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`;
    assert.equal(spawnSync('touch', ['-m', '-d', mtime, file]).status, 0);
    assert.equal(statSync(file, { bigint: true }).mtimeNs, mtimeNs, 'the mtime is put back to the nanosecond');
    const second = await buildIn(repo);
    assert.equal(second.stats.hashed, 1, 'the capture re-hashed the edited file');
    assert.equal(second.actions[0]!.status, 'ran');
    assert.notEqual(second.actions[0]!.key, first.actions[0]!.key);
  }),
);

test(
  'adding an unrelated check reruns none of the existing ones',
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'd.txt': 'd\n' }, async (repo) => {
    const checks = [readCheck('a', ['a.txt']), readCheck('b', ['b.txt'], { after: ['a'] })];
    repo.manifest({ checks });
    const first = byLabel(await buildIn(repo));
    repo.manifest({ checks: [...checks, readCheck('d', ['d.txt'])] });
    const report = await buildIn(repo);
    const second = byLabel(report);
    assert.equal(second['check:a']!.status, 'cached');
    assert.equal(second['check:b']!.status, 'cached');
    assert.equal(second['check:a']!.key, first['check:a']!.key);
    assert.equal(second['check:b']!.key, first['check:b']!.key);
    assert.equal(second['check:d']!.status, 'ran');
    assert.equal(report.stats.ran, 1);
    assert.equal(report.gate.status, 'READY');
    assert.equal(report.gate.items.length, 3);
  }),
);

test(
  'a check after one that ran captures its inputs after it: what the job wrote is what its key stands on (D54)',
  withRepo({ 'src/v.txt': 'v1\n', 'out.txt': 'v1\n' }, async (repo) => {
    repo.manifest({
      checks: [
        {
          id: 'gen',
          run: ['node', '-e', "require('fs').copyFileSync('src/v.txt', 'out.txt')"],
          inputs: ['src/v.txt'],
          outputs: ['out.txt'],
        },
        readCheck('use', ['out.txt'], { after: ['gen'] }),
      ],
    });
    const first = byLabel(await buildIn(repo));
    assert.equal(first['check:use']!.status, 'ran');
    repo.write('src/v.txt', 'v2\n');
    const second = byLabel(await buildIn(repo));
    assert.equal(second['check:gen']!.status, 'ran');
    // Captured before gen ran, out.txt would still hold v1 and use's key be the first build's.
    assert.equal(second['check:use']!.status, 'ran', 'use must see the out.txt gen rewrote');
    assert.notEqual(second['check:use']!.key, first['check:use']!.key);
  }),
);

test(
  'checks no job precedes are captured once, before anything runs, even when evaluated after a job was queued (D54)',
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' }, async (repo) => {
    repo.manifest({ checks: ['a', 'b', 'c', 'd'].map((id) => readCheck(id, [`${id}.txt`])) });
    await buildIn(repo);
    repo.write('a.txt', 'a edited\n');
    const report = await buildIn(repo);
    assert.deepEqual(
      report.actions.map((a) => a.status),
      ['ran', 'cached', 'cached', 'cached'],
    );
    // a is evaluated first and queues its job; b, c and d keep the capture taken before it.
    assert.equal(report.stats.hashed + report.stats.reused_hashes, 4, JSON.stringify(report.stats));
  }),
);

test(
  'a check with an edited input is evaluated first: its job is queued before the unchanged checks are looked up',
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' }, async (repo) => {
    repo.manifest({ checks: ['a', 'b', 'c', 'd'].map((id) => readCheck(id, [`${id}.txt`])) });
    await buildIn(repo);
    repo.write('d.txt', 'd edited\n');
    const seen: string[] = [];
    const report = await buildIn(repo, {
      onEvent: (e) => {
        if (e.type === 'action.queued' || e.type === 'action.cached') seen.push(`${e.type} ${e.label}`);
      },
    });
    assert.deepEqual(seen, [
      'action.queued check:d',
      'action.cached check:a',
      'action.cached check:b',
      'action.cached check:c',
    ]);
    // The report keeps the graph's order.
    assert.deepEqual(
      report.actions.map((a) => `${a.label} ${a.status}`),
      ['check:a cached', 'check:b cached', 'check:c cached', 'check:d ran'],
    );
  }),
);

test(
  'a one-file edit reruns only the checks that read it and their after dependents',
  withRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'shared.txt': 's\n' }, async (repo) => {
    repo.manifest({
      checks: [
        readCheck('a', ['a.txt']),
        readCheck('b', ['b.txt', 'shared.txt']),
        readCheck('c', ['c.txt'], { after: ['a'] }),
        readCheck('d', ['shared.txt']),
        readCheck('e', ['c.txt'], { after: ['c'] }),
      ],
    });
    const first = byLabel(await buildIn(repo));

    repo.write('a.txt', 'a edited\n');
    const report = await buildIn(repo);
    const second = byLabel(report);
    // a read the file; c runs after a; e runs after c.
    assert.equal(second['check:a']!.status, 'ran');
    assert.equal(second['check:c']!.status, 'ran');
    assert.equal(second['check:e']!.status, 'ran');
    assert.equal(second['check:b']!.status, 'cached');
    assert.equal(second['check:d']!.status, 'cached');
    assert.equal(report.stats.ran, 3);
    // c's own inputs did not change: only its dependency's result moved its key.
    assert.notEqual(second['check:a']!.key, first['check:a']!.key);
    assert.notEqual(second['check:c']!.key, first['check:c']!.key);
    assert.notEqual(second['check:e']!.key, first['check:e']!.key);
    assert.equal(second['check:b']!.key, first['check:b']!.key);

    repo.write('shared.txt', 's edited\n');
    const third = byLabel(await buildIn(repo, { explain: true }));
    assert.deepEqual(
      Object.entries(third)
        .filter(([, a]) => a.status === 'ran')
        .map(([l]) => l)
        .sort(),
      ['check:b', 'check:d'],
    );
    assert.ok(
      third['check:b']!.explain?.includes('files changed: shared.txt'),
      JSON.stringify(third['check:b']!.explain),
    );
  }),
);

test(
  "a dependency's result enters the dependent's key and --explain names it",
  withRepo({ 'a.txt': 'a\n', 'c.txt': 'c\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt']), readCheck('c', ['c.txt'], { after: ['a'] })] });
    const first = byLabel(await buildIn(repo));
    repo.write('a.txt', 'a2\n');
    const second = byLabel(await buildIn(repo, { explain: true }));
    assert.notEqual(second['check:c']!.key, first['check:c']!.key);
    const why = second['check:c']!.explain ?? [];
    assert.equal(why.length, 1, JSON.stringify(why));
    assert.match(why[0]!, /^dependency changed: check:a \(PASS /);
    // Restoring a's bytes restores both keys: the old evidence is reused, nothing reruns.
    repo.write('a.txt', 'a\n');
    const third = byLabel(await buildIn(repo));
    assert.equal(third['check:a']!.status, 'cached');
    assert.equal(third['check:c']!.status, 'cached');
    assert.equal(third['check:c']!.key, first['check:c']!.key);
  }),
);

test(
  'a dependency that is not PASS blocks its dependent without running it',
  withRepo({ 'a.txt': 'a\n', 'c.txt': 'c\n' }, async (repo) => {
    repo.manifest({
      checks: [
        { id: 'a', run: nodeCheck('process.exit(1)'), inputs: ['a.txt'] },
        readCheck('c', ['c.txt'], { after: ['a'] }),
      ],
    });
    const report = await buildIn(repo);
    const r = byLabel(report);
    assert.equal(r['check:a']!.status, 'failed');
    assert.equal(r['check:c']!.status, 'blocked');
    assert.equal(r['check:c']!.run, null);
    assert.match(r['check:c']!.reason ?? '', /dependency check:a is FAIL/);
    assert.equal(report.gate.status, 'REJECTED');
  }),
);

test(
  '--explain says "no previous evidence" first, then names the changed file',
  withRepo({ 'src/x.js': 'x\n', 'src/y.js': 'y\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('js', ['src/*.js'])] });
    const first = await buildIn(repo, { explain: true });
    assert.deepEqual(first.actions[0]!.explain, ['no previous evidence']);
    repo.write('src/x.js', 'x edited\n');
    const second = await buildIn(repo, { explain: true });
    assert.equal(second.actions[0]!.status, 'ran');
    assert.deepEqual(second.actions[0]!.explain, ['files changed: src/x.js']);

    repo.write('src/z.js', 'z\n');
    repo.write('src/x.js', 'x\n');
    const cliRun = cli(repo, ['build', '--explain']);
    assert.equal(cliRun.code, 0, cliRun.stderr);
    assert.match(cliRun.stdout, /why: files added: src\/z\.js/);
    assert.match(cliRun.stdout, /why: files changed: src\/x\.js/);
    assert.match(cliRun.stdout, /^ran\s+check:js/m);
  }),
);

test(
  '--force reruns everything even with intact evidence',
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt'])] });
    const first = await buildIn(repo);
    const forced = await buildIn(repo, { force: true, explain: true });
    assert.equal(forced.actions[0]!.status, 'ran');
    assert.notEqual(forced.actions[0]!.run, first.actions[0]!.run);
    assert.equal(forced.actions[0]!.key, first.actions[0]!.key);
    assert.deepEqual(forced.actions[0]!.explain, ['a fresh run was asked for']);
  }),
);

test(
  'a cached action event carries how long the run that made its evidence took (ran_ms), its own ms is 0',
  withRepo({ 'a.txt': 'a\n' }, async (repo) => {
    repo.manifest({ checks: [readCheck('a', ['a.txt'])] });
    const first = await buildIn(repo);
    const ranMs = first.actions.find((a) => a.label === 'check:a')!.ms;
    const cachedEvents: { ms: number; ran_ms?: number }[] = [];
    await buildIn(repo, {
      onEvent: (e) => {
        if (e.type === 'action.cached') cachedEvents.push({ ms: e.ms, ran_ms: e.ran_ms });
      },
    });
    assert.equal(cachedEvents.length, 1);
    assert.equal(cachedEvents[0]!.ms, 0);
    assert.equal(typeof cachedEvents[0]!.ran_ms, 'number');
    assert.equal(cachedEvents[0]!.ran_ms, ranMs, 'the receipt timing of the first run');
  }),
);
