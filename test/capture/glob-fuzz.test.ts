/**
 * Fuzzing the glob compiler (src/text/glob.ts) against a reference matcher written apart from it
 * (test/_support/fuzz-globs.ts): random patterns in the supported syntax over random small trees,
 * junk made of glob characters, and hostile shapes that make a backtracking matcher run for ever.
 * Per case: `globProblem` says a problem exactly when the reference does; otherwise every path
 * matches exactly when the reference says so, `matchGlobs` selects the reference's paths (one glob,
 * and several with exclusions), every match starts with the static prefix; and nothing takes long.
 * Matching runs in a thread of its own, so a hang is a failed case, stopped and named.
 *
 * Reproducible: the seed is printed, and each case draws from its own generator (seed, case
 * number). A few cases also go through the CLI (a check whose inputs are the generated globs). A
 * longer run: `npm run fuzz:config`, or
 *   VKIT_FUZZ_SEED=7 VKIT_FUZZ_GLOB_CASES=20000 VKIT_FUZZ_GLOB_CLI_CASES=100 node scripts/run-tests.js capture/glob-fuzz
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { compileGlob, globProblem, matchGlobs } from '../../src/text/glob.js';
import { cliCase, runCliCases } from '../_support/fuzz-cli.js';
import {
  hostileGlob,
  junkGlob,
  randomGlob,
  randomTree,
  referenceGlob,
  type Reference,
} from '../_support/fuzz-globs.js';
import { knownOf } from '../_support/fuzz-manifests.js';
import { WATCHED_FROM_OUTSIDE } from '../_support/repo.js';
import { caseRng, type Rng } from '../_support/random.js';
import type { GlobAnswer, GlobQuery } from './_glob-fuzz-worker.js';

const SEED = Number(process.env.VKIT_FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.VKIT_FUZZ_GLOB_CASES ?? 1000);
const CLI_CASES = Number(process.env.VKIT_FUZZ_GLOB_CLI_CASES ?? 3);
/** A case answered later than this is a hang: far above any real case (a few ms), far below the old matcher's minutes. */
const HANG_MS = 5_000;
/** Slower than this, and not a hang, is still a failure: matching is linear in the path. */
const SLOW_MS = 1_500;

interface Case {
  kind: string;
  patterns: string[];
  paths: string[];
}

function generate(rng: Rng): Case {
  const kind = rng.weighted([
    [55, 'supported'],
    [15, 'several'],
    [18, 'junk'],
    [12, 'hostile'],
  ] as const);
  const tree = randomTree(rng);
  switch (kind) {
    case 'supported':
      return { kind, patterns: [randomGlob(rng, tree)], paths: tree };
    case 'several': {
      const patterns = Array.from(
        { length: rng.between(2, 4) },
        () => (rng.chance(0.35) ? '!' : '') + randomGlob(rng, tree),
      );
      return { kind, patterns, paths: tree };
    }
    case 'junk':
      return { kind, patterns: [junkGlob(rng)], paths: tree };
    case 'hostile': {
      const h = hostileGlob(rng);
      return { kind, patterns: [h.pattern], paths: [...new Set([...h.paths, ...tree])].sort() };
    }
  }
}

