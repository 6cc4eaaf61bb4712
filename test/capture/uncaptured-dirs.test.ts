/**
 * Which git-ignored directories a check's globs must exclude (`uncapturedPaths`): only those under
 * a glob's static prefix or on its way are asked about (`reachesBelow`), so a tree with an ignored
 * directory per package costs checks x (a few) instead of checks x directories. Seeded random globs
 * over random trees, with random directories ignored: the answer is the one asking every glob about
 * every directory gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uncapturedPaths } from '../../src/capture/selector.js';
import { compileGlob, coversBelow, escapeGlob, globProblem, reachesBelow } from '../../src/text/glob.js';
import { randomGlob, randomTree } from '../_support/fuzz-globs.js';
import { caseRng } from '../_support/random.js';

/** Every ignored directory against every glob: the loop `uncapturedByGlob` ran before. */
function everyDirectory(globs: string[], ignoredDirs: string[]): string[] {
  const compiled = globs.map(compileGlob);
  const negated = compiled.filter((g) => g.negated);
  const out: string[] = [];
  for (const dir of ignoredDirs) {
    if (negated.some((n) => coversBelow(n, dir))) continue;
    if (compiled.some((g) => !g.negated && reachesBelow(g, dir))) out.push(`${dir}/ !${escapeGlob(dir)}/**`);
  }
  return out.sort();
}

test('the ignored directories a check must exclude are those every directory asked about gives', () => {
  let found = 0;
  for (let i = 0; i < 1500; i++) {
    const rng = caseRng(0x1d1e, i);
    const tree = randomTree(rng);
    const dirs = [
      ...new Set(
        tree.flatMap((p) =>
          p
            .split('/')
            .slice(0, -1)
            .map((_, k, parts) => parts.slice(0, k + 1).join('/')),
        ),
      ),
    ];
    const ignoredDirs = dirs.filter(() => rng.chance(0.4));
    const globs = Array.from({ length: rng.between(1, 3) }, () => randomGlob(rng, tree)).map((g, k) =>
      k > 0 && rng.chance(0.3) ? `!${g}` : g,
    );
    if (globs.some((g) => globProblem(g) !== undefined) || globs[0]!.startsWith('!')) continue;
    // No ignored files: only the directories are compared.
    const files = tree.filter((p) => !ignoredDirs.some((d) => p.startsWith(`${d}/`))).sort();
    const got = uncapturedPaths(
      globs,
      files,
      ignoredDirs.map((d) => `${d}/`),
    )
      .filter((u) => u.why === 'git-ignored directory')
      .map((u) => `${u.path} ${u.exclude}`)
      .sort();
    const expected = everyDirectory(globs, ignoredDirs);
    assert.deepEqual(
      got,
      expected,
      `case ${i}: globs ${JSON.stringify(globs)}, ignored ${JSON.stringify(ignoredDirs)}`,
    );
    found += expected.length;
  }
  assert.ok(found > 100, `cases that found a directory to exclude: ${found}`);
});
