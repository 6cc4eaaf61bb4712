/**
 * The lifecycle model (fixtures/lifecycle/lifecycle.pml), checked with Spin: the model as written
 * satisfies every property over its whole state space, and each seeded bug (a compile-time variant)
 * produces a counterexample for the property meant to catch it, so none of the checks is vacuous.
 * Needs spin and gcc (`npm run setup:system`): skipped loudly without them, failed instead under
 * VKIT_REQUIRE_SYSTEM=1.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BUGS, checkModel, PROPERTIES, requireTools, toolsSkip, type ModelCheck } from '../_support/spin.js';

/**
 * Floors under which a "0 errors" would be suspicious: the model explores ~650,000 states per
 * property and ~95,000 for end states today, so an emptied or disconnected model cannot pass.
 */
const MIN_STATES = { property: 200_000, endStates: 20_000 };
const MIN_DEPTH = 100;

const tools = toolsSkip();

function show(c: ModelCheck): string {
  return `${c.check}: errors=${c.errors} states=${c.states} depth=${c.depth} complete=${c.complete} (${c.seconds} s)\n${c.output.slice(-3000)}`;
}

describe('lifecycle model: fixtures/lifecycle/lifecycle.pml', () => {
  test('every property holds over the whole state space, and no process is left stuck', tools, async () => {
    requireTools();
    const results = await checkModel([...PROPERTIES, 'end-states'], { opt: 1, jobs: 2 });
    for (const c of results) {
      assert.equal(c.complete, true, `Expected a complete search, got a truncated one: ${show(c)}`);
      assert.equal(c.errors, 0, `Expected no counterexample, got one: ${show(c)}`);
      const min = c.check === 'end-states' ? MIN_STATES.endStates : MIN_STATES.property;
      assert.ok(
        c.states >= min,
        `Expected at least ${min} states explored for ${c.check}, got ${c.states}: ${show(c)}`,
      );
      assert.ok(
        c.depth >= MIN_DEPTH,
        `Expected a search depth of at least ${MIN_DEPTH} for ${c.check}, got ${c.depth}`,
      );
    }
    // Every ltl check explores the same product (the claims only watch it).
    const states = new Set(results.filter((c) => c.check !== 'end-states').map((c) => c.states));
    assert.equal(states.size, 1, `Expected one state count across the properties, got ${[...states].join(', ')}`);
  });

  describe('each seeded bug is caught', { concurrency: 2 }, () => {
    for (const [define, check, what] of BUGS) {
      test(`${define} -> ${check} (${what})`, tools, async () => {
        requireTools();
        const [c] = await checkModel([check], { defines: [define], opt: 0 });
        assert.ok(c!.errors >= 1, `Expected a counterexample for ${check} under ${define}, got none: ${show(c!)}`);
        const kind = check === 'end-states' ? /invalid end state/ : /assertion violated|acceptance cycle/;
        assert.match(
          c!.output,
          kind,
          `Expected the counterexample to be a ${check === 'end-states' ? 'stuck process' : 'claim violation'}: ${show(c!)}`,
        );
      });
    }
  });
});
