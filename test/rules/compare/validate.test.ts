/**
 * Every validation rule of a comparison request, table-driven: the first issue's JSON path and a
 * substring of its message, through the text entry point and (unless the rule is text-only) the
 * object entry point. Then document order, the full issue list, and what the object entry skips.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compareRequest,
  compareRequestText,
  type CompareOutcome,
  type Model,
} from '../../../rules/compare/lib/index.js';
import { request, stuckToggle, toggle } from '../../_support/models.js';

type Req = Record<string, unknown>;
type Mutate = (r: Req & { before: Model & Record<string, unknown>; after: Model & Record<string, unknown> }) => void;

function base(): Req & { before: Model & Record<string, unknown>; after: Model & Record<string, unknown> } {
  return request(toggle(), stuckToggle()) as ReturnType<typeof base>;
}

function mutated(fn: Mutate): Req {
  const r = base();
  fn(r);
  return r;
}

function issuesOf(out: CompareOutcome) {
  assert.equal(out.ok, false, `expected invalid, got ${JSON.stringify(out).slice(0, 300)}`);
  const bad = out as Extract<CompareOutcome, { ok: false }>;
  assert.equal(bad.exitCode, 2);
  assert.ok(bad.issues.length > 0);
  return bad.issues;
}

interface Case {
  name: string;
  /** An object (checked through both entry points) or raw text (text entry point only). */
  input: Req | string;
  path: string;
  message: RegExp;
}

function check(c: Case) {
  test(c.name, () => {
    const text = typeof c.input === 'string' ? c.input : JSON.stringify(c.input);
    const first = issuesOf(compareRequestText(text))[0];
    assert.equal(first?.path, c.path, `text: ${JSON.stringify(first)}`);
    assert.match(first?.message ?? '', c.message);
    if (typeof c.input !== 'string') {
      const o = issuesOf(compareRequest(c.input))[0];
      assert.equal(o?.path, c.path, `object: ${JSON.stringify(o)}`);
      assert.match(o?.message ?? '', c.message);
    }
  });
}

/** The base request's text with `from` replaced by `to` (once). */
function textWith(from: string, to: string): string {
  const text = JSON.stringify(base());
  assert.ok(text.includes(from), `base text lacks ${from}`);
  return text.replace(from, to);
}

