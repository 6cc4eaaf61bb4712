/**
 * The default run response and its sections, read back through the CLI from real runs: the summary
 * names the frozen job's identities (also while it still runs), its next action follows the state,
 * counts without a receipt leave total and unknown null, and logs and artifact lists are paged and
 * bounded. `vkit verify --wait` that times out says `running`, never a provisional `blocked`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cancelRun, verify } from '../../src/service/index.js';
import { cli, openOpts } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test('run show: identities from the frozen job, next action by state, artifacts and log paged and bounded', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  const many =
    "const fs = require('fs'); fs.mkdirSync('out', { recursive: true }); for (let i = 0; i < 250; i++) fs.writeFileSync('out/f' + String(i).padStart(3, '0'), String(i)); console.log('x'.repeat(5000)); console.log('short')";
  repo.manifest({
    checks: [
      { id: 'many', run: nodeCheck(many), inputs: ['a.txt'], outputs: ['out/*'] },
      { id: 'bad', run: nodeCheck('process.exit(1)'), inputs: ['a.txt'] },
      { id: 'slow', run: nodeCheck('setTimeout(() => {}, 30000)'), inputs: ['a.txt'], timeout_s: 60 },
    ],
  });
  try {
    const done = (await verify(openOpts(repo), { check: 'many' })).actions[0]!;
    assert.equal(done.outcome, 'PASS', done.reason ?? '');
    const shown = cli(repo, [
      'run',
      'show',
      '--run',
      done.run!,
      '--section',
      'artifacts',
      '--section',
      'log',
      '--section',
      'provenance',
      '--json',
    ]);
    assert.equal(shown.code, 0, shown.stderr);
    const s = shown.json();
    const prov = s.provenance;
    assert.deepEqual(s.summary.identities, {
      job: done.key,
      source: prov.capture.digest,
      policy: prov.policy_sha256,
      package: null,
      checker: prov.checker.sha256,
    });
    assert.equal(s.summary.next, 'nothing to do');
    assert.deepEqual(s.summary.obligations, { total: 1, passed: 1, failed: 0, blocked: 0, unknown: 0 });

    // 250 outputs plus stdout and stderr: three pages of at most 100.
    assert.equal(s.artifacts.total, 252);
    assert.equal(s.artifacts.pages, 3);
    assert.equal(s.artifacts.page, 1);
    assert.equal(s.artifacts.items.length, 100);
    assert.ok(s.artifacts.items.every((a: { state: string }) => a.state === 'intact'));
    const last = cli(repo, [
      'run',
      'show',
      '--run',
      done.run!,
      '--section',
      'artifacts',
      '--page',
      '3',
      '--json',
    ]).json();
    assert.equal(last.artifacts.items.length, 52);
    const names = new Set([...s.artifacts.items, ...last.artifacts.items].map((a: { name: string }) => a.name));
    assert.equal(names.size, 152, 'pages do not overlap');

    // A 5,000-character line is cut to 4,000 (plus the mark) and counted; the artifact keeps it whole.
    assert.equal(s.log.stdout.lines.length, 2);
    assert.equal(s.log.stdout.lines[0].length, 4001);
    assert.equal(s.log.stdout.lines[1], 'short');
    assert.equal(s.log.stdout.lines_cut, 1);

    const failed = (await verify(openOpts(repo), { check: 'bad' })).actions[0]!;
    const f = cli(repo, ['run', 'show', '--run', failed.run!, '--json']).json();
    assert.equal(f.summary.outcome, 'FAIL');
    assert.match(f.summary.next, new RegExp(`^vkit run show --run ${failed.run} .*vkit verify --check bad$`));

    // Still running: identities are known (from the frozen job), counts have no denominator, next is to wait.
    const pending = (await verify(openOpts(repo), { check: 'slow', waitMs: 100 })).actions[0]!;
    assert.equal(pending.pending, true);
    const r = cli(repo, ['run', 'show', '--run', pending.run!, '--json']).json();
    assert.ok(['queued', 'running'].includes(r.summary.state), r.summary.state);
    assert.equal(r.summary.identities.job, pending.key);
    assert.match(r.summary.identities.source, /^sha256:/);
    assert.match(r.summary.identities.checker, /^sha256:/);
    assert.deepEqual(r.summary.obligations, { total: null, passed: 0, failed: 0, blocked: 0, unknown: null });
    assert.equal(r.summary.next, `vkit run wait --run ${pending.run}`);

    const cancelled = await cancelRun(openOpts(repo), pending.run!);
    assert.equal(cancelled.summary.state, 'interrupted');
    assert.equal(cancelled.summary.next, 'vkit verify --check slow');
  } finally {
    repo.cleanup();
  }
});

test('vkit verify --wait that times out prints the run id and `running` (no `blocked` line) and exits 3; runs --limit is checked', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({
    checks: [
      { id: 'slow', run: nodeCheck('setTimeout(() => {}, 2000)'), inputs: ['a.txt'] },
      { id: 'fast', run: nodeCheck('0'), inputs: ['a.txt'] },
    ],
  });
  try {
    const timedOut = cli(repo, ['verify', '--check', 'slow', '--wait', '0.2']);
    assert.equal(timedOut.code, 3, timedOut.stderr);
    assert.match(timedOut.stdout, /^run run_[0-9a-z]+ running: the wait timed out; the worker continues/m);
    assert.doesNotMatch(timedOut.stdout, /blocked/, timedOut.stdout);

    const fast = cli(repo, ['verify', '--check', 'fast']);
    assert.equal(fast.code, 0, fast.stderr);
    assert.match(fast.stdout, /^ran\s+check:fast /m, 'a run that ended within the wait still gets its line');

    for (const bad of ['abc', '0', '501', '1.5']) {
      const r = cli(repo, ['runs', '--limit', bad]);
      assert.equal(r.code, 2, `--limit ${bad}: ${r.stderr}`);
      assert.match(r.stderr, /--limit/);
    }
    const one = cli(repo, ['runs', '--limit', '1', '--json']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.json().runs.length, 1);
  } finally {
    repo.cleanup();
  }
});
