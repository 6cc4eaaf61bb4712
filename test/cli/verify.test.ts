/**
 * `vkit verify --check ID` is a fresh run every time; `--reuse` returns the intact identical
 * passing evidence instead. `vkit run show` reads a run's sections back from the store.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build, verify } from '../../src/service/index.js';
import { cli, openOpts } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('verify creates a new run each time; --reuse returns the previous PASS receipt and run', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('hello from a')"), inputs: ['a.txt'] }] });
    const v1 = cli(repo, ['verify', '--check', 'a', '--json']);
    assert.equal(v1.code, 0, v1.stderr);
    const first = v1.json().action;
    assert.equal(first.status, 'ran');
    assert.equal(first.outcome, 'PASS');

    const second = (await verify(openOpts(repo), { check: 'a' })).actions[0]!;
    assert.equal(second.status, 'ran');
    assert.notEqual(second.run, first.run, 'a fresh run each time');
    assert.notEqual(second.receipt, first.receipt);
    assert.equal(second.key, first.key);

    const reused = cli(repo, ['verify', '--check', 'a', '--reuse', '--json']);
    assert.equal(reused.code, 0);
    const r = reused.json().action;
    assert.equal(r.status, 'cached');
    assert.equal(r.run, second.run, 'the previous PASS run');
    assert.equal(r.receipt, second.receipt);

    // A plain build reuses the latest verify's evidence.
    const b = await build(openOpts(repo));
    assert.equal(b.actions[0]!.status, 'cached');
    assert.equal(b.actions[0]!.run, second.run);

    const unknown = cli(repo, ['verify', '--check', 'nope']);
    assert.equal(unknown.code, 2);
  } finally {
    repo.cleanup();
  }
});

test('verify --reuse never reuses a FAIL: the check runs again, exit 1', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'f', run: nodeCheck('process.exit(2)'), inputs: ['a.txt'] }] });
    const first = (await build(openOpts(repo))).actions[0]!;
    assert.equal(first.outcome, 'FAIL');
    const v = cli(repo, ['verify', '--check', 'f', '--reuse', '--json']);
    assert.equal(v.code, 1);
    assert.equal(v.json().action.status, 'failed');
    assert.notEqual(v.json().action.run, first.run);
  } finally {
    repo.cleanup();
  }
});

test('run show returns diagnostics, log lines and coverage "not applicable"', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [
        {
          id: 'f',
          run: nodeCheck("console.log('out 1'); console.log('out 2'); console.error('err 1'); process.exit(3)"),
          inputs: ['a.txt'],
        },
      ],
    });
    const run = (await build(openOpts(repo))).actions[0]!.run!;
    const shown = cli(repo, [
      'run',
      'show',
      '--run',
      run,
      '--section',
      'diagnostics',
      '--section',
      'log',
      '--section',
      'coverage',
      '--json',
    ]);
    assert.equal(shown.code, 0, shown.stderr);
    const s = shown.json();
    assert.equal(s.summary.run, run);
    assert.equal(s.summary.label, 'check:f');
    assert.equal(s.summary.state, 'done');
    assert.equal(s.summary.outcome, 'FAIL');
    assert.deepEqual(s.diagnostics, { outcome: 'FAIL', reason: 'exit code 3, expected 0', exit_code: 3, expected: 0 });
    assert.deepEqual(s.log.stdout.lines, ['out 1', 'out 2']);
    assert.deepEqual(s.log.stderr.lines, ['err 1']);
    assert.equal(s.coverage.applicable, false);
    assert.match(s.coverage.note, /not applicable/);
    assert.equal(s.artifacts, undefined, 'only the asked sections are returned');

    const runs = cli(repo, ['runs', '--json']);
    assert.equal(runs.code, 0);
    assert.deepEqual(
      runs.json().runs.map((r: { run: string }) => r.run),
      [run],
    );

    assert.equal(cli(repo, ['run', 'show', '--run', 'run_nope', '--json']).code, 2);
    assert.equal(cli(repo, ['run', 'show', '--run', run, '--section', 'bogus']).code, 2);
  } finally {
    repo.cleanup();
  }
});
