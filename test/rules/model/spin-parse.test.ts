/**
 * The SPIN profile's pure parts on pan's and Spin's own output (excerpts of Spin 6.5.2 runs of a
 * small counter model, kept verbatim): when a report may establish a property, which violations
 * refute which property, the replay comparison, and the item's fold. The real tool runs are in
 * spin.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldModel } from '../../../rules/model/lib/fold.js';
import { checkedProperty, parsePanReport, violationRefutes } from '../../../rules/model/lib/spin/pan-report.js';
import { compareReplays, parsePanReplay, parseSpinReplay } from '../../../rules/model/lib/spin/replay.js';

const FULL = `
(Spin Version 6.5.2 -- 6 December 2019)
	+ Partial Order Reduction

Full statespace search for:
	never claim         	- (not selected)
	assertion violations	+
	cycle checks       	- (disabled by -DSAFETY)
	invalid end states	- (disabled by -E flag)

State-vector 12 byte, depth reached 9, errors: 0
       10 states, stored
        0 states, matched
       10 transitions (= stored+matched)
        0 atomic steps
hash conflicts:         0 (resolved)

pan: elapsed time 0 seconds
`;

test('a full search with nothing found can establish exactly the property it checked', () => {
  const r = parsePanReport(FULL);
  assert.deepEqual([r.errors, r.states, r.transitions, r.depth, r.search], [0, 10, 10, 9, 'exhaustive']);
  assert.deepEqual(r.incomplete, []);
  assert.equal(checkedProperty(r, { kind: 'assert', name: 'a' }), true);
  assert.equal(checkedProperty(r, { kind: 'deadlock', name: 'd' }), false, 'invalid end states were disabled');
  assert.equal(checkedProperty(r, { kind: 'ltl', name: 'bounded' }), false, 'no claim was checked');
});

test('a cut search is never complete: depth or memory bound, bitstate, hash-compact, no summary', () => {
  const cut = (text: string) => parsePanReport(text).incomplete;
  assert.ok(cut(`error: max search depth too small\n${FULL}`).includes('max search depth too small'));
  assert.ok(cut(`pan: reached -DMEMLIM bound\n${FULL}`).includes('pan: reached -DMEMLIM bound'));
  assert.ok(cut(FULL.replace('Full statespace', 'Bit statespace')).some((l) => l.startsWith('bitstate')));
  assert.ok(cut(FULL.replace('Full statespace', 'Hash-Compact 4')).some((l) => l.startsWith('hash-compact')));
  assert.ok(cut(FULL.replace(/State-vector.*\n/, '')).some((l) => l.includes('no `errors:` line')));
  assert.ok(cut(`Warning: Search not completed\n${FULL}`).includes('Warning: Search not completed'));
});

test("pan's violation line is read and normalised; only the property's own violation refutes it", () => {
  const r = parsePanReport(
    `pan:1: assertion violated  !( !((x<3))) (at depth 12)\n${FULL.replace('errors: 0', 'errors: 1')}`,
  );
  assert.equal(r.violation, 'assertion violated: !(!((x<3)))');
  assert.equal(r.violationDepth, 12);
  assert.equal(violationRefutes('assertion violated: x', { kind: 'ltl' }, true), true);
  assert.equal(
    violationRefutes('assertion violated: x', { kind: 'ltl' }, false),
    false,
    'a model assert in an ltl run',
  );
  assert.equal(violationRefutes('assertion violated: x', { kind: 'assert' }, false), true);
  assert.equal(violationRefutes('invalid end state', { kind: 'assert' }, false), false);
  assert.equal(violationRefutes('invalid end state', { kind: 'deadlock' }, false), true);
  assert.equal(violationRefutes('acceptance cycle', { kind: 'ltl' }, false), true);
});

/** `pan -r` and `spin -t -p -g` of one counter trail (assert(x < 3) fails at depth 8). */
const PAN_R = `  1:	proc  0 (Counter) counter.pml:7 (state 5)	[((x<3))]
  2:	proc  0 (Counter) counter.pml:7 (state 2)	[x = (x+1)]
  3:	proc  0 (Counter) counter.pml:7 (state 5)	[((x<3))]
  4:	proc  0 (Counter) counter.pml:7 (state 2)	[x = (x+1)]
  5:	proc  0 (Counter) counter.pml:7 (state 5)	[((x<3))]
  6:	proc  0 (Counter) counter.pml:7 (state 2)	[x = (x+1)]
  7:	proc  0 (Counter) counter.pml:7 (state 5)	[((x==3))]
pan:1: assertion violated (x<3) (at depth 8)
spin: trail ends after 8 steps
#processes 1:
  8:	proc 0 (Counter)  counter.pml:11 (state  8) (invalid end state)
		assert((x<3))
global vars:
	byte   x:	3
`;
const SPIN_T = `  1:	proc  0 (Counter:1) counter.pml:7 (state 1)	[((x<3))]
  2:	proc  0 (Counter:1) counter.pml:7 (state 2)	[x = (x+1)]
		x = 1
  3:	proc  0 (Counter:1) counter.pml:7 (state 1)	[((x<3))]
  4:	proc  0 (Counter:1) counter.pml:7 (state 2)	[x = (x+1)]
		x = 2
  5:	proc  0 (Counter:1) counter.pml:7 (state 1)	[((x<3))]
  6:	proc  0 (Counter:1) counter.pml:7 (state 2)	[x = (x+1)]
		x = 3
  7:	proc  0 (Counter:1) counter.pml:8 (state 3)	[((x==3))]
spin: counter.pml:11, Error: assertion violated
spin: text of failed assertion: assert((x<3))
  8:	proc  0 (Counter:1) counter.pml:11 (state 8)	[assert((x<3))]
spin: trail ends after 8 steps
#processes: 1
		x = 3
  8:	proc  0 (Counter:1) counter.pml:15 (state 9) <valid end state>
1 process created
`;

