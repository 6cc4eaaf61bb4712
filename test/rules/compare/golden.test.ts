/**
 * Hand-computed golden reports. Each scenario's report is written out in full from the spec's
 * definitions (contexts = dequeued states x |actions| x |inputs|, edges = distinct steps leaving them,
 * witnesses by (dist, side, element) with BFS paths), and the text and object entry points must agree.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  compareRequest,
  compareRequestText,
  modelDigest,
  renderCompareReport,
  type CompareOutcome,
  type CompareReport,
  type Model,
} from '../../../rules/compare/lib/index.js';
import { categories, model, request, step, stuckToggle, toggle } from '../../_support/models.js';

/** Runs a request through both entry points, checks they agree, and returns the report. */
function run(req: Record<string, unknown>, exitCode: 0 | 1 | 3): CompareReport {
  const fromObject = compareRequest(req);
  const fromText = compareRequestText(JSON.stringify(req));
  assert.deepEqual(fromText, fromObject, 'text and object entry points agree');
  assert.equal(fromObject.ok, true, `expected a report, got ${JSON.stringify(fromObject)}`);
  const out = fromObject as Extract<CompareOutcome, { ok: true }>;
  assert.equal(out.exitCode, exitCode);
  return out.report;
}

function sha(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function summary(m: Model, reachable: number | null) {
  return { sha256: modelDigest(m), reachable_states: reachable };
}

function budget(contexts: number, edges: number, max = 32768) {
  return { max_contexts: max, contexts_used: contexts, max_edges: 65536, edges_used: edges };
}

describe('the toggle whose second click leaves it open (the spec example)', () => {
  const TOGGLE =
    '{"actions":["click"],"assumptions":[{"action":"click","input":"tap"}],"initial_states":["closed"],"inputs":["tap"],"observations":["ajar","shut"],"rules":[{"action":"click","inputs":["tap"],"source":"closed","targets":["open"]},{"action":"click","inputs":["tap"],"source":"open","targets":["closed"]}],"state_observations":{"closed":"shut","open":"ajar"},"states":["closed","open"]}';
  const STUCK = TOGGLE.replace('"source":"open","targets":["closed"]', '"source":"open","targets":["open"]');

  test('report matches the spec exactly', () => {
    const report = run(request(toggle(), stuckToggle(), 32768), 1);
    assert.deepEqual(report, {
      schema: 'vkit.model-compare/1',
      result: 'different',
      models: {
        before: { sha256: sha(TOGGLE), reachable_states: 2 },
        after: { sha256: sha(STUCK), reachable_states: 2 },
      },
      budget: { max_contexts: 32768, contexts_used: 4, max_edges: 65536, edges_used: 4 },
      categories: {
        initial_states: { count: 0, witness: null },
        states: { count: 0, witness: null },
        assumption_contexts: { count: 0, witness: null },
        enabled_contexts: { count: 0, witness: null },
        transitions: {
          count: 1,
          witness: {
            element: { state: 'open', action: 'click', input: 'tap' },
            path_model: 'before',
            path: [
              { from: 'closed', action: 'click', input: 'tap', to: 'open' },
              { from: 'open', action: 'click', input: 'tap', before: ['closed'], after: ['open'] },
            ],
          },
        },
        observations: { count: 0, witness: null },
      },
      reason: null,
    });
    // The field order of the spec's JSON, too.
    assert.deepEqual(Object.keys(report), ['schema', 'result', 'models', 'budget', 'categories', 'reason']);
    assert.deepEqual(Object.keys(report.budget), ['max_contexts', 'contexts_used', 'max_edges', 'edges_used']);
    assert.deepEqual(Object.keys(report.categories ?? {}), [
      'initial_states',
      'states',
      'assumption_contexts',
      'enabled_contexts',
      'transitions',
      'observations',
    ]);
    assert.deepEqual(Object.keys(report.categories?.transitions.witness ?? {}), ['element', 'path_model', 'path']);
  });

  test('max_contexts defaults to 32768', () => {
    assert.equal(run(request(toggle(), stuckToggle()), 1).budget.max_contexts, 32768);
  });

  test('human output: result, one line per non-empty category, the path drawn as arrows naming its model', () => {
    const text = renderCompareReport(run(request(toggle(), stuckToggle()), 1));
    const lines = text.split('\n');
    assert.match(lines[0] as string, /^different/);
    assert.ok(
      lines.some((l) => /^\s+transitions: 1$/.test(l)),
      text,
    );
    assert.ok(
      !lines.some((l) => /^\s+(initial_states|states|assumption_contexts|enabled_contexts|observations): /.test(l)),
      text,
    );
    assert.match(
      text,
      /witness path in before: closed --click\/tap--> open\n\s+at open, click\/tap: before \[closed\], after \[open\]\n/,
    );
  });

  test('identical models are equivalent (exit 0)', () => {
    const report = run(request(toggle(), toggle()), 0);
    assert.equal(report.result, 'equivalent');
    assert.deepEqual(report.categories, categories());
    assert.equal(report.models.before.sha256, report.models.after.sha256);
    assert.match(renderCompareReport(report), /^equivalent/);
  });
});

test('a changed initial state differs only in initial_states (both states reachable either way)', () => {
  const after = toggle();
  after.initial_states = ['open'];
  const report = run(request(toggle(), after), 1);
  assert.deepEqual(report, {
    schema: 'vkit.model-compare/1',
    result: 'different',
    models: { before: summary(toggle(), 2), after: summary(after, 2) },
    budget: budget(4, 4),
    // closed: initial in before (dist 0, before); open: initial in after (dist 0, after). (0, before) wins.
    categories: categories({
      initial_states: {
        count: 2,
        witness: { element: { state: 'closed' }, path_model: 'before', path: [], in: 'before' },
      },
    }),
    reason: null,
  });
  assert.match(
    renderCompareReport(report),
    /initial_states: 2\n\s+witness path in before: closed \(initial\)\n\s+closed is initial in before only\n/,
  );
});

describe('a newly reachable state touches several categories', () => {
  // c is unreachable before; after adds b --go/x--> c. |actions| x |inputs| = 2 per dequeued state.
  const spec = {
    states: ['a', 'b', 'c'],
    inputs: ['x', 'y'],
    observations: ['o1', 'o2'],
    assumptions: [
      ['go', 'x'],
      ['go', 'y'],
    ] as Array<[string, string]>,
    obs: { a: 'o1', b: 'o1', c: 'o2' },
  };
  const before = model({
    ...spec,
    rules: [
      ['a', 'go', ['x'], ['b']],
      ['c', 'go', ['x'], ['a']],
    ],
  });
  const after = model({
    ...spec,
    rules: [
      ['a', 'go', ['x'], ['b']],
      ['c', 'go', ['x'], ['a']],
      ['b', 'go', ['x'], ['c']],
    ],
  });
  const toB = step('a', 'go', 'x', 'b');
  const toC = step('b', 'go', 'x', 'c');

  test('report', () => {
    const report = run(request(before, after), 1);
    assert.deepEqual(report, {
      schema: 'vkit.model-compare/1',
      result: 'different',
      models: { before: summary(before, 2), after: summary(after, 3) },
      // before: a, b dequeued (4 contexts), a->b (1 edge); after: a, b, c (6), a->b, b->c, c->a (3).
      budget: budget(10, 4),
      categories: categories({
        states: { count: 1, witness: { element: { state: 'c' }, path_model: 'after', path: [toB, toC], in: 'after' } },
        // c is reachable only after, where both contexts are permitted: 2 elements.
        assumption_contexts: {
          count: 2,
          witness: {
            element: { state: 'c', action: 'go', input: 'x' },
            path_model: 'after',
            path: [toB, toC],
            probe: { state: 'c', action: 'go', input: 'x', before: null, after: true },
          },
        },
        // (b, go, x) newly enabled, and (c, go, x) enabled only after; b (dist 1, before) comes first.
        enabled_contexts: {
          count: 2,
          witness: {
            element: { state: 'b', action: 'go', input: 'x' },
            path_model: 'before',
            path: [toB],
            probe: { state: 'b', action: 'go', input: 'x', before: false, after: true },
          },
        },
        transitions: {
          count: 2,
          witness: {
            element: { state: 'b', action: 'go', input: 'x' },
            path_model: 'before',
            path: [toB, { from: 'b', action: 'go', input: 'x', before: [], after: ['c'] }],
          },
        },
        observations: {
          count: 1,
          witness: { element: { state: 'c' }, path_model: 'after', path: [toB, toC], before: null, after: 'o2' },
        },
      }),
      reason: null,
    });
  });

  test('human output marks probes as not executed', () => {
    const text = renderCompareReport(run(request(before, after), 1));
    assert.match(
      text,
      /enabled_contexts: 2\n.*\n\s+probe \(a context to inspect, not an executed transition\) at b, go\/x: before not enabled, after enabled\n/,
    );
    assert.match(
      text,
      /assumption_contexts: 2\n\s+witness path in after: a --go\/x--> b --go\/x--> c\n.*at c, go\/x: before unreachable, after permitted\n/,
    );
    assert.match(text, /observations: 1\n.*\n\s+c observes: before \(unreachable\), after o2\n/);
    assert.match(text, /states: 1\n.*\n\s+c is reachable in after only\n/);
  });

  test('the other direction: the state becomes unreachable', () => {
    const report = run(request(after, before), 1);
    assert.deepEqual(report.categories?.states, {
      count: 1,
      witness: { element: { state: 'c' }, path_model: 'before', path: [toB, toC], in: 'before' },
    });
    assert.deepEqual(report.categories?.transitions.witness?.path.at(-1), {
      from: 'b',
      action: 'go',
      input: 'x',
      before: ['c'],
      after: [],
    });
    assert.deepEqual(report.categories?.observations.witness, {
      element: { state: 'c' },
      path_model: 'before',
      path: [toB, toC],
      before: 'o2',
      after: null,
    });
  });
});

describe('changes that cannot be observed are equivalent', () => {
  const spec = { states: ['a', 'b', 'c'], inputs: ['x', 'y'], assumptions: [['go', 'x']] as Array<[string, string]> };

  test('an edit to a rule whose source is unreachable', () => {
    const before = model({
      ...spec,
      rules: [
        ['a', 'go', ['x'], ['b']],
        ['c', 'go', ['x'], ['a']],
      ],
    });
    const after = model({
      ...spec,
      rules: [
        ['a', 'go', ['x'], ['b']],
        ['c', 'go', ['x', 'y'], ['b', 'c']],
      ],
    });
    const report = run(request(before, after), 0);
    assert.deepEqual(report, {
      schema: 'vkit.model-compare/1',
      result: 'equivalent',
      models: { before: summary(before, 2), after: summary(after, 2) },
      budget: budget(8, 2),
      categories: categories(),
      reason: null,
    });
    assert.notEqual(report.models.before.sha256, report.models.after.sha256, 'the models themselves differ');
  });

  test('a guard widened into a context the assumptions do not permit', () => {
    const before = model({ ...spec, rules: [['a', 'go', ['x'], ['b']]] });
    const after = model({
      ...spec,
      rules: [
        ['a', 'go', ['x', 'y'], ['b']],
        ['a', 'go', ['y'], ['c']],
      ],
    });
    const report = run(request(before, after), 0);
    assert.deepEqual(report, {
      schema: 'vkit.model-compare/1',
      result: 'equivalent',
      models: { before: summary(before, 2), after: summary(after, 2) },
      budget: budget(8, 2),
      categories: categories(),
      reason: null,
    });
  });

  test('an empty allow-list: only the initial states are reachable, whatever the rules say', () => {
    const before = model({ states: ['a', 'b'], rules: [['a', 'go', ['x'], ['b']]] });
    const after = model({ states: ['a', 'b'], rules: [['a', 'go', ['x'], ['a']]] });
    const report = run(request(before, after), 0);
    assert.deepEqual(report.budget, budget(2, 0));
    assert.deepEqual([report.models.before.reachable_states, report.models.after.reachable_states], [1, 1]);
  });
});

describe('nondeterministic targets', () => {
  const spec = { states: ['a', 'b', 'c'], assumptions: [['go', 'x']] as Array<[string, string]> };

  test('targets split across rules are their union', () => {
    const before = model({ ...spec, rules: [['a', 'go', ['x'], ['b', 'c']]] });
    const after = model({
      ...spec,
      rules: [
        ['a', 'go', ['x'], ['c']],
        ['a', 'go', ['x'], ['b', 'c', 'b']],
      ],
    });
    const report = run(request(before, after), 0);
    // a: 2 distinct steps in each model, b and c have none; 3 states x 1 context each.
    assert.deepEqual(report.budget, budget(6, 4));
    assert.deepEqual(report.categories, categories());
  });

  test('dropping one of two targets', () => {
    const before = model({ ...spec, rules: [['a', 'go', ['x'], ['c', 'b']]] });
    const after = model({ ...spec, rules: [['a', 'go', ['x'], ['b']]] });
    const toC = step('a', 'go', 'x', 'c');
    assert.deepEqual(run(request(before, after), 1), {
      schema: 'vkit.model-compare/1',
      result: 'different',
      models: { before: summary(before, 3), after: summary(after, 2) },
      budget: budget(5, 3),
      categories: categories({
        states: { count: 1, witness: { element: { state: 'c' }, path_model: 'before', path: [toC], in: 'before' } },
        assumption_contexts: {
          count: 1,
          witness: {
            element: { state: 'c', action: 'go', input: 'x' },
            path_model: 'before',
            path: [toC],
            probe: { state: 'c', action: 'go', input: 'x', before: true, after: null },
          },
        },
        transitions: {
          count: 1,
          witness: {
            element: { state: 'a', action: 'go', input: 'x' },
            path_model: 'before',
            path: [{ from: 'a', action: 'go', input: 'x', before: ['b', 'c'], after: ['b'] }],
          },
        },
        observations: {
          count: 1,
          witness: { element: { state: 'c' }, path_model: 'before', path: [toC], before: 'o', after: null },
        },
      }),
      reason: null,
    });
  });
});

test('cycles and self-loops: a changed back edge', () => {
  const spec = {
    states: ['a', 'b', 'c', 'd'],
    observations: ['o', 'p'],
    assumptions: [['go', 'x']] as Array<[string, string]>,
    obs: { d: 'p' },
  };
  const before = model({
    ...spec,
    rules: [
      ['a', 'go', ['x'], ['b']],
      ['b', 'go', ['x'], ['b', 'c']],
      ['c', 'go', ['x'], ['a']],
      ['d', 'go', ['x'], ['a']],
    ],
  });
  const after = model({
    ...spec,
    rules: [
      ['a', 'go', ['x'], ['b']],
      ['b', 'go', ['x'], ['c', 'b']],
      ['c', 'go', ['x'], ['b']],
      ['d', 'go', ['x'], ['a']],
    ],
  });
  assert.deepEqual(run(request(before, after), 1), {
    schema: 'vkit.model-compare/1',
    result: 'different',
    models: { before: summary(before, 3), after: summary(after, 3) },
    // a, b, c in each model: 3 contexts and 1 + 2 + 1 edges (the self-loop and back edges count).
    budget: budget(6, 8),
    categories: categories({
      transitions: {
        count: 1,
        witness: {
          element: { state: 'c', action: 'go', input: 'x' },
          path_model: 'before',
          path: [
            step('a', 'go', 'x', 'b'),
            step('b', 'go', 'x', 'c'),
            { from: 'c', action: 'go', input: 'x', before: ['a'], after: ['b'] },
          ],
        },
      },
    }),
    reason: null,
  });
});

describe('renamed states and other alphabet changes are incomparable', () => {
  test('a renamed state', () => {
    const after = toggle();
    after.states = ['closed', 'opened'];
    after.rules = [
      { source: 'closed', action: 'click', inputs: ['tap'], targets: ['opened'] },
      { source: 'opened', action: 'click', inputs: ['tap'], targets: ['closed'] },
    ];
    after.state_observations = { closed: 'shut', opened: 'ajar' };
    const report = run(request(toggle(), after), 3);
    assert.deepEqual(report, {
      schema: 'vkit.model-compare/1',
      result: 'incomparable',
      models: { before: summary(toggle(), null), after: summary(after, null) },
      budget: budget(0, 0),
      categories: null,
      reason:
        'alphabets differ, so the models are incomparable (never equivalent up to renaming): states: only in before ["open"], only in after ["opened"]',
    });
    assert.match(renderCompareReport(report), /^incomparable: .*states: only in before \["open"\]/);
  });

  test('every differing alphabet is named, in order, even unused tokens', () => {
    const after = toggle();
    after.inputs = ['tap', 'swipe', 'poke'];
    after.observations = ['shut', 'ajar', 'broken'];
    after.actions = ['click', 'kick'];
    const report = run(request(toggle(), after), 3);
    assert.equal(
      report.reason,
      'alphabets differ, so the models are incomparable (never equivalent up to renaming): actions: only in after ["kick"]; inputs: only in after ["poke","swipe"]; observations: only in after ["broken"]',
    );
  });
});

describe('budgets: exactly at the limit completes, one past is unknown', () => {
  test('max_contexts at the limit (4 contexts used)', () => {
    const report = run(request(toggle(), stuckToggle(), 4), 1);
    assert.deepEqual(report.budget, budget(4, 4, 4));
    assert.equal(report.result, 'different');
  });

  test('max_contexts one short: the 4th dequeued state exceeds it while exploring after', () => {
    assert.deepEqual(run(request(toggle(), stuckToggle(), 3), 3), {
      schema: 'vkit.model-compare/1',
      result: 'unknown',
      // before was explored to the end; after was cut short.
      models: { before: summary(toggle(), 2), after: summary(stuckToggle(), null) },
      budget: budget(4, 3, 3),
      categories: null,
      reason: 'budget exhausted: max_contexts (3) exceeded while exploring after (4 contexts used); no partial result',
    });
  });

  test('max_contexts exhausted inside before: after is never explored', () => {
    assert.deepEqual(run(request(toggle(), toggle(), 1), 3), {
      schema: 'vkit.model-compare/1',
      result: 'unknown',
      models: { before: summary(toggle(), null), after: summary(toggle(), null) },
      budget: budget(2, 1, 1),
      categories: null,
      reason: 'budget exhausted: max_contexts (1) exceeded while exploring before (2 contexts used); no partial result',
    });
  });

  // 128 states, 256 inputs, one rule from s000 over every input to every state: 32,768 edges and
  // 128 x 256 = 32,768 contexts per model, so two identical models sit exactly at the edge limit
  // (and at max_contexts = 65,536).
  const states = Array.from({ length: 128 }, (_, k) => `s${String(k).padStart(3, '0')}`);
  const inputs = Array.from({ length: 256 }, (_, k) => `i${String(k).padStart(3, '0')}`);
  const big = (extra: Array<[string, string, string[], string[]]> = []) =>
    model({
      states,
      inputs,
      assumptions: inputs.map((i): [string, string] => ['go', i]),
      rules: [['s000', 'go', inputs, states], ...extra],
    });

  test('edges at the limit (65,536) and contexts at the limit (65,536) complete', () => {
    const report = run(request(big(), big(), 65536), 0);
    assert.deepEqual(report.budget, { max_contexts: 65536, contexts_used: 65536, max_edges: 65536, edges_used: 65536 });
    assert.equal(report.result, 'equivalent');
  });

  test('one edge past the limit is unknown, the total includes the exhausting edge', () => {
    const after = big([['s001', 'go', ['i000'], ['s000']]]);
    assert.deepEqual(run(request(big(), after, 65536), 3), {
      schema: 'vkit.model-compare/1',
      result: 'unknown',
      models: { before: summary(big(), 128), after: summary(after, null) },
      // after: s000 dequeued (256 contexts, its 32,768 edges reach 65,536), then s001 (256) and its one edge.
      budget: { max_contexts: 65536, contexts_used: 33280, max_edges: 65536, edges_used: 65537 },
      categories: null,
      reason:
        'budget exhausted: max_edges (65536) exceeded while exploring after (65537 edges used); no partial result',
    });
  });

  test('one context past the limit is unknown', () => {
    const report = run(request(big(), big(), 65535), 3);
    // after: s000 (33,024 contexts, edges reach 65,536), then s001..s127 at 256 each; the last makes 65,536.
    assert.deepEqual(report.budget, { max_contexts: 65535, contexts_used: 65536, max_edges: 65536, edges_used: 65536 });
    assert.match(report.reason ?? '', /max_contexts \(65535\) exceeded while exploring after/);
    assert.equal(report.categories, null);
  });
});

describe('astral-plane tokens sort by code point (U+FFFF before U+1F600)', () => {
  const HI = '\u{1F600}';
  const LO = '\uFFFF';
  // By UTF-16 units HI (0xD83D 0xDE00) would sort before LO (0xFFFF); by code point LO comes first.
  const spec = {
    states: [HI, LO],
    initial: [HI, LO],
    observations: ['o', 'p'],
    assumptions: [['go', 'x']] as Array<[string, string]>,
  };
  const before = model({
    ...spec,
    rules: [
      [HI, 'go', ['x'], [HI, LO]],
      [LO, 'go', ['x'], [LO]],
    ],
  });
  const after = model({
    ...spec,
    obs: { [HI]: 'p', [LO]: 'p' },
    rules: [
      [HI, 'go', ['x'], [HI]],
      [LO, 'go', ['x'], [HI, LO]],
    ],
  });

  test('witness state, sorted target lists', () => {
    assert.deepEqual(run(request(before, after), 1), {
      schema: 'vkit.model-compare/1',
      result: 'different',
      models: { before: summary(before, 2), after: summary(after, 2) },
      budget: budget(4, 6),
      categories: categories({
        transitions: {
          count: 2,
          witness: {
            element: { state: LO, action: 'go', input: 'x' },
            path_model: 'before',
            path: [{ from: LO, action: 'go', input: 'x', before: [LO], after: [LO, HI] }],
          },
        },
        observations: {
          count: 2,
          witness: { element: { state: LO }, path_model: 'before', path: [], before: 'o', after: 'p' },
        },
      }),
      reason: null,
    });
  });

  test('the first discovery follows the initial states in code-point order', () => {
    const m = (o: string) =>
      model({
        states: [HI, LO, 't'],
        initial: [HI, LO],
        observations: ['o', 'p'],
        obs: { t: o },
        assumptions: [['go', 'x']],
        rules: [
          [HI, 'go', ['x'], ['t']],
          [LO, 'go', ['x'], ['t']],
        ],
      });
    const report = run(request(m('o'), m('p')), 1);
    assert.deepEqual(report.categories?.observations.witness, {
      element: { state: 't' },
      path_model: 'before',
      path: [step(LO, 'go', 'x', 't')],
      before: 'o',
      after: 'p',
    });
  });

  test('steps expand in (action, input, target) code-point order', () => {
    const m = (o: string) =>
      model({
        states: ['s', 't'],
        actions: [HI, LO],
        inputs: [HI, LO],
        observations: ['o', 'p'],
        obs: { t: o },
        assumptions: [
          [HI, HI],
          [HI, LO],
          [LO, HI],
          [LO, LO],
        ],
        rules: [
          ['s', HI, [HI, LO], ['t']],
          ['s', LO, [LO, HI], ['t']],
        ],
      });
    const report = run(request(m('o'), m('p')), 1);
    assert.deepEqual(report.categories?.observations.witness?.path, [step('s', LO, LO, 't')]);
  });

  test('the digest sorts token arrays by code point', () => {
    const text = `{"actions":["go"],"assumptions":[{"action":"go","input":"x"}],"initial_states":["${LO}","${HI}"],"inputs":["x"],"observations":["o","p"],"rules":[{"action":"go","inputs":["x"],"source":"${LO}","targets":["${LO}"]},{"action":"go","inputs":["x"],"source":"${HI}","targets":["${LO}","${HI}"]}],"state_observations":{"${HI}":"o","${LO}":"o"},"states":["${LO}","${HI}"]}`;
    // state_observations keys follow RFC 8785's own order (UTF-16 units): HI before LO there.
    assert.equal(modelDigest(before), sha(text));
  });
});
