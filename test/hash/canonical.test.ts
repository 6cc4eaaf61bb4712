/**
 * vkit's own RFC 8785 writer against the `canonicalize` package on seeded random JSON values, and
 * the refusals (NaN, infinities, lone surrogates, cycles) that keep an identity from being ambiguous.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import canonicalize from 'canonicalize';
import { canonicalJson } from '../../src/hash/index.js';
import { prng } from '../_support/models.js';

const reference = canonicalize as unknown as (v: unknown) => string;

const PIECES = [
  'a',
  'Z',
  'é',
  '\u20ac',
  '\u{1F600}',
  '\u{10FFFF}',
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '\u2028',
  '\uFB33',
  ' ',
  '1',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1e21,
  1e-7,
  5e-324,
  1.7976931348623157e308,
  333333333.3333333,
  2 ** 53,
  -(2 ** 53) + 1,
  0.1,
  123.456e-300,
];

function randomString(r: () => number): string {
  let s = '';
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 3 ? 5 : 8));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return NUMBERS[Math.floor(r() * NUMBERS.length)]! * (r() < 0.5 ? 1 : r() * 0.5);
    case 3:
      return randomString(r);
    case 4:
      return Math.floor(r() * 1e6) - 5e5;
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(r() * 5);
      for (let i = 0; i < n; i++) o[randomString(r)] = r() < 0.1 ? undefined : randomValue(r, depth + 1);
      return o;
    }
  }
}

test('canonicalJson writes what the canonicalize package writes, on 3,000 random values', () => {
  const r = prng(8785);
  for (let i = 0; i < 3000; i++) {
    const v = randomValue(r, 0);
    assert.equal(canonicalJson(v), reference(v), `value ${i}: ${JSON.stringify(v)}`);
  }
});

test('canonicalJson sorts members by UTF-16 code units and drops undefined members', () => {
  assert.equal(
    canonicalJson({ b: 1, a: undefined, '\u{1F600}': 2, '\uFB33': 3, A: [undefined, 1] }),
    '{"A":[null,1],"b":1,"\u{1F600}":2,"\uFB33":3}',
  );
  assert.equal(canonicalJson({ n: -0, e: 1e21, t: 1e-7 }), '{"e":1e+21,"n":0,"t":1e-7}');
});

test('canonicalJson refuses values without one canonical form', () => {
  assert.throws(() => canonicalJson({ a: NaN }), /NaN/);
  assert.throws(() => canonicalJson([Infinity]), /Infinity/);
  assert.throws(() => canonicalJson({ a: 'x\uD800' }), /Lone surrogate/);
  assert.throws(() => canonicalJson({ '\uDC00k': 1 }), /Lone surrogate/);
  const cycle: Record<string, unknown> = {};
  cycle.self = { back: cycle };
  assert.throws(() => canonicalJson(cycle), /Circular/);
  assert.throws(() => canonicalJson(undefined), /no JSON form/);
  // A shared (not circular) sub-object is fine.
  const shared = { x: 1 };
  assert.equal(canonicalJson({ a: shared, b: shared }), '{"a":{"x":1},"b":{"x":1}}');
});
