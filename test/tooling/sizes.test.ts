/**
 * The size limits of scripts/check-sizes.js (part of `npm run lint`): the code as it is keeps them,
 * and a function of 151 lines or a file of 601 lines planted in a git repository fails the check,
 * named with its line, while 150 and 600 pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';

const CHECK = join(REPO_ROOT, 'scripts', 'check-sizes.js');
const sizes = (cwd: string) => spawnSync(process.execPath, [CHECK], { cwd, encoding: 'utf8' });

/** A function of exactly `lines` lines, its body made of statements. */
const fn = (name: string, lines: number) =>
  `export function ${name}(): number {\n  let n = 0;\n${'  n++;\n'.repeat(lines - 3)}}\n`;

test("vkit's own src/ and rules/ keep the size limits", () => {
  const r = sizes(REPO_ROOT);
  assert.equal(r.status, 0, r.stderr);
});

test('a function of 151 lines or a file of 601 fails the check, naming each; 150 and 600 pass', () => {
  const repo = tempRepo({
    'src/ok.ts': fn('fits', 150),
    'rules/k/ok.ts': `${'// line\n'.repeat(599)}`,
  });
  try {
    assert.equal(sizes(repo.dir).status, 0, 'at the limits');
    repo.write('src/long.ts', `\n${fn('tooLong', 151)}`);
    repo.write('rules/k/big.ts', `${'// line\n'.repeat(600)}`);
    const r = sizes(repo.dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /src\/long\.ts:2: tooLong is 151 lines/);
    assert.match(r.stderr, /rules\/k\/big\.ts: 601 lines/);
    assert.doesNotMatch(r.stderr, /ok\.ts/);
  } finally {
    repo.cleanup();
  }
});
