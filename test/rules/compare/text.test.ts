/**
 * The strict JSON text parser and the code-point order: the two building blocks the request rules
 * and every ordering rest on.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { byCodePoint, parseJsonText, uniqueSorted } from '../../../rules/compare/lib/index.js';
import { codePointKey, sortByCodePoint } from '../../../rules/compare/lib/order.js';
import { prng } from '../../_support/models.js';

describe('parseJsonText', () => {
  test('agrees with JSON.parse on valid texts', () => {
    const texts = [
      '0',
      '-0',
      '1E+2',
      '-12.5e-3',
      '"a\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t"',
      '"\\ud83d\\ude00"',
      '"😀\u2028"',
      ' [ 1 , [ ] , { } , null , true , false ] ',
      '{"a":{"b":[{"c":"d"}]},"e":[]}',
      '\t\r\n{}\n',
    ];
    for (const t of texts) {
      const p = parseJsonText(t);
      assert.deepEqual(p.issues, [], t);
      // Parsed objects have a null prototype, so compare their JSON; primitives directly (-0 stays -0).
      if (typeof p.value === 'object' && p.value !== null)
        assert.equal(JSON.stringify(p.value), JSON.stringify(JSON.parse(t)), t);
      else assert.ok(Object.is(p.value, JSON.parse(t)), t);
    }
  });

  test('rejects what RFC 8259 does not allow', () => {
    const bad = [
      '',
      '   ',
      '01',
      '1.',
      '.5',
      '+1',
      '1e',
      '-',
      'NaN',
      'Infinity',
      'tru',
      "'a'",
      '"a',
      '"\t"',
      '"\\x"',
      '"\\u12"',
      '[1,]',
      '{"a":1,}',
      '{a:1}',
      '{"a" 1}',
      '[1 2]',
      '{"a":1}}',
      '"\\udc00"',
      '"\\ud800x"',
    ];
    for (const t of bad) {
      const p = parseJsonText(t);
      assert.equal(p.value, undefined, t);
      assert.equal(p.issues.length, 1, t);
      assert.match(p.issues[0]?.message ?? '', /^Invalid JSON at line \d+, column \d+: /, t);
    }
  });

  test('a raw lone surrogate inside the text is refused', () => {
    const p = parseJsonText('["ok", "\uD800"]');
    assert.equal(p.issues[0]?.path, '$[1]');
    assert.match(p.issues[0]?.message ?? '', /lone surrogate/);
  });

  test('lines and columns (columns count code points)', () => {
    const p = parseJsonText('{\n  "😀": 1,\n  "b": ?\n}');
    assert.equal(p.issues[0]?.line, 3);
    assert.match(p.issues[0]?.message ?? '', /line 3, column 8: expected a JSON value, got "\?"/);
    assert.equal(p.issues[0]?.path, '$.b');
    const q = parseJsonText('{"😀😀": x}');
    assert.match(q.issues[0]?.message ?? '', /column 8:/);
  });

  test('members in document order, repeats flagged, number source text kept, first value kept', () => {
    const p = parseJsonText('{\n"b": 1.0,\n"a": "x",\n"b": 2, "c": [1e0], "d": -0\n}');
    assert.deepEqual(p.issues, []);
    const obj = p.value as Record<string, unknown>;
    assert.deepEqual(p.source.members(obj), [
      { key: 'b', duplicate: false, line: 2, numberText: '1.0' },
      { key: 'a', duplicate: false, line: 3 },
      { key: 'b', duplicate: true, line: 4, numberText: '2' },
      { key: 'c', duplicate: false, line: 4 },
      { key: 'd', duplicate: false, line: 4, numberText: '-0' },
    ]);
    assert.equal(obj.b, 1);
    assert.equal(Object.is(obj.d, -0), true);
    assert.equal(p.source.members({}), undefined, 'objects the parser did not make have no members');
  });

  test('keys that only look alike are different keys; equal keys written differently are duplicates', () => {
    const p = parseJsonText('{"caf\\u00e9": 1, "cafe\\u0301": 2, "\\u0061": 3, "a": 4}');
    const members = p.source.members(p.value as object) ?? [];
    assert.deepEqual(
      members.map((m) => m.duplicate),
      [false, false, false, true],
    );
  });

  test('__proto__ is an ordinary member', () => {
    const p = parseJsonText('{"__proto__": {"polluted": true}}');
    const obj = p.value as Record<string, unknown>;
    assert.deepEqual(Object.keys(obj), ['__proto__']);
    assert.equal((obj as { polluted?: unknown }).polluted, undefined);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  });

  test('deep nesting is refused without exhausting the stack', () => {
    const p = parseJsonText('['.repeat(200_000));
    assert.match(p.issues[0]?.message ?? '', /nested more than 64 levels deep/);
    assert.equal(parseJsonText('['.repeat(64) + ']'.repeat(64)).issues.length, 0);
  });
});

describe('byCodePoint', () => {
  const reference = (a: string, b: string): number => {
    const x = [...a].map((c) => c.codePointAt(0) as number);
    const y = [...b].map((c) => c.codePointAt(0) as number);
    for (let k = 0; k < Math.min(x.length, y.length); k++)
      if (x[k] !== y[k]) return (x[k] as number) < (y[k] as number) ? -1 : 1;
    return Math.sign(x.length - y.length);
  };

  test('U+FFFF sorts before U+1F600 (UTF-16 order says the opposite)', () => {
    assert.equal(byCodePoint('\uFFFF', '\u{1F600}'), -1);
    assert.equal(byCodePoint('\u{1F600}', '\uFFFF'), 1);
    assert.ok('\u{1F600}' < '\uFFFF', 'the default order really differs');
    assert.deepEqual(uniqueSorted(['\u{1F600}', '\uFFFF', '\uE000', 'z', '\u{10000}', 'z']), [
      'z',
      '\uE000',
      '\uFFFF',
      '\u{10000}',
      '\u{1F600}',
    ]);
    assert.equal(byCodePoint('a', 'a'), 0);
    assert.equal(byCodePoint('', 'a'), -1);
    assert.equal(byCodePoint('ab', 'a'), 1);
  });

  test('agrees with a code-point reference on random strings', () => {
    const rand = prng(7);
    const pool = [
      'a',
      'b',
      '\u00e9',
      '\uD7FF',
      '\uE000',
      '\uFFFF',
      '\u{10000}',
      '\u{1F600}',
      '\u{1F601}',
      '\u{10FFFF}',
    ];
    const word = () =>
      Array.from({ length: Math.floor(rand() * 4) }, () => pool[Math.floor(rand() * pool.length)]).join('');
    for (let k = 0; k < 5000; k++) {
      const a = word();
      const b = word();
      assert.equal(Math.sign(byCodePoint(a, b)), reference(a, b), JSON.stringify([a, b]));
    }
  });

  test('the fast sort and its keys agree with the comparator', () => {
    const rand = prng(11);
    const pool = [
      'a',
      'b',
      '"',
      '\u00e9',
      '\uD7FF',
      '\uE000',
      '\uF8FF',
      '\uFFFF',
      '\u{10000}',
      '\u{1F600}',
      '\u{10FFFF}',
    ];
    const word = () =>
      Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pool[Math.floor(rand() * pool.length)]).join('');
    for (let k = 0; k < 300; k++) {
      const words = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 12) }, word))];
      assert.deepEqual(sortByCodePoint([...words]), [...words].sort(byCodePoint));
      const [a, b] = [word(), word()];
      // The keys compare by UTF-16 units exactly as the strings compare by code point.
      assert.equal(codePointKey(a) < codePointKey(b), byCodePoint(a, b) < 0);
      assert.equal(codePointKey(a) === codePointKey(b), a === b);
    }
    const plain = ['b', 'a', 'c'];
    assert.deepEqual(sortByCodePoint(plain), ['a', 'b', 'c']);
  });
});
