/**
 * The verdict table over every multiset of mandatory disposition statuses for one and two mandatory
 * requirements, under every shape of conditions, against an oracle written here from the details
 * page's four rows (not from the implementation).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISPOSITION_STATUSES, tableVerdict } from '../../../rules/accept/lib/verdict.js';

const STATUSES = [
  'satisfied',
  'satisfied-with-conditions',
  'unsatisfied',
  'waived',
  'insufficient-evidence',
  'not-applicable',
];

/** Conditions as owner lists: none, consumer-only, producer-only, both, verifier-only. */
const CONDITION_SHAPES: string[][] = [[], ['consumer'], ['producer'], ['producer', 'consumer'], ['verifier']];

/**
 * The oracle, row by row as the details page states it, counting statuses:
 * 1 any unsatisfied -> rejected; 2 any insufficient-evidence and >= 1 producer-owned condition ->
 * evidence-requested; 3 every status in {satisfied, satisfied-with-conditions, waived}, at least one
 * not satisfied, >= 1 condition -> accepted-with-conditions; 4 every status satisfied and zero
 * conditions -> accepted; otherwise no verdict.
 */
function oracle(statuses: string[], owners: string[]): string | undefined {
  const n = (s: string) => statuses.filter((x) => x === s).length;
  const conditional = n('satisfied') + n('satisfied-with-conditions') + n('waived');
  if (n('unsatisfied') >= 1) return 'rejected';
  if (n('insufficient-evidence') >= 1 && owners.filter((o) => o === 'producer').length >= 1)
    return 'evidence-requested';
  if (conditional === statuses.length && n('satisfied') < statuses.length && owners.length >= 1)
    return 'accepted-with-conditions';
  if (n('satisfied') === statuses.length && owners.length === 0) return 'accepted';
  return undefined;
}

function multisets(size: number): string[][] {
  if (size === 1) return STATUSES.map((s) => [s]);
  const out: string[][] = [];
  for (let i = 0; i < STATUSES.length; i++)
    for (let j = i; j < STATUSES.length; j++) out.push([STATUSES[i]!, STATUSES[j]!]);
  return out;
}

test('the status list is the six statuses of the details page', () => {
  assert.deepEqual([...DISPOSITION_STATUSES].sort(), [...STATUSES].sort());
});

test('every multiset of 1 and 2 mandatory statuses x every condition shape matches the oracle (both orders)', () => {
  let cases = 0;
  const seen = new Set<string>();
  for (const size of [1, 2]) {
    const sets = multisets(size);
    assert.equal(sets.length, size === 1 ? 6 : 21);
    for (const statuses of sets) {
      for (const owners of CONDITION_SHAPES) {
        for (const order of [statuses, [...statuses].reverse()]) {
          const got = tableVerdict(
            order,
            owners.map((owner) => ({ owner })),
          );
          const want = oracle(order, owners);
          assert.equal(got.verdict, want, `${order.join('+')} with conditions [${owners.join(', ')}]: ${got.reason}`);
          assert.ok(got.reason.length > 0, 'a reason is always given');
          if (want === undefined) assert.equal(got.row, undefined);
          seen.add(String(want));
          cases++;
        }
      }
    }
  }
  assert.equal(cases, (6 + 21) * CONDITION_SHAPES.length * 2);
  // The enumeration reaches every verdict and the invalid outcome, so no row is left untested.
  assert.deepEqual([...seen].sort(), [
    'accepted',
    'accepted-with-conditions',
    'evidence-requested',
    'rejected',
    'undefined',
  ]);
});

test('hand-picked rows: the first matching row wins, and the row number is reported', () => {
  const v = (s: string[], o: string[]) =>
    tableVerdict(
      s,
      o.map((owner) => ({ owner })),
    );
  assert.deepEqual(
    [
      v(['unsatisfied', 'insufficient-evidence'], ['producer']).verdict,
      v(['unsatisfied', 'insufficient-evidence'], ['producer']).row,
    ],
    ['rejected', 1],
  );
  assert.deepEqual(
    [
      v(['insufficient-evidence', 'waived'], ['producer']).verdict,
      v(['insufficient-evidence', 'waived'], ['producer']).row,
    ],
    ['evidence-requested', 2],
  );
  assert.equal(
    v(['insufficient-evidence'], ['consumer']).verdict,
    undefined,
    'a consumer-owned condition does not request evidence',
  );
  assert.match(v(['insufficient-evidence'], ['consumer']).reason, /producer/);
  assert.deepEqual(
    [v(['satisfied', 'waived'], ['consumer']).verdict, v(['satisfied', 'waived'], ['consumer']).row],
    ['accepted-with-conditions', 3],
  );
  assert.equal(v(['satisfied', 'waived'], []).verdict, undefined, 'a waiver with no condition is no verdict');
  assert.deepEqual([v(['satisfied', 'satisfied'], []).verdict, v(['satisfied'], []).row], ['accepted', 4]);
  assert.equal(v(['satisfied'], ['consumer']).verdict, undefined, 'all satisfied with a condition is no verdict');
  assert.equal(
    v(['not-applicable'], []).verdict,
    undefined,
    'not-applicable is never admissible on a mandatory requirement',
  );
  assert.match(v(['not-applicable', 'satisfied'], []).reason, /'not-applicable'/);
  assert.equal(v([], []).verdict, 'accepted', 'no mandatory requirement and no condition: row 4 holds vacuously');
  assert.equal(
    tableVerdict(['satisfied'], [{}]).verdict,
    undefined,
    'a condition without an owner still counts as a condition',
  );
});
