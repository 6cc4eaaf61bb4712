/**
 * A `compare` item's only captured input is its request file, selected by using
 * `request` as a glob. Whatever the rule reads must be what the key covers:
 * - a request path starting with `!` was a negated glob (nothing captured: the key ignored the file);
 * - a request path holding glob characters captured another file (`req[1].json` selected `req1.json`);
 * - a symlinked request was hashed as its target string while the rule read the target's bytes.
 * Each let an edit that flips the comparison leave the cached PASS standing (READY).
 */
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { REPO_ROOT, tempRepo, type TempRepo } from '../_support/repo.js';

const REQUEST = readFileSync(join(REPO_ROOT, 'examples', 'model-comparison', 'request.json'), 'utf8');

/** The example request made equivalent: `after` := `before`. */
function equivalent(): string {
  const d = JSON.parse(REQUEST);
  d.after = d.before;
  return JSON.stringify(d);
}

function gateOf(repo: TempRepo, verb: 'build' | 'gate') {
  const r = cli(repo, [verb, '--json']);
  const gate = verb === 'build' ? r.json().gate : r.json();
  return { code: r.code, status: gate.status as string, r };
}

for (const name of ['!req.json', 'req[1].json']) {
  test(`a request named \`${name}\` is refused as a config error (exit 2), never a key blind to its bytes`, () => {
    const repo = tempRepo({ [name]: REQUEST, 'req1.json': REQUEST });
    try {
      repo.manifest({ compare: [{ id: 'm', request: name, expect: 'different' }] });
      const first = cli(repo, ['build', '--json']);
      if (first.code === 0) {
        // The old behaviour: show the false green it leads to.
        writeFileSync(join(repo.dir, name), equivalent());
        const again = gateOf(repo, 'build');
        assert.notEqual(again.status, 'READY', `an equivalent request behind \`${name}\` still READY (cached PASS)`);
      }
      assert.equal(first.code, 2, first.stdout + first.stderr);
      assert.match(first.stderr, /compare\[0\]\.request/);
    } finally {
      repo.cleanup();
    }
  });
}

test('a symlinked request: the comparison never rests on bytes its key does not cover', () => {
  const repo = tempRepo({ 'models/v1.json': REQUEST });
  try {
    symlinkSync('models/v1.json', join(repo.dir, 'req.json'));
    repo.manifest({ compare: [{ id: 'm', request: 'req.json', expect: 'different' }] });
    const first = gateOf(repo, 'build');
    // Edit the target only: the symlink (all the capture sees) is unchanged.
    writeFileSync(join(repo.dir, 'models/v1.json'), equivalent());
    const second = gateOf(repo, 'build');
    assert.notEqual(
      second.status,
      'READY',
      `first ${first.status}, then READY although the target now says equivalent`,
    );
    const gate = gateOf(repo, 'gate');
    assert.notEqual(gate.status, 'READY');
    assert.notEqual(gate.code, 0);
  } finally {
    repo.cleanup();
  }
});