describe('the request', () => {
  const cases: Case[] = [
    { name: 'not JSON', input: '{"schema_version": 1,', path: '$', message: /Invalid JSON at line 1, column 22/ },
    {
      name: 'trailing comma',
      input: JSON.stringify(base()).replace(/}$/, ',}'),
      path: '$',
      message: /Invalid JSON.*member name/,
    },
    { name: 'a comment', input: '// hi\n{}', path: '$', message: /Invalid JSON at line 1, column 1/ },
    { name: 'a byte order mark', input: `\uFEFF${JSON.stringify(base())}`, path: '$', message: /byte order mark/ },
    { name: 'text after the value', input: `${JSON.stringify(base())} {}`, path: '$', message: /end of the text/ },
    {
      name: 'a syntax error names its enclosing path',
      input: textWith('"targets":["open"]}]', '"targets":["open"]]]'),
      path: '$.after.rules[1]',
      message: /expected `,` or `}`/,
    },
    {
      name: 'not an object',
      input: '[]',
      path: '$',
      message: /Expected the request to be a JSON object, got an array/,
    },
    { name: 'a JSON string is not the request object', input: '"{}"', path: '$', message: /JSON object, got "\{\}"/ },
    { name: 'unknown key', input: mutated((r) => (r.extra = 1)), path: '$.extra', message: /Unknown key `extra`/ },
    {
      name: 'missing schema_version',
      input: mutated((r) => delete r.schema_version),
      path: '$.schema_version',
      message: /Missing required key `schema_version`/,
    },
    {
      name: 'schema_version 2',
      input: mutated((r) => (r.schema_version = 2)),
      path: '$.schema_version',
      message: /the integer 1, got 2/,
    },
    {
      name: 'schema_version "1"',
      input: mutated((r) => (r.schema_version = '1')),
      path: '$.schema_version',
      message: /the integer 1, got "1"/,
    },
    {
      name: 'schema_version true',
      input: mutated((r) => (r.schema_version = true)),
      path: '$.schema_version',
      message: /the integer 1, got true/,
    },
    {
      name: 'schema_version null',
      input: mutated((r) => (r.schema_version = null)),
      path: '$.schema_version',
      message: /the integer 1, got null/,
    },
    {
      name: 'schema_version 1.0 (text)',
      input: textWith('"schema_version":1', '"schema_version":1.0'),
      path: '$.schema_version',
      message: /integer form.*got `1.0`/,
    },
    {
      name: 'schema_version 1e0 (text)',
      input: textWith('"schema_version":1', '"schema_version":1e0'),
      path: '$.schema_version',
      message: /integer form.*got `1e0`/,
    },
    {
      name: 'schema_version 10e-1 (text)',
      input: textWith('"schema_version":1', '"schema_version":10e-1'),
      path: '$.schema_version',
      message: /integer form/,
    },
    {
      name: 'missing before',
      input: mutated((r) => delete (r as Partial<Req>).before),
      path: '$.before',
      message: /Missing required key `before`/,
    },
    {
      name: 'missing after',
      input: mutated((r) => delete (r as Partial<Req>).after),
      path: '$.after',
      message: /Missing required key `after`/,
    },
    {
      name: 'before is an array',
      input: mutated((r) => (r.before = [] as never)),
      path: '$.before',
      message: /Expected a model object, got an array/,
    },
    {
      name: 'after is null',
      input: mutated((r) => (r.after = null as never)),
      path: '$.after',
      message: /Expected a model object, got null/,
    },
    {
      name: 'max_contexts 0',
      input: request(toggle(), toggle(), 0),
      path: '$.max_contexts',
      message: /integer from 1 to 9007199254740991.*got 0/,
    },
    { name: 'max_contexts -1', input: request(toggle(), toggle(), -1), path: '$.max_contexts', message: /got -1/ },
    { name: 'max_contexts 1.5', input: request(toggle(), toggle(), 1.5), path: '$.max_contexts', message: /1\.5/ },
    {
      name: 'max_contexts 2^53',
      input: request(toggle(), toggle(), 2 ** 53),
      path: '$.max_contexts',
      message: /integer from 1 to 9007199254740991.*got 9007199254740992/,
    },
    {
      name: 'max_contexts "32768"',
      input: mutated((r) => (r.max_contexts = '32768')),
      path: '$.max_contexts',
      message: /got "32768"/,
    },
    {
      name: 'max_contexts true',
      input: mutated((r) => (r.max_contexts = true)),
      path: '$.max_contexts',
      message: /got true/,
    },
    {
      name: 'max_contexts null',
      input: mutated((r) => (r.max_contexts = null)),
      path: '$.max_contexts',
      message: /got null/,
    },
    {
      name: 'max_contexts 2^53+1 read exactly from text',
      input: textWith('"schema_version":1', '"schema_version":1,"max_contexts":9007199254740993'),
      path: '$.max_contexts',
      message: /got 9007199254740993/,
    },
    {
      name: 'max_contexts 32768.0 (text)',
      input: textWith('"schema_version":1', '"schema_version":1,"max_contexts":32768.0'),
      path: '$.max_contexts',
      message: /integer form.*`32768.0`/,
    },
    {
      name: 'max_contexts 3.2768E4 (text)',
      input: textWith('"schema_version":1', '"schema_version":1,"max_contexts":3.2768E4'),
      path: '$.max_contexts',
      message: /integer form/,
    },
    {
      name: 'max_contexts -0 (text)',
      input: textWith('"schema_version":1', '"schema_version":1,"max_contexts":-0'),
      path: '$.max_contexts',
      message: /integer from 1/,
    },
    {
      name: 'duplicate key at the top',
      input: textWith('"schema_version":1', '"schema_version":1,"schema_version":1'),
      path: '$.schema_version',
      message: /Duplicate key `schema_version`/,
    },
    {
      name: 'duplicate key spelled with an escape',
      input: textWith('"schema_version":1', '"schema_version":1,"schema_\\u0076ersion":1'),
      path: '$.schema_version',
      message: /Duplicate key/,
    },
    {
      name: 'duplicate key in a rule',
      input: textWith('"targets":["open"]}', '"targets":["open"],"targets":["closed"]}'),
      path: '$.before.rules[0].targets',
      message: /Duplicate key `targets`/,
    },
    {
      name: 'duplicate key in state_observations',
      input: textWith('"open":"ajar"}', '"open":"ajar","open":"shut"}'),
      path: '$.before.state_observations.open',
      message: /Duplicate key `open`/,
    },
    {
      name: 'duplicate key in an assumption',
      input: textWith('{"action":"click","input":"tap"}', '{"action":"click","action":"click","input":"tap"}'),
      path: '$.before.assumptions[0].action',
      message: /Duplicate key/,
    },
    {
      name: 'a lone surrogate escape',
      input: textWith('"closed","open"', '"closed","open","\\ud800"'),
      path: '$.before.states[2]',
      message: /lone surrogate/,
    },
    {
      name: 'nesting too deep',
      input: '['.repeat(100) + ']'.repeat(100),
      path: `$${'[0]'.repeat(64)}`,
      message: /nested more than 64 levels/,
    },
  ];
  for (const c of cases) check(c);
});