const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} characters)` : s);

/** The matcher thread, restarted after a hang. */
class Matcher {
  private worker = this.start();
  private start(): Worker {
    return new Worker(new URL('./_glob-fuzz-worker.js', import.meta.url));
  }
  async ask(q: GlobQuery): Promise<GlobAnswer | { hang: true } | { crash: string }> {
    const worker = this.worker;
    const answer = await new Promise<GlobAnswer | { hang: true } | { crash: string }>((resolve) => {
      const timer = setTimeout(() => resolve({ hang: true }), HANG_MS);
      worker.once('message', (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      worker.postMessage(q);
    });
    if ('hang' in answer) {
      await worker.terminate();
      this.worker = this.start();
    }
    return answer;
  }
  close(): Promise<number> {
    return this.worker.terminate();
  }
}

let matcher: Matcher;
before(() => {
  console.log(`glob fuzz: VKIT_FUZZ_SEED=${SEED} VKIT_FUZZ_GLOB_CASES=${CASES} VKIT_FUZZ_GLOB_CLI_CASES=${CLI_CASES}`);
  matcher = new Matcher();
});
after(() => matcher.close());

test('in-process: generated globs agree with the reference matcher, and matching never hangs', async () => {
  const t0 = performance.now();
  const kinds = new Map<string, { cases: number; problems: number; matches: number }>();
  let slowest = 0;
  for (let index = 0; index < CASES; index++) {
    const c = generate(caseRng(SEED, index));
    const what = `case ${index} (${c.kind}) of VKIT_FUZZ_SEED=${SEED}: ${c.patterns.map((p) => JSON.stringify(cut(p))).join(' ')} over ${c.paths.length} paths`;
    const answer = await matcher.ask({ patterns: c.patterns, paths: c.paths });
    assert.ok(!('hang' in answer), `${what}: no answer within ${HANG_MS} ms (a hang)`);
    assert.ok(!('crash' in answer), `${what}: threw ${'crash' in answer ? answer.crash : ''}`);
    const a = answer as GlobAnswer;
    assert.ok(a.ms < SLOW_MS, `${what}: took ${a.ms.toFixed(0)} ms`);
    slowest = Math.max(slowest, a.ms);
    const refs: Reference[] = c.patterns.map(referenceGlob);
    const tally = kinds.get(c.kind) ?? { cases: 0, problems: 0, matches: 0 };
    tally.cases++;
    c.patterns.forEach((p, i) => {
      const ref = refs[i]!;
      const got = a.compiled[i];
      assert.equal(
        a.problems[i] !== null,
        ref.problem !== undefined,
        `${what}: pattern ${JSON.stringify(cut(p))}: vkit says ${a.problems[i] === null ? 'valid' : `problem "${a.problems[i]}"`}, the reference ${ref.problem ? `problem "${ref.problem}"` : 'valid'}`,
      );
      if (ref.problem !== undefined || !got) {
        tally.problems++;
        return;
      }
      const expected = c.paths.filter((path) => ref.test(path));
      const matched = c.paths.filter((_, k) => got.tests[k]);
      assert.deepEqual(matched, expected, `${what}: pattern ${JSON.stringify(cut(p))}: paths matched`);
      assert.deepEqual(got.each, ref.negated ? [] : expected, `${what}: matchGlobs([${JSON.stringify(cut(p))}])`);
      assert.equal(got.negated, ref.negated);
      for (const m of matched)
        assert.ok(
          m.startsWith(got.prefix),
          `${what}: ${m} matched but lies outside the static prefix ${JSON.stringify(got.prefix)}`,
        );
      if (got.literal)
        assert.ok(
          matched.every((m) => m === got.prefix),
          `${what}: a literal matched ${matched.join(', ')}`,
        );
      tally.matches += matched.length;
    });
    const valid = refs.filter((r): r is Extract<Reference, { problem?: undefined }> => r.problem === undefined);
    const together = c.paths.filter(
      (path) => valid.some((r) => !r.negated && r.test(path)) && !valid.some((r) => r.negated && r.test(path)),
    );
    assert.deepEqual(a.together, together, `${what}: matchGlobs over all of them`);
    kinds.set(c.kind, tally);
  }
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `glob fuzz: ${CASES} cases in ${s} s, slowest ${slowest.toFixed(1)} ms; ${[...kinds].map(([k, t]) => `${k} ${t.cases} (${t.problems} problems, ${t.matches} matches)`).join('; ')}`,
  );
  console.log(
    `FUZZ-FIGURES ${JSON.stringify({ fuzzer: 'glob (in-process)', seed: SEED, cases: CASES, hangs: 0, slowest_ms: Math.round(slowest), seconds: Number(s) })}`,
  );
});

test("the CLI: generated globs as a check's inputs over a generated tree: exit 0-3, a malformed glob exit 2, no stack, no hang, READY only when the check ran", async () => {
  const cases = Array.from({ length: CLI_CASES }, (_, k) => CASES + k); // not the in-process cases again
  const failures = await runCliCases('glob', SEED, cases, async (index, repo, marks, tally) => {
    const c = generate(caseRng(SEED, index));
    // A path whose directory is also a file cannot exist (keep the first), nor a name past 255 bytes.
    const files = c.paths.filter(
      (p, i) =>
        !c.paths.some((q, j) => j < i && (p.startsWith(`${q}/`) || q.startsWith(`${p}/`))) &&
        p.split('/').every((n) => Buffer.byteLength(n) <= 255),
    );
    for (const p of files) repo.write(p, `${p}\n`);
    const data = {
      checks: [
        {
          id: 'globbed',
          run: ['node', '-e', `require('fs').writeFileSync(${JSON.stringify(`${marks}/globbed`)},'');process.exit(0)`],
          inputs: c.patterns,
          sandbox: WATCHED_FROM_OUTSIDE,
        },
      ],
    };
    repo.write('vkit.manifest.json', JSON.stringify(data));
    const malformed = c.patterns.find((p) => referenceGlob(p).problem !== undefined);
    return cliCase({
      what: `case ${index} (${c.kind}) of VKIT_FUZZ_SEED=${SEED}: ${c.patterns.map((p) => JSON.stringify(cut(p))).join(' ')}`,
      root: repo.dir,
      configName: 'vkit.manifest.json',
      known: knownOf(data),
      invalid: malformed === undefined ? undefined : `the malformed glob ${JSON.stringify(cut(malformed))}`,
      timeoutMs: HANG_MS * 12,
      tally,
    });
  });
  assert.deepEqual(failures, []);
});

// Each row was a failing fuzz case (CHANGELOG, Unreleased); kept so that it stays fixed.
test('regression: a `**` inside braces spans directories (`{src/**,package.json}` selected only src/*)', () => {
  const rows: Array<[string, string, boolean]> = [
    ['{src/**,package.json}', 'src/a/b.ts', true],
    ['{src/**,package.json}', 'package.json', true],
    ['{**}', 'a/b/c', true],
    ['src/{**/,}x.ts', 'src/a/b/x.ts', true],
    ['{a,b}/**', 'b/c/d', true],
  ];
  for (const [pattern, path, expected] of rows) {
    assert.equal(globProblem(pattern), undefined, pattern);
    assert.equal(compileGlob(pattern).re.test(path), expected, `${pattern} vs ${path}`);
    assert.deepEqual(matchGlobs([compileGlob(pattern)], [path]), expected ? [path] : [], `${pattern} vs ${path}`);
  }
});