test('two replays that agree on violation, length, every step and the final values refute', () => {
  const c = compareReplays('assertion violated: (x<3)', 8, parsePanReplay(PAN_R, null), parseSpinReplay(SPIN_T));
  assert.equal(c.matched, true, c.mismatch ?? '');
  assert.deepEqual(c.steps, { witness: 8, replayed: 8, compared: 7 });
  assert.equal(c.values_compared, 1);
});

test('any disagreement is named and refutes nothing', () => {
  const pan = parsePanReplay(PAN_R, null);
  const spin = parseSpinReplay(SPIN_T);
  const mismatch = (p: typeof pan, s: typeof spin, expected = 'assertion violated: (x<3)', steps = 8) =>
    compareReplays(expected, steps, p, s);
  assert.match(mismatch(pan, spin, 'invalid end state').mismatch!, /the search reported invalid end state/);
  assert.match(mismatch(pan, spin, undefined, 9).mismatch!, /the trail has 9 steps/);
  const otherStep = parseSpinReplay(
    SPIN_T.replace(
      '  4:	proc  0 (Counter:1) counter.pml:7 (state 2)	[x = (x+1)]',
      '  4:	proc  0 (Counter:1) counter.pml:7 (state 2)	[x = (x+2)]',
    ),
  );
  assert.match(mismatch(pan, otherStep).mismatch!, /step 4 differs/);
  const otherValue = parsePanReplay(PAN_R.replace('byte   x:\t3', 'byte   x:\t4'), null);
  assert.match(mismatch(otherValue, spin).mismatch!, /final value of x differs/);
  const noViolation = parseSpinReplay(SPIN_T.replace(/spin: counter.pml:11, Error.*\n/, ''));
  assert.equal(mismatch(pan, noViolation).matched, false);
  // A long assertion pan cut short still has to be the start of the one Spin replayed.
  const cut = 'assertion violated: !(!(((a==1)&&(b';
  const full = (text: string) => ({ ...spin, violation: `assertion violated: ${text}` });
  assert.equal(mismatch({ ...pan, violation: cut }, full('!(!(((a==1)&&(b==2))))'), cut).matched, true);
  assert.equal(mismatch({ ...pan, violation: cut }, full('!(!(((a==1)&&(c==2))))'), cut).matched, false);
});

test('the item: PASS only when every required property is established; refuted FAIL; else BLOCKED', () => {
  const p = (name: string, claim: 'established' | 'refuted' | 'unknown', required = true) => ({
    name,
    claim,
    required,
    reason: claim,
  });
  assert.equal(foldModel([p('a', 'established'), p('b', 'established')]).outcome, 'PASS');
  assert.equal(foldModel([p('a', 'established'), p('b', 'refuted')]).outcome, 'FAIL');
  assert.equal(foldModel([p('a', 'refuted'), p('b', 'unknown')]).outcome, 'FAIL');
  assert.equal(foldModel([p('a', 'established'), p('b', 'unknown')]).outcome, 'BLOCKED');
  assert.equal(foldModel([p('a', 'established'), p('b', 'unknown', false)]).outcome, 'PASS');
  assert.equal(foldModel([p('b', 'refuted', false)]).outcome, 'BLOCKED', 'nothing required: nothing established');
});
