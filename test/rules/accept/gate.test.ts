/**
 * The `acceptance` manifest key: each record is a cached `accept` action and a gate item. PASS needs
 * a valid decision that is effect-eligible on the day the gate is evaluated; a changed byte of a
 * bound document makes it STALE; expiry is judged at every gate evaluation without rerunning.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../../_support/evidence.js';
import { acceptanceRepo, edit, rebind, type Trio } from '../../_support/acceptance-docs.js';

/** A repo whose subject is committed, then a trio bound to that commit, and the manifest item. */
const setup = (opts: { validUntil?: string; item?: Record<string, unknown>; change?: (t: Trio) => Trio } = {}) =>
  acceptanceRepo({ trio: { validUntil: opts.validUntil }, item: opts.item, change: opts.change });

const item = (r: ReturnType<typeof cli>) =>
  (r.json().gate?.items ?? r.json().items).find((i: { id: string }) => i.id === 'accept:slug');

test('a valid, effect-eligible decision is a PASS item; the second build is cached', () => {
  const { repo } = setup();
  try {
    const first = cli(repo, ['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(item(first).status, 'PASS');
    assert.equal(first.json().gate.status, 'READY');
    const second = cli(repo, ['build', '--json']);
    assert.equal(second.json().actions.find((a: { label: string }) => a.label === 'accept:slug').status, 'cached');
    assert.equal(item(second).status, 'PASS');
  } finally {
    repo.cleanup();
  }
});

test('one byte of the package changed: the item is STALE ("renewed decision required") and the gate BLOCKED', () => {
  const { repo, trio } = setup();
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    repo.write('acc/acceptance.toml', trio.pkg.replace('name = "slug"', 'name = "slug2"'));
    const r = cli(repo, ['build', '--json']);
    assert.equal(r.code, 3, r.stdout);
    assert.equal(item(r).status, 'STALE');
    assert.match(item(r).reason, /stale: renewed decision required/);
    assert.equal(r.json().gate.status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});

test('a subject byte changed after the decision: the record no longer holds and the item is not PASS', () => {
  const { repo } = setup();
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    repo.write('acc/subject/slug.js', "export const slug = (s) => s.trim().replace(/\\s+/g, '-');\n");
    const r = cli(repo, ['build', '--json']);
    assert.notEqual(item(r).status, 'PASS', JSON.stringify(item(r)));
    assert.notEqual(r.json().gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});

test('expiry is judged at gate time: the stale_after day passes, the next day is STALE, with no rerun', () => {
  const { repo } = setup({ validUntil: '2090-06-30' });
  try {
    assert.equal(cli(repo, ['build']).code, 0);
    const onDay = cli(repo, ['gate', '--json', '--now', '2090-06-30']);
    assert.equal(onDay.code, 0, onDay.stdout);
    assert.equal(item(onDay).status, 'PASS');
    const after = cli(repo, ['gate', '--json', '--now', '2090-07-01']);
    assert.equal(after.code, 3, after.stdout);
    assert.equal(item(after).status, 'STALE');
    assert.match(item(after).reason, /expired/);
    assert.equal(cli(repo, ['gate', '--now', '2090-7-1']).code, 2, 'a malformed --now is a usage error');
    assert.equal(cli(repo, ['gate', '--now', '2090-02-30']).code, 2, 'a day that does not exist is a usage error');
  } finally {
    repo.cleanup();
  }
});

test('a rejected decision fails the item (REJECTED gate); accepted-with-conditions needs allow_conditions', () => {
  const rejected = setup({
    change: (t) =>
      rebind({
        ...t,
        decision: edit(
          edit(t.decision, 'verdict = "accepted"', 'verdict = "rejected"'),
          /requirement = "R1"\nstatus = "satisfied"\nbasis = \["WT-1"\]/,
          'requirement = "R1"\nstatus = "unsatisfied"\nbasis = ["WT-1"]',
        ),
      }),
  });
  try {
    const r = cli(rejected.repo, ['build', '--json']);
    assert.equal(item(r).status, 'FAIL', JSON.stringify(item(r)));
    assert.match(item(r).reason, /verdict is rejected/);
    assert.equal(r.json().gate.status, 'REJECTED');
    assert.equal(r.code, 1);
  } finally {
    rejected.repo.cleanup();
  }
});

test('a decision for a dirty or unknown commit never passes; an unknown acceptance key is a config error', () => {
  const { repo } = setup({
    change: (t) =>
      rebind({
        ...t,
        pkg: t.pkg.replace(/commit = "[0-9a-f]{40}"/, `commit = "${'ab'.repeat(20)}"`),
        decision: t.decision.replace(
          /subject = \{ commit = "[0-9a-f]{40}" \}/,
          `subject = { commit = "${'ab'.repeat(20)}" }`,
        ),
      }),
  });
  try {
    const r = cli(repo, ['build', '--json']);
    assert.notEqual(item(r).status, 'PASS', JSON.stringify(item(r)));
    repo.manifest({ acceptance: [{ id: 'x', spec: 'a', package: 'b', decision: 'c', acceptor: {} }] });
    const bad = cli(repo, ['build']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /acceptance\[0\]/);
  } finally {
    repo.cleanup();
  }
});
