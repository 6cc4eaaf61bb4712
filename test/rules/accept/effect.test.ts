/**
 * Effect eligibility over real decision texts (parsed with the TOML reader): the stale_after day
 * still passes and the next day fails, the specification's duration caps stale_after, a lapsed
 * condition, accepted-with-conditions only with allowConditions, and only a valid decision.
 * Expected dates are worked out by hand in the test, not with the code under test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDays, isRfc3339, parseIsoDate, todayUtc, utcDateOf } from '../../../src/text/dates.js';
import { judgeEffect } from '../../../rules/accept/lib/effect.js';
import type { SpecificationCheck } from '../../../rules/accept/lib/model.js';
import { Findings } from '../../../rules/accept/lib/report.js';
import { parseDoc } from '../../../rules/accept/lib/toml.js';

function decision(
  opts: {
    issuedAt?: string;
    verdict?: string;
    staleAfter?: string | null;
    conditions?: { id: string; due: string }[];
    provisional?: boolean;
  } = {},
) {
  const text = `[document]
protocol = "acceptance-protocol/0.4"
kind = "decision"
id = "AD-1"
issued_at = ${opts.issuedAt ?? '2026-09-01T10:00:00Z'}
issuer = { name = "C", role = "lead" }
verdict = "${opts.verdict ?? 'accepted'}"
${opts.provisional ? 'provisional = true\n' : ''}
${(opts.conditions ?? []).map((c) => `[[condition]]\nid = "${c.id}"\nrequirement = "R1"\nstatement = "more tests"\ndue = ${c.due}\nowner = "producer"\n`).join('\n')}
${opts.staleAfter === null ? '' : `[validity]\nstale_after = ${opts.staleAfter ?? '2027-02-01'}\n`}`;
  return parseDoc(Buffer.from(text), 'acceptance-decision.toml').data;
}

const spec = (staleAfter?: string): SpecificationCheck => ({
  findings: new Findings('spec.toml'),
  requirements: [],
  binding: true,
  ...(staleAfter ? { staleAfter } : {}),
});
const at = (now: string, allowConditions = false) => ({ now, allowConditions });

test('the stale_after day itself still passes; the next day is expired (TOML dates and quoted dates alike)', () => {
  for (const staleAfter of ['2027-02-01', '"2027-02-01"']) {
    const d = decision({ staleAfter });
    const onDay = judgeEffect(d, spec('P180D'), at('2027-02-01'), 'valid');
    assert.equal(onDay.eligible, true, onDay.reason);
    assert.match(onDay.reason, /verdict accepted, valid through 2027-02-01 \(now 2027-02-01\)/);
    const after = judgeEffect(d, spec('P180D'), at('2027-02-02'), 'valid');
    assert.equal(after.eligible, false);
    assert.equal(after.indeterminate, false);
    assert.match(after.reason, /expired: \[validity\] stale_after 2027-02-01 is before 2027-02-02/);
  }
});

test('no [validity] stale_after: never eligible', () => {
  const r = judgeEffect(decision({ staleAfter: null }), spec(), at('2026-09-02'), 'valid');
  assert.equal(r.eligible, false);
  assert.match(r.reason, /no \[validity\] stale_after date/);
  assert.equal(judgeEffect(decision({ staleAfter: '"soon"' }), spec(), at('2026-09-02'), 'valid').eligible, false);
  assert.equal(
    judgeEffect(decision({ staleAfter: '"2027-02-30"' }), spec(), at('2026-09-02'), 'valid').eligible,
    false,
    'not a calendar date',
  );
});

test('the specification duration caps stale_after: issued 2026-09-01 + P180D = 2027-02-28 (worked by hand)', () => {
  assert.equal(
    judgeEffect(decision({ staleAfter: '2027-02-28' }), spec('P180D'), at('2026-10-01'), 'valid').eligible,
    true,
  );
  const over = judgeEffect(decision({ staleAfter: '2027-03-01' }), spec('P180D'), at('2026-10-01'), 'valid');
  assert.equal(over.eligible, false);
  assert.match(
    over.reason,
    /stale_after 2027-03-01 is later than issued_at 2026-09-01 \+ the specification's stale_after P180D \(2027-02-28\)/,
  );
  // Without a specification duration there is no cap.
  assert.equal(judgeEffect(decision({ staleAfter: '2030-01-01' }), spec(), at('2026-10-01'), 'valid').eligible, true);
  // The time of day is ignored; a late issue time does not move the cap.
  assert.equal(
    judgeEffect(
      decision({ issuedAt: '2026-09-01T23:59:59Z', staleAfter: '2027-02-28' }),
      spec('P180D'),
      at('2026-10-01'),
      'valid',
    ).eligible,
    true,
  );
  // The UTC date counts: 23:30 at -02:00 on 2026-09-01 is 2026-09-02 UTC, so the cap is 2027-03-01.
  assert.equal(
    judgeEffect(
      decision({ issuedAt: '2026-09-01T23:30:00-02:00', staleAfter: '2027-03-01' }),
      spec('P180D'),
      at('2026-10-01'),
      'valid',
    ).eligible,
    true,
  );
  // Weeks, years and months count 7, 365 and 30 days; time parts are ignored.
  assert.equal(
    judgeEffect(decision({ staleAfter: '2026-09-15' }), spec('P2W'), at('2026-09-02'), 'valid').eligible,
    true,
  );
  assert.equal(
    judgeEffect(decision({ staleAfter: '2026-09-16' }), spec('P2W'), at('2026-09-02'), 'valid').eligible,
    false,
  );
  assert.equal(
    judgeEffect(decision({ staleAfter: '2027-09-01' }), spec('P1Y'), at('2026-09-02'), 'valid').eligible,
    true,
  );
  assert.equal(
    judgeEffect(decision({ staleAfter: '2027-09-02' }), spec('P1Y'), at('2026-09-02'), 'valid').eligible,
    false,
  );
  assert.equal(
    judgeEffect(decision({ staleAfter: '2026-10-31' }), spec('P2MT23H'), at('2026-09-02'), 'valid').eligible,
    true,
  );
  assert.equal(
    judgeEffect(decision({ staleAfter: '2026-11-01' }), spec('P2MT23H'), at('2026-09-02'), 'valid').eligible,
    false,
  );
});

test('a condition whose due date is before now has lapsed; conditions need --allow-conditions', () => {
  const d = decision({ verdict: 'accepted-with-conditions', conditions: [{ id: 'C1', due: '2026-10-01' }] });
  const ok = judgeEffect(d, spec(), at('2026-10-01', true), 'valid');
  assert.equal(ok.eligible, true, ok.reason);
  assert.match(ok.reason, /accepted-with-conditions with 1 open condition/);
  const lapsed = judgeEffect(d, spec(), at('2026-10-02', true), 'valid');
  assert.equal(lapsed.eligible, false);
  assert.match(lapsed.reason, /condition 'C1' lapsed: due 2026-10-01 is before 2026-10-02/);
  const noFlag = judgeEffect(d, spec(), at('2026-09-10'), 'valid');
  assert.equal(noFlag.eligible, false);
  assert.match(noFlag.reason, /accepted-with-conditions needs --allow-conditions/);
});

test('only an accepted verdict of a valid, final decision has effect', () => {
  for (const verdict of ['rejected', 'evidence-requested']) {
    const r = judgeEffect(decision({ verdict }), spec(), at('2026-09-02', true), 'valid');
    assert.equal(r.eligible, false);
    assert.match(r.reason, new RegExp(`verdict ${verdict} is not an acceptance`));
  }
  assert.match(judgeEffect(decision({ provisional: true }), spec(), at('2026-09-02'), 'valid').reason, /provisional/);
  assert.deepEqual(judgeEffect(decision(), spec(), at('2026-09-02'), 'invalid'), {
    eligible: false,
    indeterminate: false,
    reason: 'the decision is not valid',
  });
  assert.match(judgeEffect(decision(), spec(), at('2026-09-02'), 'stale').reason, /stale: renewed decision required/);
  const ind = judgeEffect(decision(), spec(), at('2026-09-02'), 'indeterminate');
  assert.equal(ind.eligible, false);
  assert.equal(ind.indeterminate, true);
  // Several reasons are all reported.
  const many = judgeEffect(decision({ verdict: 'rejected', staleAfter: null }), spec(), at('2026-09-02'), 'valid');
  assert.match(many.reason, /no \[validity\] stale_after.*; verdict rejected/);
});

test('date helpers: calendar validity, RFC 3339 shape, UTC dates, today', () => {
  assert.equal(parseIsoDate('2026-02-29'), undefined);
  assert.equal(parseIsoDate('2028-02-29'), Date.UTC(2028, 1, 29));
  assert.equal(parseIsoDate('2026-1-01'), undefined);
  assert.equal(addDays('2028-02-28', 1), '2028-02-29');
  assert.equal(isRfc3339('2026-09-01T10:00:00Z'), true);
  assert.equal(isRfc3339('2026-09-01T10:00:00.5+02:00'), true);
  for (const bad of ['2026-09-01', '2026-09-01T10:00:00', 'sometime', '2026-13-01T10:00:00Z', '2026-09-01T25:00:00Z'])
    assert.equal(isRfc3339(bad), false, bad);
  assert.equal(utcDateOf('2026-09-01T23:30:00-02:00'), '2026-09-02');
  assert.match(todayUtc(), /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(todayUtc(), new Date().toISOString().slice(0, 10));
});