describe('a model', () => {
  const cases: Case[] = [
    {
      name: 'missing key',
      input: mutated((r) => delete (r.before as Record<string, unknown>).rules),
      path: '$.before.rules',
      message: /Missing required key `rules` in a model/,
    },
    {
      name: 'unknown key',
      input: mutated((r) => (r.after.extra = [])),
      path: '$.after.extra',
      message: /Unknown key `extra` in a model/,
    },
    {
      name: 'alphabet not an array',
      input: mutated((r) => (r.before.actions = 'click' as never)),
      path: '$.before.actions',
      message: /`actions` to be an array of tokens, got "click"/,
    },
    {
      name: 'token not a string',
      input: mutated((r) => (r.before.states = ['closed', 'open', 3 as never])),
      path: '$.before.states[2]',
      message: /non-empty string\), got 3/,
    },
    {
      name: 'empty token',
      input: mutated((r) => (r.before.inputs = ['tap', ''])),
      path: '$.before.inputs[1]',
      message: /non-empty string\), got ""/,
    },
    {
      name: 'repeated state',
      input: mutated((r) => (r.before.states = ['closed', 'open', 'closed'])),
      path: '$.before.states[2]',
      message: /Duplicate token "closed" in `states` \(already at index 0\)/,
    },
    {
      name: 'repeated action',
      input: mutated((r) => (r.before.actions = ['click', 'click'])),
      path: '$.before.actions[1]',
      message: /Duplicate token "click" in `actions`/,
    },
    {
      name: 'repeated input',
      input: mutated((r) => (r.after.inputs = ['tap', 'tap'])),
      path: '$.after.inputs[1]',
      message: /Duplicate token "tap" in `inputs`/,
    },
    {
      name: 'repeated observation',
      input: mutated((r) => (r.after.observations = ['shut', 'ajar', 'shut'])),
      path: '$.after.observations[2]',
      message: /Duplicate token "shut" in `observations`/,
    },
    {
      name: 'no initial state',
      input: mutated((r) => (r.before.initial_states = [])),
      path: '$.before.initial_states',
      message: /at least one declared state/,
    },
    {
      name: 'undeclared initial state',
      input: mutated((r) => (r.before.initial_states = ['ajar'])),
      path: '$.before.initial_states[0]',
      message: /declared state, got "ajar"/,
    },
    {
      name: 'initial_states not an array',
      input: mutated((r) => (r.before.initial_states = 'closed' as never)),
      path: '$.before.initial_states',
      message: /array of declared state tokens/,
    },
    {
      name: 'assumptions not an array',
      input: mutated((r) => (r.before.assumptions = {} as never)),
      path: '$.before.assumptions',
      message: /array of \{action, input\} objects/,
    },
    {
      name: 'assumption not an object',
      input: mutated((r) => (r.before.assumptions = [['click', 'tap']] as never)),
      path: '$.before.assumptions[0]',
      message: /assumption object/,
    },
    {
      name: 'assumption with an undeclared action',
      input: mutated((r) => (r.before.assumptions = [{ action: 'kick', input: 'tap' }])),
      path: '$.before.assumptions[0].action',
      message: /declared action, got "kick"/,
    },
    {
      name: 'assumption with an undeclared input',
      input: mutated((r) => (r.before.assumptions = [{ action: 'click', input: 'swipe' }])),
      path: '$.before.assumptions[0].input',
      message: /declared input, got "swipe"/,
    },
    {
      name: 'assumption missing its input',
      input: mutated((r) => (r.before.assumptions = [{ action: 'click' } as never])),
      path: '$.before.assumptions[0].input',
      message: /Missing required key `input` in an assumption/,
    },
    {
      name: 'assumption with an extra key',
      input: mutated((r) => (r.before.assumptions = [{ action: 'click', input: 'tap', when: 'now' } as never])),
      path: '$.before.assumptions[0].when',
      message: /Unknown key `when` in an assumption/,
    },
    {
      name: 'rules not an array',
      input: mutated((r) => (r.before.rules = null as never)),
      path: '$.before.rules',
      message: /array of rule objects, got null/,
    },
    {
      name: 'rule not an object',
      input: mutated((r) => (r.before.rules = ['closed->open'] as never)),
      path: '$.before.rules[0]',
      message: /rule object/,
    },
    {
      name: 'rule with an undeclared source',
      input: mutated((r) => ((r.before.rules[0] as Model['rules'][number]).source = 'ajar')),
      path: '$.before.rules[0].source',
      message: /declared state, got "ajar"/,
    },
    {
      name: 'rule with an undeclared action',
      input: mutated((r) => ((r.before.rules[1] as Model['rules'][number]).action = 'kick')),
      path: '$.before.rules[1].action',
      message: /declared action, got "kick"/,
    },
    {
      name: 'rule with no inputs',
      input: mutated((r) => ((r.before.rules[0] as Model['rules'][number]).inputs = [])),
      path: '$.before.rules[0].inputs',
      message: /`inputs` to list at least one declared input/,
    },
    {
      name: 'rule with an undeclared input',
      input: mutated((r) => ((r.before.rules[0] as Model['rules'][number]).inputs = ['tap', 'swipe'])),
      path: '$.before.rules[0].inputs[1]',
      message: /declared input, got "swipe"/,
    },
    {
      name: 'rule with no targets',
      input: mutated((r) => ((r.before.rules[0] as Model['rules'][number]).targets = [])),
      path: '$.before.rules[0].targets',
      message: /`targets` to list at least one declared state/,
    },
    {
      name: 'rule with an undeclared target',
      input: mutated((r) => ((r.after.rules[0] as Model['rules'][number]).targets = ['gone'])),
      path: '$.after.rules[0].targets[0]',
      message: /declared state, got "gone"/,
    },
    {
      name: 'rule targets not an array',
      input: mutated((r) => ((r.after.rules[0] as Model['rules'][number]).targets = 'open' as never)),
      path: '$.after.rules[0].targets',
      message: /array of declared state tokens/,
    },
    {
      name: 'rule missing its targets',
      input: mutated((r) => delete (r.before.rules[0] as Partial<Model['rules'][number]>).targets),
      path: '$.before.rules[0].targets',
      message: /Missing required key `targets` in a rule/,
    },
    {
      name: 'rule with an extra key',
      input: mutated((r) => ((r.before.rules[0] as unknown as Record<string, unknown>).guard = 'true')),
      path: '$.before.rules[0].guard',
      message: /Unknown key `guard` in a rule/,
    },
    {
      name: 'state_observations not an object',
      input: mutated((r) => (r.before.state_observations = [] as never)),
      path: '$.before.state_observations',
      message: /to be an object/,
    },
    {
      name: 'state_observations missing a state',
      input: mutated((r) => (r.before.state_observations = { closed: 'shut' })),
      path: '$.before.state_observations.open',
      message: /Missing declared state "open" in `state_observations`/,
    },
    {
      name: 'state_observations with an undeclared state',
      input: mutated((r) => (r.before.state_observations = { closed: 'shut', open: 'ajar', ghost: 'shut' })),
      path: '$.before.state_observations.ghost',
      message: /keys of `state_observations` to be declared states, got "ghost"/,
    },
    {
      name: 'state_observations key needing brackets',
      input: mutated((r) => (r.before.state_observations = { closed: 'shut', open: 'ajar', 'half open': 'shut' })),
      path: '$.before.state_observations["half open"]',
      message: /declared states/,
    },
    {
      name: 'state_observations to an undeclared observation',
      input: mutated((r) => (r.before.state_observations = { closed: 'shut', open: 'wide' })),
      path: '$.before.state_observations.open',
      message: /declared observation, got "wide"/,
    },
    {
      name: 'state_observations to a non-token',
      input: mutated((r) => (r.after.state_observations = { closed: 'shut', open: 1 as never })),
      path: '$.after.state_observations.open',
      message: /non-empty string\), got 1/,
    },
    {
      name: 'an unknown key named __proto__',
      input: textWith('"rules":', '"__proto__":{},"rules":'),
      path: '$.before.__proto__',
      message: /Unknown key `__proto__`/,
    },
  ];
  for (const c of cases) check(c);

  test('a lone surrogate in a token (object entry point)', () => {
    const r = mutated((x) => (x.before.observations = ['shut', 'ajar', '\uDC00']));
    const first = issuesOf(compareRequest(r))[0];
    assert.equal(first?.path, '$.before.observations[2]');
    assert.match(first?.message ?? '', /lone surrogate/);
  });
});