test('regression: a negated class starting with `-` is not a range from `/` (`[!-z]` refused every letter)', () => {
  assert.equal(compileGlob('x[!-z]').re.test('xa'), true);
  assert.equal(compileGlob('x[!-z]').re.test('x-'), false);
  assert.equal(compileGlob('x[!-z]').re.test('xz'), false);
  assert.equal(globProblem('[!-!]'), undefined, 'not "Range out of order"');
});

test('regression: `[]a]` is the class of `]` and `a`, not "Lone quantifier brackets"', () => {
  assert.equal(globProblem('[]a]'), undefined);
  assert.deepEqual(matchGlobs([compileGlob('[]a]')], [']', 'a', 'b']), [']', 'a']);
});

test('regression: `*` runs, `*a*a…` and `**/**/…` against a long name or a deep path answer at once (the regex took minutes)', async () => {
  const rows: GlobQuery[] = [
    { patterns: [`${'*'.repeat(16)}b`], paths: ['a'.repeat(40)] },
    { patterns: [`${'*a'.repeat(20)}b`], paths: ['a'.repeat(100)] },
    { patterns: [`${'**/'.repeat(24)}b`], paths: [Array.from({ length: 40 }, () => 'a').join('/')] },
  ];
  for (const q of rows) {
    const answer = await matcher.ask(q);
    assert.ok(!('hang' in answer) && !('crash' in answer), `${q.patterns[0]}: no answer within ${HANG_MS} ms`);
    assert.deepEqual((answer as GlobAnswer).together, []);
  }
});
