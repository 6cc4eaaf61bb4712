/**
 * `vkit report` on the command line without a browser: bad `--out` is exit 2 naming the flag and
 * what to do, before the gate's walk and with nothing written; a page is written for a gate with a
 * failing check, and the verb exits with the gate's own code; a run that fails leaves no earlier verdict.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

test("vkit report: --out refused with exit 2 (what, where, how); else the page, and the gate's exit code", () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({ checks: [{ id: 'broken', run: nodeCheck('process.exit(1)'), inputs: ['a.txt'] }] });
  try {
    const none = cli(repo, ['report']);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /--out: Expected --out DIR/);
    assert.match(none.stderr, /hint: Name a new or empty directory with --out/);
    const inStore = cli(repo, ['report', '--out', join(storeDir(repo), 'page')]);
    assert.equal(inStore.code, 2, inStore.stderr);
    assert.match(inStore.stderr, /outside the evidence store/);
    assert.ok(!existsSync(join(storeDir(repo), 'page')), 'nothing written in the store');
    const unknown = cli(repo, ['report', '--outt', 'x']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown flag `--outt`.*--out/);

    assert.equal(cli(repo, ['build']).code, 1);
    const out = join(repo.dir, 'report');
    const gate = cli(repo, ['gate']);
    const report = cli(repo, ['report', '--out', out]);
    assert.equal(report.code, gate.code, report.stderr);
    assert.match(report.stdout, /^vkit report: gate REJECTED: wrote .*report\/index\.html\n$/);
    assert.deepEqual(readdirSync(out), ['index.html']);
    assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /<h1>Gate: REJECTED<\/h1>/);
    // Written over: the directory holds only the earlier report.
    assert.equal(cli(repo, ['report', '--out', out]).code, gate.code);
    assert.deepEqual(readdirSync(out), ['index.html']);
  } finally {
    repo.cleanup();
  }
});

test('an earlier READY page never outlives a report that fails: DIR then says the report did not finish', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.age('a.txt');
  repo.manifest({ checks: [{ id: 'fine', run: nodeCheck('0'), inputs: ['a.txt'] }] });
  const out = join(repo.dir, 'report');
  const page = () => readFileSync(join(out, 'index.html'), 'utf8');
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    assert.equal(cli(repo, ['report', '--out', out]).code, 0);
    assert.match(page(), /<h1>Gate: READY<\/h1>/);
    repo.write('vkit.manifest.json', '{"checks": [');
    const failed = cli(repo, ['report', '--out', out]);
    assert.equal(failed.code, 2, failed.stderr);
    assert.doesNotMatch(page(), /Gate: READY/);
    assert.match(page(), /<h1>No gate: the report did not finish<\/h1>/);
    assert.deepEqual(readdirSync(out), ['index.html']);
  } finally {
    repo.cleanup();
  }
});