describe('document order and the complete list', () => {
  test('issues come in document order, whatever order the checks run in', () => {
    // `after` before `before`, and inside `before`, `initial_states` before `states`.
    const r = base();
    r.after.rules = [];
    (r.after as Record<string, unknown>).extra = 1;
    const t = toggle();
    const before = {
      initial_states: ['nowhere'],
      states: t.states,
      actions: ['click', 'click'],
      inputs: t.inputs,
      observations: t.observations,
      assumptions: t.assumptions,
      rules: t.rules,
      state_observations: t.state_observations,
    };
    const text = JSON.stringify({ after: r.after, before, schema_version: 3 });
    const issues = issuesOf(compareRequestText(text));
    assert.deepEqual(
      issues.map((i) => i.path),
      ['$.after.extra', '$.before.initial_states[0]', '$.before.actions[1]', '$.schema_version'],
    );
    // The object entry point follows the object's own key order.
    assert.deepEqual(
      issuesOf(compareRequest(JSON.parse(text))).map((i) => i.path),
      ['$.after.extra', '$.before.initial_states[0]', '$.before.actions[1]', '$.schema_version'],
    );
  });

  test('a missing key is reported where its object ends', () => {
    const r = base();
    delete (r.before as Partial<Model>).rules;
    r.before.state_observations = { closed: 'shut', open: 'wide' };
    const issues = issuesOf(compareRequest(r));
    assert.deepEqual(
      issues.map((i) => i.path),
      ['$.before.state_observations.open', '$.before.rules'],
    );
    r.before.state_observations = { open: 'ajar' };
    assert.deepEqual(
      issuesOf(compareRequest(r)).map((i) => i.path),
      ['$.before.state_observations.closed', '$.before.rules'],
    );
  });

  test('every problem is listed, with text lines', () => {
    const text = JSON.stringify(
      {
        schema_version: 1,
        before: {
          ...toggle(),
          states: ['closed', 'open', 'open'],
          rules: [{ source: 'x', action: 'y', inputs: [], targets: ['z'] }],
        },
        after: toggle(),
        max_contexts: 0,
      },
      null,
      2,
    );
    const issues = issuesOf(compareRequestText(text));
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        '$.before.states[2]',
        '$.before.rules[0].source',
        '$.before.rules[0].action',
        '$.before.rules[0].inputs',
        '$.before.rules[0].targets[0]',
        '$.max_contexts',
      ],
    );
    const mc = issues.at(-1);
    assert.equal(mc?.line, text.split('\n').findIndex((l) => l.includes('"max_contexts"')) + 1);
  });

  test('every repeated key is listed, also inside values no schema reads', () => {
    const text = textWith('"schema_version":1', '"extra":{"a":1,"a":2},"schema_version":1,"schema_version":1').replace(
      '"states":["closed","open"]',
      '"states":{"x":1,"x":2}',
    );
    const issues = issuesOf(compareRequestText(text));
    assert.deepEqual(
      issues.map((i) => `${i.path} ${i.message.split(':')[0]}`),
      [
        '$.extra Unknown key `extra` in the request; expected only `schema_version`, `before`, `after`, `max_contexts`',
        '$.extra.a Duplicate key `a`',
        '$.schema_version Duplicate key `schema_version`',
        '$.before.states Expected `states` to be an array of tokens, got an object',
        '$.before.states.x Duplicate key `x`',
      ],
    );
  });

  test('repeats inside the set-valued arrays are harmless', () => {
    const m = toggle();
    m.initial_states = ['closed', 'closed'];
    m.assumptions = [...m.assumptions, ...m.assumptions];
    m.rules = [...m.rules, { source: 'open', action: 'click', inputs: ['tap', 'tap'], targets: ['closed', 'closed'] }];
    const out = compareRequest(request(toggle(), m));
    assert.equal(out.ok && out.report.result, 'equivalent');
  });

  test('tokens that only look alike are different tokens', () => {
    const m = toggle();
    m.states = ['closed', 'open', 'caf\u00e9', 'cafe\u0301'];
    m.state_observations = { ...m.state_observations, 'caf\u00e9': 'shut', 'cafe\u0301': 'shut' };
    assert.equal(compareRequest(request(m, m)).ok, true);
  });
});

