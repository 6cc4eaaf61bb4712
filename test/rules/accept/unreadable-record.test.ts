/**
 * A record that cannot be read cannot back anything (acceptance-details.md §2, the fail-closed
 * reading beyond the format check). The format check keeps its warning for a missing record, but
 * coverage does not count a claim relying on it (the first failed reason names the record), the
 * package is not acceptable, and a decision whose satisfied dispositions rest on it is invalid
 * and never EFFECT-ELIGIBLE. Checked on temp copies of examples/weighted-toy and of the test trio.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, tempRepo, vkit } from '../../_support/repo.js';
import { CHECK_DECISION, TREE_FLAG, validTrio, writeTrio } from '../../_support/acceptance-docs.js';

const TOY = join(REPO_ROOT, 'examples', 'weighted-toy');
const SPEC = 'acceptance-specification.toml';
const PKG = 'acceptance.toml';
const DECIDE = ['acceptance', 'check-decision', 'acceptance-decision.toml', '--spec', SPEC, '--package', PKG];
/** Inside the toy decision's validity (issued 2026-11-30, stale_after 2027-05-29). */
const NOW = ['--effect', '--now', '2026-12-01'];

function toyCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-unreadable-'));
  cpSync(TOY, dir, { recursive: true });
  return dir;
}

function assertRecordBacksNothing(dir: string, record: string): void {
  const check = vkit(['acceptance', 'check', PKG, '--root', dir]);
  assert.equal(check.code, 0, `the format check keeps its warning only: ${check.stdout}${check.stderr}`);
  assert.match(check.stdout, new RegExp(`^WARN ${PKG}: .*record '${record}' does not exist or cannot be read`, 'm'));

  const cov = vkit(['acceptance', 'coverage', PKG, '--spec', SPEC, '--root', dir]);
  assert.equal(cov.code, 1, `coverage is not acceptable: ${cov.stdout}${cov.stderr}`);
  assert.match(cov.stdout, /^S-1: partial \[mandatory\] basis=\[\]$/m);
  assert.match(cov.stdout, new RegExp(`^  WT-1: evidence\\[0\\] record '${record}' cannot be read`, 'm'));
  assert.match(cov.stdout, /acceptable=false/);
  assert.doesNotMatch(cov.stdout, /S-1: satisfied/);

  const decision = vkit([...DECIDE, '--root', dir]);
  assert.equal(decision.code, 1, `the decision claims more than coverage: ${decision.stdout}${decision.stderr}`);
  assert.match(decision.stdout, /^DECISION INVALID/m);
  assert.match(decision.stdout, new RegExp(`'satisfied' but coverage computes partial.*record '${record}'`));

  const effect = vkit([...DECIDE, '--root', dir, ...NOW]);
  assert.equal(effect.code, 1, `never effect-eligible: ${effect.stdout}${effect.stderr}`);
  assert.match(effect.stdout, /^EFFECT-INELIGIBLE: /m);
  assert.doesNotMatch(effect.stdout, /^EFFECT-ELIGIBLE/m);
}

test('weighted-toy: a deleted evidence record backs nothing (coverage, decision, effect)', () => {
  const dir = toyCopy();
  try {
    const intact = vkit([...DECIDE, '--root', dir, ...NOW]);
    assert.equal(intact.code, 0, `the untouched copy is eligible: ${intact.stdout}${intact.stderr}`);
    rmSync(join(dir, 'evidence', 'slug-test-run.txt'));
    assertRecordBacksNothing(dir, 'evidence/slug-test-run.txt');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('weighted-toy: a record that is a directory, not a file, backs nothing either', () => {
  const dir = toyCopy();
  try {
    const rec = join(dir, 'evidence', 'slug-test-run.txt');
    rmSync(rec);
    mkdirSync(rec);
    assertRecordBacksNothing(dir, 'evidence/slug-test-run.txt');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('trio: a missing record of the mandatory claim leaves R1 partial, naming the record, while R2 stays satisfied', () => {
  const repo = tempRepo();
  try {
    const trio = validTrio();
    const { 'evidence/wt1-run.txt': _gone, ...files } = trio.files;
    writeTrio(repo.dir, { ...trio, files });
    const cov = vkit(['acceptance', 'coverage', PKG, '--spec', SPEC, ...TREE_FLAG('.'), '--root', repo.dir]);
    assert.equal(cov.code, 1, cov.stdout + cov.stderr);
    assert.match(cov.stdout, /^R1: partial \[mandatory\] basis=\[\]$/m);
    assert.match(cov.stdout, /^ {2}WT-1: evidence\[0\] record 'evidence\/wt1-run\.txt' cannot be read/m);
    assert.match(cov.stdout, /^R2: satisfied \[optional\] basis=\['WT-2'\]$/m);
    const eff = vkit([...CHECK_DECISION, ...TREE_FLAG('.'), '--root', repo.dir, '--effect', '--now', '2026-10-01']);
    assert.equal(eff.code, 1, eff.stdout + eff.stderr);
    assert.match(eff.stdout, /^EFFECT-INELIGIBLE: /m);
    // --strict makes the format check itself fail on the missing record, as before.
    const strict = vkit(['acceptance', 'check', PKG, '--strict', '--root', repo.dir]);
    assert.equal(strict.code, 1, strict.stdout);
  } finally {
    repo.cleanup();
  }
});

test('trio: a missing input file of a record backs nothing either (its digest cannot be recomputed)', () => {
  const repo = tempRepo();
  try {
    const trio = validTrio();
    const { 'slug/test/slug-test.js': _gone, ...files } = trio.files;
    writeTrio(repo.dir, { ...trio, files });
    const cov = vkit(['acceptance', 'coverage', PKG, '--spec', SPEC, ...TREE_FLAG('.'), '--root', repo.dir]);
    assert.equal(cov.code, 1, cov.stdout + cov.stderr);
    assert.match(cov.stdout, /^WARN acceptance\.toml: .*'test\/slug-test\.js' does not exist under the subject root/m);
    assert.match(cov.stdout, /^R1: partial \[mandatory\] basis=\[\]$/m);
    assert.match(cov.stdout, /^ {2}WT-1: evidence\[0\] inputs 'test\/slug-test\.js' cannot be read/m);
    assert.match(cov.stdout, /^R2: partial \[optional\] basis=\[\]$/m);
  } finally {
    repo.cleanup();
  }
});
