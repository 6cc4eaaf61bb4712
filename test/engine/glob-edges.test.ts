/**
 * Globs are user input and selection decides what a key covers.
 * - A glob the compiler turns into an invalid regular expression (an unclosed `{`, a class range out
 *   of order) crashed every verb with an internal error (exit 4) instead of a config error (exit 2).
 * - A trailing `**` compiled to `.*`, which never matches a newline: a file whose name holds one was
 *   left out of `{src,lib}/**` (or `*\/**`), so editing it left the cached PASS of a check that reads
 *   it standing.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileGlob, matchGlobs } from '../../src/text/glob.js';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

for (const [field, glob] of [
  ['inputs', 'src/{a,b.js'],
  ['inputs', 'src/[z-a].js'],
  ['inputs', '!src/{x'],
  ['outputs', 'out/[z-a]'],
] as const) {
  test(`a malformed glob in ${field} (\`${glob}\`) is a config error naming the field, not an internal error`, () => {
    const repo = tempRepo({ 'src/a.js': 'a\n' });
    try {
      const check = {
        id: 't',
        run: ['true'],
        inputs: field === 'inputs' ? ['src/a.js', glob] : ['src/a.js'],
        ...(field === 'outputs' ? { outputs: [glob] } : {}),
      };
      repo.manifest({ checks: [check] });
      for (const verb of ['build', 'gate']) {
        const r = cli(repo, [verb]);
        assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
        assert.doesNotMatch(r.stderr, /internal error/);
        assert.match(r.stderr, new RegExp(`checks\\[0\\]\\.${field}\\[${field === 'inputs' ? 1 : 0}\\]`));
      }
    } finally {
      repo.cleanup();
    }
  });
}

test('globs match names holding a newline the same way whatever their shape', () => {
  const paths = ['lib/c.js', 'src/a\nb.js', 'src/c.js'];
  for (const g of ['src/**', '{src,lib}/**', '*/**', '**', 'src/*', 'src/**/*']) {
    assert.ok(matchGlobs([compileGlob(g)], paths).includes('src/a\nb.js'), `${g} must select src/a\\nb.js`);
  }
  assert.deepEqual(
    matchGlobs([compileGlob('**'), compileGlob('!src/**')], paths),
    ['lib/c.js'],
    '`!src/**` excludes it too',
  );
});

test('a check reading a file whose name holds a newline reruns when that file changes', () => {
  const name = 'src/a\nb.txt';
  const repo = tempRepo({ [name]: 'ok\n', 'src/c.txt': 'ok\n' });
  try {
    repo.age(name);
    repo.age('src/c.txt');
    // Reads every file under src/ and fails when any says "bad".
    const run = nodeCheck(
      "const fs=require('fs');for(const f of fs.readdirSync('src'))if(fs.readFileSync('src/'+f,'utf8').includes('bad'))process.exit(1)",
    );
    repo.manifest({ checks: [{ id: 't', run, inputs: ['{src,lib}/**'] }] });
    const first = cli(repo, ['build', '--json']);
    assert.equal(first.code, 0, first.stderr);
    writeFileSync(join(repo.dir, name), 'bad\n');
    const second = cli(repo, ['build', '--json']);
    assert.equal(second.json().actions[0].status, 'failed', 'the edit must rerun the check');
    assert.equal(second.code, 1);
    assert.equal(cli(repo, ['gate']).code, 1);
  } finally {
    repo.cleanup();
  }
});
