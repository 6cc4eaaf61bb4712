/** The glob compiler behind `inputs` and `outputs`: matching, static prefixes, exclusions, ordering. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prng } from '../_support/random.js';
import { compileGlob, coversBelow, escapeGlob, matchGlobs, reachesBelow } from '../../src/text/glob.js';

/** One row: does `pattern` match `path`? */
function check(pattern: string, path: string, expected: boolean): void {
  assert.equal(
    compileGlob(pattern).re.test(path),
    expected,
    `${pattern} vs ${path}: expected ${expected ? 'a match' : 'no match'}`,
  );
}

test('glob matching, table-driven', () => {
  const rows: Array<[string, string, boolean]> = [
    // `*` stays inside one path segment.
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/sub/a.ts', false],
    // `**` spans zero or more directories, only as a whole segment.
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/er/a.ts', true],
    ['**/*.ts', 'src/a.tsx', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['src/**/*.ts', 'lib/src/a.ts', false],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    ['a/**', 'a/x/y', true],
    ['a/**', 'a', false],
    ['a/**', 'ab/x', false],
    ['**', 'any/thing/at/all', true],
    ['a**b', 'a/b', false], // not a whole segment: behaves as `*`
    ['a**b', 'axyb', true],
    // `?` is one character, never `/`.
    ['a?.ts', 'ab.ts', true],
    ['a?.ts', 'a.ts', false],
    ['a?.ts', 'abc.ts', false],
    ['a?b', 'a/b', false],
    // `{a,b}` alternatives, including ones with slashes and nested globs.
    ['{a,b}.txt', 'a.txt', true],
    ['{a,b}.txt', 'b.txt', true],
    ['{a,b}.txt', 'c.txt', false],
    ['{a,b}.txt', '{a,b}.txt', false],
    ['src/{a,b/c}/*.ts', 'src/b/c/x.ts', true],
    ['src/{a,b/c}/*.ts', 'src/b/x.ts', false],
    ['{src/**/*.ts,test/*.ts}', 'src/x/y.ts', true],
    ['{src/**/*.ts,test/*.ts}', 'test/x/y.ts', false],
    ['a,b', 'a,b', true], // a comma outside braces is literal
    // `[ab]` classes and `[!a]` negated classes, one character, never `/`.
    ['[ab].txt', 'a.txt', true],
    ['[ab].txt', 'b.txt', true],
    ['[ab].txt', 'c.txt', false],
    ['[ab].txt', 'ab.txt', false],
    ['[a-c]x', 'bx', true],
    ['[a-c]x', 'dx', false],
    ['[!a].txt', 'b.txt', true],
    ['[!a].txt', 'a.txt', false],
    ['x[!a]y', 'x/y', false],
    ['x[^a]y', 'x/y', false],
    ['x[^a]y', 'xby', true],
    // `./` prefixes are dropped, also after `!`.
    ['./src/*.ts', 'src/a.ts', true],
    ['./a.txt', 'a.txt', true],
    ['!./a.txt', 'a.txt', true], // the exclusion's own pattern (negation is applied by matchGlobs)
    // Dotfiles are ordinary names: `*` and `**` select them (a check must not miss `.eslintrc`).
    ['*', '.gitignore', true],
    ['**/*', 'a/.hidden', true],
    ['**/*', '.config/x.json', true],
    ['.*', '.eslintrc', true],
    // Regex metacharacters in names are literal.
    ['a.b', 'axb', false],
    ['a.b', 'a.b', true],
    ['a+b.txt', 'a+b.txt', true],
    ['a+b.txt', 'aab.txt', false],
    ['a|b', 'a', false],
    ['a|b', 'a|b', true],
    ['(x)$.txt', '(x)$.txt', true],
    ['^x', '^x', true],
    // Literals match exactly one path, never a prefix or a suffix of one.
    ['a.txt', 'a.txt', true],
    ['a.txt', 'a.txt.bak', false],
    ['a.txt', 'dir/a.txt', false],
    ['src', 'src/a.ts', false],
  ];
  for (const [pattern, path, expected] of rows) check(pattern, path, expected);
});

test('static prefix, literal and negated flags, table-driven', () => {
  const rows: Array<[string, { prefix: string; literal: boolean; negated: boolean }]> = [
    ['src/**/*.ts', { prefix: 'src/', literal: false, negated: false }],
    ['src/a?.ts', { prefix: 'src/', literal: false, negated: false }],
    ['src/lib/*.ts', { prefix: 'src/lib/', literal: false, negated: false }],
    ['src/li*/x.ts', { prefix: 'src/', literal: false, negated: false }],
    ['x/{a,b}/y', { prefix: 'x/', literal: false, negated: false }],
    ['{a,b}/x', { prefix: '', literal: false, negated: false }],
    ['[ab]/x', { prefix: '', literal: false, negated: false }],
    ['*.ts', { prefix: '', literal: false, negated: false }],
    ['**', { prefix: '', literal: false, negated: false }],
    ['a.txt', { prefix: 'a.txt', literal: true, negated: false }],
    ['docs/guide.md', { prefix: 'docs/guide.md', literal: true, negated: false }],
    ['./src/*.ts', { prefix: 'src/', literal: false, negated: false }],
    ['././a.txt', { prefix: 'a.txt', literal: true, negated: false }],
    ['!src/gen/**', { prefix: 'src/gen/', literal: false, negated: true }],
    ['!./a.txt', { prefix: 'a.txt', literal: true, negated: true }],
  ];
  for (const [pattern, expected] of rows) {
    const g = compileGlob(pattern);
    assert.deepEqual({ prefix: g.prefix, literal: g.literal, negated: g.negated }, expected, pattern);
    assert.equal(g.source, pattern);
  }
});

const FILES = [
  '.env.example',
  '.gitignore',
  'README.md',
  'a.txt',
  'b/c.txt',
  'b/d.md',
  'src/a.gen.ts',
  'src/a.ts',
  'src/b.ts',
  'src/z/y.ts',
  'srcx/a.ts',
  'test/a.test.ts',
].sort();

/** One row: which of FILES do `globs` select? */
function checkMatch(globs: string[], expected: string[]): void {
  assert.deepEqual(matchGlobs(globs.map(compileGlob), FILES), expected, JSON.stringify(globs));
}

test('matchGlobs: exclusions, overlapping globs, prefixes that are not directories, table-driven', () => {
  checkMatch(['src/**/*.ts'], ['src/a.gen.ts', 'src/a.ts', 'src/b.ts', 'src/z/y.ts']);
  checkMatch(['src/**/*.ts', '!**/*.gen.ts'], ['src/a.ts', 'src/b.ts', 'src/z/y.ts']);
  // An exclusion applies wherever it is listed.
  checkMatch(['!**/*.gen.ts', 'src/**/*.ts'], ['src/a.ts', 'src/b.ts', 'src/z/y.ts']);
  checkMatch(['src/**/*.ts', '!src/z/**'], ['src/a.gen.ts', 'src/a.ts', 'src/b.ts']);
  // `src/` as a prefix must not let `srcx/` in, nor a literal's prefix let `a.txt.bak`-like names in.
  checkMatch(['src/*.ts'], ['src/a.gen.ts', 'src/a.ts', 'src/b.ts']);
  checkMatch(['srcx/*.ts'], ['srcx/a.ts']);
  // A negated class never matches `/`: otherwise this exclusion would drop `src/a.ts`, an input the check reads.
  checkMatch(['src/*.ts', '!src[!x]a.ts'], ['src/a.gen.ts', 'src/a.ts', 'src/b.ts']);
  // Exclusions alone select nothing.
  checkMatch(['!src/**'], []);
  checkMatch(['nothing/**'], []);
  checkMatch(['*'], ['.env.example', '.gitignore', 'README.md', 'a.txt']);
});

test('matchGlobs returns sorted, unique paths whatever the globs order and overlap', () => {
  const got = matchGlobs(
    ['test/*.ts', 'src/z/*.ts', '**/*.ts', 'src/a.ts', '{src,test}/**/a*.ts', 'b/*'].map(compileGlob),
    FILES,
  );
  const expected = [
    'b/c.txt',
    'b/d.md',
    'src/a.gen.ts',
    'src/a.ts',
    'src/b.ts',
    'src/z/y.ts',
    'srcx/a.ts',
    'test/a.test.ts',
  ];
  assert.deepEqual(got, expected);
  assert.deepEqual(got, [...new Set(got)].sort());
});

test('matchGlobs over a large sorted list finds every match behind a static prefix', () => {
  const files: string[] = [];
  for (let d = 0; d < 50; d++) for (let f = 0; f < 40; f++) files.push(`pkg${String(d).padStart(2, '0')}/src/f${f}.ts`);
  files.sort();
  const got = matchGlobs([compileGlob('pkg17/src/*.ts'), compileGlob('pkg3*/src/f1.ts')], files);
  const expected = [
    ...Array.from({ length: 40 }, (_, f) => `pkg17/src/f${f}.ts`),
    ...Array.from({ length: 10 }, (_, d) => `pkg3${d}/src/f1.ts`),
  ].sort();
  assert.deepEqual(got, expected);
});

test('reachesBelow: whether a glob can match some path inside a directory vkit cannot list (a git-ignored one)', () => {
  const rows: Array<[string, string, boolean]> = [
    ['**/*.ts', 'node_modules', true],
    ['**', 'a/b', true],
    ['src/**/*.ts', 'node_modules', false],
    ['src/**/*.ts', 'src/gen', true],
    ['src/**/*.ts', 'src', true],
    ['src/*.ts', 'src/gen', false], // `*` stays in one segment: nothing below src/gen
    ['src/*/*.ts', 'src/gen', true],
    ['src/*/*.ts', 'src/gen/deeper', false],
    ['*.md', 'dist', false],
    ['*', 'dist', false], // matches `dist` itself at most, never a path inside it
    ['*/**', 'dist', true],
    ['a/**/b/*.js', 'a/x/y', true], // `**` absorbs x/y, then b/*.js can still follow
    ['{src/**/*.ts,*.md}', 'node_modules', false],
    ['{src,node_modules}/**', 'node_modules', true],
    ['src/{a,b/c}/*.ts', 'src/b', true],
    ['src/{a,b/c}/*.ts', 'src/d', false],
    ['node_modules/pkg/index.js', 'node_modules', true], // a literal inside it
    ['node_modules', 'node_modules', false], // the directory's own name is no path inside it
    ['[nN]ode_modules/**', 'node_modules', true],
    ['.cache/**', 'node_modules', false],
    ['**/.cache/*', 'a/.cache', true],
    ['**/.cache/*', 'a/.cache/b', true], // `**` can absorb all three: a/.cache/b/.cache/x
    ['x/.cache/*', 'x/.cache/b', false],
  ];
  for (const [glob, dir, expected] of rows)
    assert.equal(reachesBelow(compileGlob(glob), dir), expected, `${glob} into ${dir}/`);
});

test('coversBelow: an exclusion covers a directory only when it excludes every path inside it', () => {
  const rows: Array<[string, string, boolean]> = [
    ['!node_modules/**', 'node_modules', true],
    ['!**/node_modules/**', 'node_modules', true],
    ['!**/node_modules/**', 'a/b/node_modules', true],
    ['!**', 'anything', true],
    ['!src/**', 'src/gen', true], // an ancestor excluded whole
    ['!node_modules/**/*.ts', 'node_modules', false], // narrower: not recognised
    ['!node_modules', 'node_modules', false],
    ['!node_modules/*', 'node_modules', false],
    ['!dist/**', 'node_modules', false],
    ['!{dist,node_modules}/**', 'node_modules', true],
  ];
  for (const [glob, dir, expected] of rows)
    assert.equal(coversBelow(compileGlob(glob), dir), expected, `${glob} over ${dir}/`);
});

test('reachesBelow and coversBelow never miss a path: every match below a directory is reached, every covered one excluded (seeded)', () => {
  const seed = Number(process.env.VKIT_FUZZ_SEED ?? 20261201);
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const names = ['a', 'b', 'ab', '.x', 'node_modules', 'a.ts', 'b.md'];
  const parts = ['a', 'b', '*', '**', '?', 'a*', '*.ts', '[ab]', '{a,b}', '{a/b,node_modules}', '.x', 'node_modules'];
  const path = (n: number) => Array.from({ length: n }, () => pick(names)).join('/');
  for (let i = 0; i < 3000; i++) {
    const glob = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(parts)).join('/');
    const g = compileGlob(glob);
    const p = path(2 + Math.floor(rand() * 4));
    const segs = p.split('/');
    const dir = segs.slice(0, 1 + Math.floor(rand() * (segs.length - 1))).join('/');
    if (g.re.test(p))
      assert.ok(reachesBelow(g, dir), `seed ${seed}: ${glob} matches ${p} but is said not to reach ${dir}/`);
    if (coversBelow(compileGlob(`!${glob}`), dir))
      assert.ok(g.re.test(p), `seed ${seed}: !${glob} said to cover ${dir}/ but does not exclude ${p}`);
  }
});

test('escapeGlob: the exclusion vkit suggests for a path matches exactly that path, glob characters and all', () => {
  const paths = [
    'config/a[1].key',
    'x/*.env',
    'odd/{a,b}.pem',
    'q?/r.txt',
    'br]ace}/x',
    'back\\slash',
    '!bang',
    'a.b+c(d)|e^f$g',
  ];
  for (const p of paths) {
    const g = compileGlob(escapeGlob(p));
    assert.ok(g.re.test(p), `${escapeGlob(p)} must match ${p}`);
    assert.deepEqual(
      matchGlobs([g], [...paths, 'config/a1.key', 'x/a.env', 'odd/a.pem', 'qz/r.txt'].sort()),
      [p],
      escapeGlob(p),
    );
    assert.deepEqual(
      matchGlobs([compileGlob('**'), compileGlob(`!${escapeGlob(p)}`)], [p]),
      [],
      `!${escapeGlob(p)} excludes it`,
    );
  }
});
