/**
 * Glob fuzzing: random small file trees, random patterns over them (the supported syntax, junk made
 * of glob characters, and hostile shapes: long runs of `*`, `*a*a…`, `**\/**\/…`, many braces), and a
 * reference matcher written independently of `src/text/glob.ts`: braces expanded first, then a
 * table-driven match per path segment. What the reference says is the meaning vkit's globs have:
 *
 * - `!` first negates (an exclusion), leading `./` are dropped (also at the start of a brace alternative);
 * - `{a,b}` alternatives, nested, expanded before anything else (a `,` or `}` outside braces is a
 *   literal); an unclosed `{`, more than `MAX_ALTERNATIVES` expansions or braces nested deeper than
 *   `MAX_BRACE_DEPTH` is a problem;
 * - `[...]` one character of a name (never `/`), up to the first `]` after the character following
 *   `[` (so `[]a]` holds `]` and `a`; a `[` without such a `]` is a literal `[`), negated by a leading
 *   `!` or `^`, with `a-z` ranges (a range out of order is a problem); everything else in it literal;
 * - `*` any run of characters of one name, `?` one character (a code point) of one name;
 * - a path segment that is exactly `**` (in the expanded pattern) spans zero or more directories; as
 *   the last segment after others it spans one or more names (`a/**` never matches `a` itself);
 *   `**` that is not a whole segment is `*`;
 * - everything else is a literal character, backslash included.
 */
import type { Rng } from './random.js';

/** Brace alternatives past this many make a glob a problem (vkit's limit: src/text/glob.ts). */
const MAX_ALTERNATIVES = 1024;
/** Braces nested deeper than this make a glob a problem (vkit's limit). */
const MAX_BRACE_DEPTH = 64;

export type Reference = { problem: string } | { problem?: undefined; negated: boolean; test(path: string): boolean };

type Token =
  | { t: 'lit'; c: string }
  | { t: 'any' }
  | { t: 'star' }
  | { t: 'class'; neg: boolean; ranges: [number, number][] };
type Segment = 'globstar' | Token[];

const classEnd = (s: string, i: number) => s.indexOf(']', i + 2);

/** Brace expansion: the alternatives, or a problem. Classes are skipped whole (a `,` or `}` in one is the class's). */
function expand(body: string): string[] | { problem: string } {
  // Count first, without expanding, so that a pattern with 2^40 alternatives costs nothing.
  let i = 0;
  let tooDeep = false;
  const countSeq = (inGroup: boolean, depth = 0): number | undefined => {
    let n = 1;
    while (i < body.length) {
      const c = body[i]!;
      if (c === '[' && classEnd(body, i) >= 0) i = classEnd(body, i) + 1;
      else if (c === '{') {
        if (depth >= MAX_BRACE_DEPTH) {
          tooDeep = true;
          return undefined;
        }
        i++;
        let sum = 0;
        for (;;) {
          const k = countSeq(true, depth + 1);
          if (k === undefined) return undefined;
          sum += k;
          if (i >= body.length) return undefined;
          const sep = body[i++];
          if (sep === '}') break;
        }
        n = Math.min(n * sum, MAX_ALTERNATIVES + 1);
      } else if (inGroup && (c === ',' || c === '}')) return n;
      else i++;
    }
    return inGroup ? undefined : n;
  };
  const count = countSeq(false);
  if (tooDeep) return { problem: 'braces nested too deep' };
  if (count === undefined) return { problem: 'unclosed {' };
  if (count > MAX_ALTERNATIVES) return { problem: 'too many alternatives' };
  i = 0;
  const seq = (inGroup: boolean): string[] => {
    let outs = [''];
    while (i < body.length) {
      const c = body[i]!;
      if (c === '[' && classEnd(body, i) >= 0) {
        const cls = body.slice(i, classEnd(body, i) + 1);
        outs = outs.map((o) => o + cls);
        i += cls.length;
      } else if (c === '{') {
        i++;
        const alts: string[] = [];
        for (;;) {
          alts.push(...seq(true));
          if (body[i++] === '}') break;
        }
        outs = outs.flatMap((o) => alts.map((a) => o + a));
      } else if (inGroup && (c === ',' || c === '}')) return outs;
      else {
        outs = outs.map((o) => o + c);
        i++;
      }
    }
    return outs;
  };
  return seq(false);
}

function parseClass(content: string): Token | { problem: string } {
  let neg = false;
  let rest = [...content];
  if (rest[0] === '!' || rest[0] === '^') {
    neg = true;
    rest = rest.slice(1);
  }
  const ranges: [number, number][] = [];
  for (let k = 0; k < rest.length; k++) {
    const lo = rest[k]!.codePointAt(0)!;
    if (rest[k + 1] === '-' && k + 2 < rest.length) {
      const hi = rest[k + 2]!.codePointAt(0)!;
      if (hi < lo) return { problem: 'range out of order' };
      ranges.push([lo, hi]);
      k += 2;
    } else ranges.push([lo, lo]);
  }
  return { t: 'class', neg, ranges };
}

