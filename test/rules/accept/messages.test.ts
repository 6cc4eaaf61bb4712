/**
 * Messages that must say what is wrong: a weight refused because the claim has an error of its
 * own names that error; a changed digest shows where the recorded and presented digests first
 * differ (a 16-hex prefix is identical when the change is late in the digest).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestsDiffer } from '../../../rules/accept/lib/digests.js';
import {
  edit,
  m11,
  rebind,
  TRIO_PATHS,
  type Trio,
  committedRepo,
  type CommittedRepo,
} from '../../_support/acceptance-docs.js';

const { spec: SPEC, pkg: PKG, decision: DECISION } = TRIO_PATHS;

/** `check` over a committed repository holding `make(the valid trio)`. */
function withRepo(make: (t: Trio) => Trio, check: (repo: CommittedRepo) => void): void {
  const repo = committedRepo(make);
  try {
    check(repo);
  } finally {
    repo.cleanup();
  }
}

/** `digest` with its last hex digit changed. */
const lastDigitChanged = (digest: string) => digest.slice(0, -1) + (digest.at(-1) === '0' ? '1' : '0');

test('a weight lost to an unrelated unknown key names the key, not "not granted"', () => {
  withRepo(
    (t) => rebind({ ...t, pkg: edit(t.pkg, 'clause = "R1"\n', 'clause = "R1"\nreviewer = "someone"\n') }),
    (repo) => {
      const line = repo.trio.pkg.split('\n').findIndex((l) => l.startsWith('reviewer = ')) + 1;
      const r = repo.run('coverage', PKG, '--spec', SPEC);
      assert.equal(r.code, 1, r.stdout);
      assert.doesNotMatch(r.stdout, /not granted/);
      assert.match(
        r.stdout,
        new RegExp(
          `^ {2}WT-1: weight required but refused: the claim has an error of its own \\(line ${line}\\): unknown key 'reviewer' \\(allowed: id, clause, `,
          'm',
        ),
      );
    },
  );
});

test('digestsDiffer: the first differing hex digit, 1-based, with four digits of context either side', () => {
  const hex = 'ab'.repeat(64);
  const at = (i: number, c: string) => `manifest:sha-512:${hex.slice(0, i)}${c}${hex.slice(i + 1)}`;
  const a = `manifest:sha-512:${hex}`;
  assert.equal(digestsDiffer(a, at(127, '0')), 'first differ at hex digit 128 of 128: …baba b vs …baba 0');
  assert.equal(digestsDiffer(a, at(0, '0')), 'first differ at hex digit 1 of 128: abab… vs 0bab…');
  assert.equal(digestsDiffer(a, at(60, '9')), 'first differ at hex digit 61 of 128: …abab abab… vs …abab 9bab…');
});

test('a stale decision whose bound hash differs only in its last digit shows where, not two identical prefixes', () => {
  withRepo(
    (t) => ({ ...t, decision: edit(t.decision, m11('manifest', t.pkg), lastDigitChanged(m11('manifest', t.pkg))) }),
    (repo) => {
      const r = repo.run('check-decision', DECISION, '--spec', SPEC, '--package', PKG);
      assert.equal(r.code, 1, r.stdout);
      const presented = m11('manifest', repo.trio.pkg);
      const context = presented.slice(-5, -1);
      const where = `first differ at hex digit 128 of 128: …${context} ${lastDigitChanged(presented).at(-1)} vs …${context} ${presented.at(-1)}`;
      assert.ok(
        r.stdout.includes(
          `ERROR acceptance-decision.toml: stale: renewed decision required: the package acceptance.toml changed since the decision (bound and presented digests ${where})`,
        ),
        r.stdout,
      );
    },
  );
});

test('a package bound to another specification hash shows where the digests differ', () => {
  withRepo(
    (t) => ({ ...t, pkg: edit(t.pkg, m11('specification', t.spec), lastDigitChanged(m11('specification', t.spec))) }),
    (repo) => {
      const r = repo.run('check-package', PKG, '--spec', SPEC);
      assert.equal(r.code, 1, r.stdout);
      assert.ok(
        r.stdout.includes(
          `ERROR ${PKG}: [specification].hash does not match ${SPEC}: recorded and computed digests first differ at hex digit 128 of 128: `,
        ),
        r.stdout,
      );
    },
  );
});
