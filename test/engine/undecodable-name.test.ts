/**
 * Git (and the walk without git) hand vkit file names as UTF-8 text. A name that is
 * not valid UTF-8 (`src/\xff.txt`) arrives with U+FFFD in place of its bytes, cannot be opened by that
 * name, and was silently dropped from the capture as if deleted. The check still read the file, so
 * editing it kept the cached PASS (READY). Selected, it must make the item BLOCKED instead.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

const READ_ALL =
  "const fs=require('fs');for(const f of fs.readdirSync('src',{encoding:'buffer'}))if(fs.readFileSync(Buffer.concat([Buffer.from('src/'),f])).includes('bad'))process.exit(1)";

for (const git of [true, false]) {
  test(`${git ? 'git' : 'no git'}: a selected input whose name is not valid UTF-8 is BLOCKED, never silently uncaptured`, () => {
    const repo = tempRepo({ 'src/c.txt': 'ok\n' }, { git });
    const odd = Buffer.from([...Buffer.from(join(repo.dir, 'src/')), 0xff, ...Buffer.from('.txt')]);
    try {
      writeFileSync(odd, 'ok\n');
      repo.manifest({ checks: [{ id: 't', run: ['node', '-e', READ_ALL], inputs: ['src/**'] }] });
      const first = cli(repo, ['build', '--json']);
      if (first.code === 0) {
        // The old behaviour: the odd file is outside the key, so an edit there is never seen.
        writeFileSync(odd, 'bad\n');
        const again = cli(repo, ['build', '--json']);
        assert.notEqual(again.json().gate.status, 'READY', 'edited uncaptured input: still READY from the cache');
      }
      assert.equal(first.code, 3, first.stdout);
      const item = first.json().gate.items[0];
      assert.equal(item.status, 'BLOCKED');
      assert.match(item.reason, /not valid UTF-8/);
      const gate = cli(repo, ['gate', '--json']);
      assert.equal(gate.code, 3);
      assert.match(gate.json().items[0].reason, /not valid UTF-8/);
      // Inputs that do not select it are unaffected.
      repo.manifest({ checks: [{ id: 't', run: ['true'], inputs: ['src/c.txt'] }] });
      assert.equal(cli(repo, ['build']).code, 0);
    } finally {
      repo.cleanup();
    }
  });
}