function segmentsOf(alternative: string): Segment[] | { problem: string } {
  let s = alternative;
  while (s.startsWith('./')) s = s.slice(2);
  const segments: Segment[] = [];
  let current: Token[] = [];
  let raw = '';
  // Class ends are found on code units (as in the pattern text), so walk the string by index.
  for (let i = 0; i < s.length; ) {
    const c = String.fromCodePoint(s.codePointAt(i)!);
    if (c === '/') {
      segments.push(raw === '**' ? 'globstar' : current);
      current = [];
      raw = '';
      i += 1;
      continue;
    }
    if (c === '[' && classEnd(s, i) >= 0) {
      const end = classEnd(s, i);
      const cls = parseClass(s.slice(i + 1, end));
      if ('problem' in cls) return cls;
      current.push(cls);
      raw += s.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    current.push(c === '*' ? { t: 'star' } : c === '?' ? { t: 'any' } : { t: 'lit', c });
    raw += c;
    i += c.length;
  }
  segments.push(raw === '**' ? 'globstar' : current);
  return segments;
}

function tokenMatches(token: Token, ch: string): boolean {
  if (token.t === 'lit') return token.c === ch;
  if (token.t === 'any') return true;
  if (token.t === 'star') return true;
  const cp = ch.codePointAt(0)!;
  const inside = token.ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
  return token.neg ? !inside : inside;
}

/** One name against one segment's tokens: a table, row by row from the end (no recursion, polynomial). */
function segmentMatches(tokens: Token[], name: string): boolean {
  if (tokens.every((t) => t.t === 'lit')) return tokens.map((t) => (t as { c: string }).c).join('') === name;
  const chars = [...name];
  const C = chars.length;
  let next = new Uint8Array(C + 1);
  next[C] = 1;
  for (let p = tokens.length - 1; p >= 0; p--) {
    const cur = new Uint8Array(C + 1);
    const token = tokens[p]!;
    for (let c = C; c >= 0; c--) {
      if (token.t === 'star') cur[c] = next[c] || (c < C && cur[c + 1]) ? 1 : 0;
      else cur[c] = c < C && tokenMatches(token, chars[c]!) && next[c + 1] ? 1 : 0;
    }
    next = cur;
  }
  return next[0] === 1;
}

function pathMatches(segments: Segment[], path: string): boolean {
  const names = path.split('/');
  const N = names.length;
  const last = segments.length - 1;
  let next = new Uint8Array(N + 1);
  next[N] = 1;
  for (let p = last; p >= 0; p--) {
    const cur = new Uint8Array(N + 1);
    const segment = segments[p]!;
    for (let n = N; n >= 0; n--) {
      // A trailing `**` after other segments spans one or more names; elsewhere zero or more.
      if (segment === 'globstar')
        cur[n] = p === last && last > 0 ? (n < N ? 1 : 0) : next[n] || (n < N && cur[n + 1]) ? 1 : 0;
      else cur[n] = n < N && next[n + 1] && segmentMatches(segment, names[n]!) ? 1 : 0;
    }
    next = cur;
  }
  return next[0] === 1;
}

/** The reference meaning of one pattern. */
export function referenceGlob(pattern: string): Reference {
  const negated = pattern.startsWith('!');
  let body = negated ? pattern.slice(1) : pattern;
  while (body.startsWith('./')) body = body.slice(2);
  const alternatives = expand(body);
  if (!Array.isArray(alternatives)) return alternatives;
  const compiled: Segment[][] = [];
  for (const a of new Set(alternatives)) {
    const segments = segmentsOf(a);
    if (!Array.isArray(segments)) return segments;
    compiled.push(segments);
  }
  return { negated, test: (path) => compiled.some((segments) => pathMatches(segments, path)) };
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/** Names for trees and literal parts of patterns: plain, dotted, unicode, and names holding glob characters. */
const NAMES = [
  'a',
  'b',
  'c',
  'ab',
  'abc',
  'x.ts',
  'y.md',
  'a.b.c',
  '.hidden',
  '.env',
  'README',
  'é',
  'e\u0301',
  '日本',
  '😀',
  'ﬁ',
  'A',
  'a b',
  'a-b',
  '[x]',
  '{a,b}',
  'a*',
  'q?',
  'x!',
  '-',
  '..a',
  '~',
  'back\\slash',
  'sp ace',
  'ü.txt',
];
const DIRS = ['src', 'lib', 'a', 'b', 'deep', 'x', '.config', 'é', 'sp ace', '{d}'];

/** A random small tree: sorted unique root-relative paths, none a prefix directory of another file. */
export function randomTree(rng: Rng, size = rng.between(3, 25)): string[] {
  const paths = new Set<string>();
  for (let k = 0; k < size; k++) {
    const depth = rng.weighted([
      [3, 0],
      [4, 1],
      [3, 2],
      [1, 3],
      [1, 5],
    ] as const);
    const dirs = Array.from({ length: depth }, () => rng.pick(DIRS));
    paths.add([...dirs, rng.pick(NAMES)].join('/'));
  }
  // A file may not also be a directory.
  const all = [...paths];
  return all.filter((p) => !all.some((q) => q.startsWith(`${p}/`))).sort();
}

const CLASSES = [
  '[ab]',
  '[!a]',
  '[^.]',
  '[a-c]',
  '[]a]',
  '[-a]',
  '[a-]',
  '[é-ü]',
  '[!]',
  '[x]',
  '[.]',
  '[a-zA-Z]',
  '[0-9]',
  '[😀]',
  '[\\]',
  '[z-a]',
  '[[]',
];

function atom(rng: Rng, names: readonly string[], depth: number): string {
  return rng.weighted<() => string>([
    [5, () => rng.pick(names)],
    [2, () => rng.pick(names).slice(0, 1 + rng.int(3))],
    [4, () => '*'],
    [2, () => '?'],
    [2, () => rng.pick(CLASSES)],
    [
      depth < 2 ? 2 : 0,
      () =>
        `{${Array.from({ length: rng.between(1, 3) }, () => pattern(rng, names, depth + 1, rng.chance(0.3))).join(',')}}`,
    ],
  ])();
}

function segment(rng: Rng, names: readonly string[], depth: number): string {
  if (rng.chance(0.2)) return '**';
  return Array.from({ length: rng.between(1, 3) }, () => atom(rng, names, depth)).join('');
}

function pattern(rng: Rng, names: readonly string[], depth: number, slashes = true): string {
  const n = slashes ? rng.between(1, 4) : 1;
  return Array.from({ length: n }, () => segment(rng, names, depth)).join('/');
}

/** A pattern in the supported syntax, often built from the tree's own names. */
export function randomGlob(rng: Rng, tree: readonly string[]): string {
  const names = [...new Set([...tree.flatMap((p) => p.split('/')), ...NAMES.slice(0, 8)])];
  let p = rng.chance(0.15) ? rng.pick(tree) : pattern(rng, names, 0);
  if (rng.chance(0.1)) p = `./${p}`;
  if (rng.chance(0.05)) p = `././${p}`;
  return p;
}

/** Glob characters in random order: unclosed braces and classes, stray `}`, `]`, `,`, `!`. */
export function junkGlob(rng: Rng): string {
  const alphabet = [
    '*',
    '*',
    '?',
    '[',
    ']',
    '{',
    '}',
    ',',
    '!',
    '/',
    '.',
    '-',
    '^',
    '\\',
    'a',
    'b',
    '/',
    '**',
    './',
    'é',
  ];
  return Array.from({ length: rng.between(1, 24) }, () => rng.pick(alphabet)).join('');
}

/** Shapes that make a backtracking matcher take exponential or high-polynomial time, with the paths that trigger it. */
export function hostileGlob(rng: Rng): { pattern: string; paths: string[] } {
  const n = rng.between(8, 32);
  const name = 'a'.repeat(rng.between(20, 120));
  const shapes: Array<() => { pattern: string; paths: string[] }> = [
    () => ({ pattern: `${'*'.repeat(n)}b`, paths: [name] }),
    () => ({ pattern: `${'*a'.repeat(n)}b`, paths: [name, `x/${name}`] }),
    () => ({ pattern: `${'?*'.repeat(n)}b`, paths: [name] }),
    () => ({ pattern: `${'**/'.repeat(n)}b`, paths: [Array.from({ length: 30 }, () => 'a').join('/')] }),
    () => ({
      pattern: `${'**/*a'.repeat(Math.min(n, 12))}b`,
      paths: [Array.from({ length: 20 }, () => 'aaaa').join('/')],
    }),
    () => ({ pattern: `${'{a,a}'.repeat(Math.min(n, 12))}*b`, paths: [name] }),
    () => ({ pattern: '{a,b}'.repeat(n), paths: ['ab'.repeat(n / 2)] }),
    () => ({ pattern: `${'{*,a}'.repeat(Math.min(n, 6))}b`, paths: [name] }),
    () => ({ pattern: `${'[a-z]*'.repeat(n)}b`, paths: [name] }),
    () => ({ pattern: 'x'.repeat(2_000 + rng.int(3_000)), paths: ['x'.repeat(2_000), name] }),
    () => ({ pattern: `${'{'.repeat(n)}a${'}'.repeat(n - 1)}`, paths: ['a'] }),
    () => ({ pattern: `${'{a,'.repeat(n)}b${'}'.repeat(n)}`, paths: ['a', 'b'] }),
    () => {
      const deep = rng.pick([63, 64, 65, 1_000, 100_000]);
      return { pattern: `${'{'.repeat(deep)}a${'}'.repeat(deep)}`, paths: ['a'] };
    },
  ];
  return rng.pick(shapes)();
}
