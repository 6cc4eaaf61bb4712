/**
 * What `vkit init` reads from package.json scripts and .gitignore lines (pure): which checks, the
 * build's outputs, when the test runs after the build, and which lines name folders.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { folderPattern } from '../../src/service/init-gitignore.js';
import { npmChecks, readPackageJson } from '../../src/service/init-project.js';

const pkg = (data: unknown) => readPackageJson(JSON.stringify(data), 'package.json');
const ignoring =
  (...names: string[]) =>
  (name: string) =>
    names.includes(name);
const testCheck = (data: unknown, ...ignored: string[]) =>
  npmChecks(pkg(data), ignoring(...ignored)).find((c) => c.id === 'test');

test('one check per known script, the typecheck under any of its usual names, `npm test` for the test', () => {
  const checks = npmChecks(
    pkg({ scripts: { 'type-check': 'tsc', lint: 'x', build: 'x', test: 'x', start: 'x', types: 'y' } }),
    ignoring(),
  );
  assert.deepEqual(
    checks.map((c) => [c.id, c.run]),
    [
      ['type-check', ['npm', 'run', 'type-check']],
      ['lint', ['npm', 'run', 'lint']],
      ['build', ['npm', 'run', 'build']],
      ['test', ['npm', 'test']],
    ],
  );
  // No script it knows: `npm test` as before (npm's default test script fails).
  assert.deepEqual(
    npmChecks(pkg({ scripts: { start: 'x' } }), ignoring()).map((c) => [c.id, c.run]),
    [['test', ['npm', 'test']]],
  );
  assert.deepEqual(
    npmChecks(pkg({}), ignoring()).map((c) => c.id),
    ['test'],
  );
  assert.equal(npmChecks(pkg({ scripts: { test: 'x' }, devDependencies: { a: '1' } }), ignoring())[0]!.npmDeps, true);
  assert.equal(npmChecks(pkg({ scripts: { test: 'x' } }), ignoring())[0]!.npmDeps, undefined);
});

test('the test runs after the build when it needs what the build writes, and only then', () => {
  const scripts = { build: 'tsc', test: 'vitest run' };
  // The package's entry point is in the git-ignored folder the build writes.
  assert.deepEqual(testCheck({ main: 'dist/index.js', scripts }, 'dist')?.after?.ids, ['build']);
  assert.deepEqual(testCheck({ exports: { '.': { import: './out/x.mjs' } }, scripts }, 'out')?.after?.ids, ['build']);
  // The test script (or pretest) runs the build itself.
  assert.deepEqual(testCheck({ scripts: { build: 'tsc', test: 'npm run build && node --test' } })?.after?.ids, [
    'build',
  ]);
  assert.deepEqual(testCheck({ scripts: { ...scripts, pretest: 'npm run build' } })?.after?.ids, ['build']);
  // The test script names the build's folder.
  assert.deepEqual(testCheck({ scripts: { build: 'tsc', test: 'node --test dist/test/' } }, 'dist')?.after?.ids, [
    'build',
  ]);
  // Nothing says the test needs the build: no order.
  assert.equal(testCheck({ main: 'index.js', scripts }, 'dist')?.after, undefined);
  assert.equal(
    testCheck({ main: 'dist/index.js', scripts })?.after,
    undefined,
    'dist/ not ignored: not a build folder',
  );
  assert.equal(
    testCheck({ main: 'dist/index.js', scripts: { test: 'node --test dist/' } }, 'dist')?.after,
    undefined,
    'no build',
  );
  assert.equal(testCheck({ scripts: { build: 'tsc', test: 'node --test distance/' } }, 'dist')?.after, undefined);
});

test('the build declares the git-ignored folder it writes as outputs', () => {
  const build = (data: unknown, ...ignored: string[]) =>
    npmChecks(pkg(data), ignoring(...ignored)).find((c) => c.id === 'build');
  assert.deepEqual(build({ main: 'lib/index.js', scripts: { build: 'tsc' } }, 'lib', 'dist')?.outputs?.globs, [
    'lib/**',
  ]);
  assert.deepEqual(build({ main: 'index.js', scripts: { build: 'tsc' } }, 'build')?.outputs?.globs, ['build/**']);
  assert.equal(
    build({ main: 'lib/index.js', scripts: { build: 'tsc' } })?.outputs,
    undefined,
    'a tracked lib/ is not one',
  );
});

test('.gitignore lines naming folders, anchored or at any depth; files and patterns are not folders', () => {
  assert.deepEqual(folderPattern('dist/'), { path: 'dist', anchored: false });
  assert.deepEqual(folderPattern('/coverage'), { path: 'coverage', anchored: true });
  assert.deepEqual(folderPattern('node_modules'), { path: 'node_modules', anchored: false });
  assert.deepEqual(folderPattern('**/tmp/'), { path: 'tmp', anchored: false });
  assert.deepEqual(folderPattern('packages/a/out/'), { path: 'packages/a/out', anchored: true });
  assert.deepEqual(folderPattern('.next/'), { path: '.next', anchored: false });
  for (const line of ['.env', 'index.d.ts', '*.log', 'dist/*', '!dist/', '# dist/', '', '   ', '/', '../x/'])
    assert.equal(folderPattern(line), undefined, line);
});