describe('text-only checks are skipped by the object entry point, nothing else is', () => {
  test('1.0 and 32768.0 arrive as the integers 1 and 32768', () => {
    assert.equal(compareRequest({ ...base(), schema_version: 1.0, max_contexts: 32768.0 }).ok, true);
    const out = compareRequestText(textWith('"schema_version":1', '"schema_version":1,"max_contexts":32768'));
    assert.equal(out.ok, true);
  });

  test('max_contexts must still be an integer in range', () => {
    for (const bad of [0.5, 2 ** 53, Number.NaN, Infinity, -Infinity]) {
      assert.equal(issuesOf(compareRequest({ ...base(), max_contexts: bad }))[0]?.path, '$.max_contexts', String(bad));
    }
    const out = compareRequest({ ...base(), max_contexts: Number.MAX_SAFE_INTEGER });
    assert.equal(out.ok && out.report.budget.max_contexts, Number.MAX_SAFE_INTEGER);
  });

  test('non-plain objects are not JSON objects', () => {
    assert.equal(issuesOf(compareRequest(new Map()))[0]?.path, '$');
    const r = base();
    (r as Record<string, unknown>).before = new (class Model {})();
    assert.equal(issuesOf(compareRequest(r))[0]?.path, '$.before');
  });

  test('a state named __proto__ is an ordinary token', () => {
    const m = toggle();
    m.states = ['closed', 'open', '__proto__'];
    m.state_observations = JSON.parse('{"closed":"shut","open":"ajar","__proto__":"ajar"}') as Record<string, string>;
    m.rules.push({ source: 'open', action: 'click', inputs: ['tap'], targets: ['__proto__'] });
    const req = request(toggle(), toggle());
    (req.before as Model) = m;
    // Same alphabet is needed to compare: give after the same states.
    (req.after as Model) = { ...m, rules: m.rules.slice(0, 2) };
    for (const out of [compareRequest(req), compareRequestText(JSON.stringify(req))]) {
      assert.equal(out.ok, true, JSON.stringify(out));
      if (out.ok) assert.deepEqual(out.report.categories?.states.witness?.element, { state: '__proto__' });
    }
  });
});
