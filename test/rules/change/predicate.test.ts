/**
 * The predicate language alone (pure): parsing and type checking name the JSON path of every
 * malformed or ill-typed term, and the evaluator follows the spec's mathematical arithmetic.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as v from 'valibot';
import { evaluate } from '../../../rules/change/lib/evaluate.js';
import { checkPredicate, rangeOf, type Scope, type Term } from '../../../rules/change/lib/predicate.js';
import { TermSchema } from '../../../rules/change/schema.js';
import { CATALOGUE, n, op, v as ref } from './catalogue.js';

const scope: Scope = new Map([
  ['x', 'i8'],
  ['b', 'bool'],
  ['result', 'u8'],
]);
const inputs: Scope = new Map([['x', 'i8']]);

/** The issues of checking `term` as a claim, as `path: message`. */
const problems = (term: unknown, s: Scope = scope) =>
  checkPredicate(term, 'claim', s, 'claim').issues.map((i) => `${i.path}: ${i.message}`);

describe('predicate: malformed and ill-typed terms name their JSON path', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['not an object', 5, 'claim', /Expected a term object/],
    ['empty object', {}, 'claim', /Expected one of the keys var, int, bool, op/],
    ['unknown key beside op', { op: 'and', args: [], extra: 1 }, 'claim.extra', /Unknown key `extra`/],
    ['unknown op', op('<=', n(1), op('plus', n(1), n(2))), 'claim.args[1].op', /Unknown operator "plus"/],
    [
      'misspelt op gets a did-you-mean',
      op('implies', { bool: true }, op('nto', { bool: true })),
      'claim.args[1].op',
      /did you mean `not`/,
    ],
    [
      'wrong arity of not',
      op('not', { bool: true }, { bool: false }),
      'claim.args',
      /`not` takes exactly 1 argument, got 2/,
    ],
    ['wrong arity of <', op('<', n(1)), 'claim.args', /takes exactly 2 arguments, got 1/],
    ['args not an array', { op: 'and', args: {} }, 'claim.args', /Expected `args`, an array/],
    [
      'int where bool expected',
      op('and', { bool: true }, n(3)),
      'claim.args[1]',
      /`and` expects a boolean here, got an integer/,
    ],
    ['bool where int expected', op('+', ref('x'), ref('b')), 'claim.args[1]', /`\+` expects an integer here/],
    [
      '== of bool and int',
      op('==', ref('b'), ref('x')),
      'claim.args[1]',
      /`==` expects a boolean here, got an integer/,
    ],
    [
      'ite branches of two sorts',
      op('==', ref('result'), op('ite', ref('b'), n(1), { bool: false })),
      'claim.args[1].args[2]',
      /`ite` expects an integer/,
    ],
    ['unknown variable', op('==', ref('result'), ref('y')), 'claim.args[1].var', /Unknown variable `y`/],
    ['misspelt variable', op('==', ref('reslt'), n(1)), 'claim.args[0].var', /did you mean `result`/],
    ['an integer claim', op('+', n(1), n(2)), 'claim', /Expected the claim to be a predicate/],
    ['a float literal', op('==', ref('result'), n(1.5)), 'claim.args[1].int', /Expected an integer/],
    [
      'an unsafe JSON integer',
      op('==', ref('result'), { int: 2 ** 60 }),
      'claim.args[1].int',
      /beyond ±2\^53: write it as a decimal string/,
    ],
    [
      'a literal beyond u64',
      op('==', ref('result'), n('18446744073709551616')),
      'claim.args[1].int',
      /outside every declared type/,
    ],
    ['a bool literal that is a string', op('not', { bool: 'true' }), 'claim.args[0].bool', /Expected true or false/],
  ];
  for (const [name, term, path, message] of cases)
    test(name, () => {
      const found = problems(term);
      assert.ok(
        found.some((p) => p.startsWith(`${path}: `) && message.test(p)),
        `expected ${path} ${message}, got ${JSON.stringify(found)}`,
      );
    });

  test('result is not in scope in the assumptions', () => {
    const found = checkPredicate(op('>=', ref('result'), n(0)), 'assumptions', inputs, 'assumptions').issues;
    assert.equal(found[0]?.path, 'assumptions.args[0].var');
    assert.match(found[0]!.message, /`result` is not in scope in the assumptions/);
  });

  test('nesting deeper than 64 is refused at the term that crosses it', () => {
    let t: Record<string, unknown> = { bool: true };
    for (let i = 0; i < 70; i++) t = op('not', t);
    const found = checkPredicate(t, 'claim', scope, 'claim').issues;
    assert.equal(found.length, 1);
    assert.match(found[0]!.message, /Nested deeper than 64/);
    assert.equal(found[0]!.path, `claim${'.args[0]'.repeat(64)}`);
  });

  test('more than 10,000 nodes are refused', () => {
    const wide = op('and', ...Array.from({ length: 10_001 }, () => ({ bool: true })));
    const found = checkPredicate(wide, 'claim', scope, 'claim').issues;
    assert.equal(found.length, 1);
    assert.match(found[0]!.message, /More than 10000 terms/);
  });

  test('every catalogue predicate is well typed and matches the published schema', () => {
    for (const [name, c] of Object.entries(CATALOGUE)) {
      const fn = c.basis.function as { params: { name: string; type: string }[]; result: string };
      const s = new Map([...fn.params.map((p) => [p.name, p.type] as const), ['result', fn.result] as const]) as Scope;
      for (const t of [c.claim, c.drops, c.notEntailed, c.weakens, c.basis.intent, c.basis.baseline]) {
        assert.deepEqual(problems(t, s), [], name);
        assert.ok(v.safeParse(TermSchema, t).success, name);
      }
    }
  });
});

describe('predicate: evaluation is mathematical (no wrap)', () => {
  const env = new Map<string, bigint | boolean>([
    ['x', 127n],
    ['b', false],
    ['result', 255n],
  ]);
  /** Evaluates an integer or boolean term, type-checked by wrapping it in `t == t`. */
  const value = (t: Record<string, unknown>) => {
    const wrapped = checkPredicate(op('==', t, t), 'claim', scope, 'claim');
    assert.deepEqual(wrapped.issues, []);
    const eq = wrapped.term as Extract<Term, { kind: 'op' }>;
    return evaluate(eq.args[0]!, env);
  };
  test('i8 127 + 1 is 128, not -128', () => assert.equal(value(op('+', ref('x'), n(1))), 128n));
  test('u8 255 * 255 is 65025', () => assert.equal(value(op('*', ref('result'), ref('result'))), 65025n));
  test('abs, unary minus, min, max', () => {
    assert.equal(value(op('abs', op('-', ref('x')))), 127n);
    assert.equal(value(op('min', n(3), n(-4), n(9))), -4n);
    assert.equal(value(op('max', n(3), n(-4), n(9))), 9n);
    assert.equal(value(op('-', n(3), n(9))), -6n);
  });
  test('implies and ite', () => {
    assert.equal(value(op('implies', ref('b'), { bool: false })), true);
    assert.equal(value(op('ite', ref('b'), n(1), n(2))), 2n);
  });
  test('literals beyond 2^53 as strings keep every digit', () =>
    assert.equal(value(op('+', n('18446744073709551615'), n(0))), 18446744073709551615n));
  test('type ranges', () => {
    assert.deepEqual(rangeOf('i8'), [-128n, 127n]);
    assert.deepEqual(rangeOf('u64'), [0n, 18446744073709551615n]);
    assert.deepEqual(rangeOf('i64'), [-(2n ** 63n), 2n ** 63n - 1n]);
  });
});
