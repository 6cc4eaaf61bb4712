/**
 * `vkit cache push` whose uploads fail (a server that refuses connections: no nginx needed) is not
 * a success: exit 3, saying how many entries of how many were uploaded, and why each was not.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { keyFiles } from '../_support/keys.js';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

let repo: TempRepo;
let refused: string;

before(async () => {
  repo = tempRepo({ 'in.txt': 'in\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['in.txt'] }] });
  repo.commitAll();
  const built = vkit(['build', '--root', repo.dir, '--store', storeDir(repo)], { env: { VKIT_DAEMON: '0' } });
  assert.equal(built.code, 0, built.stderr);
  // A port nothing listens on: bound, then closed again.
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  refused = `http://127.0.0.1:${port}`;
});

after(() => repo.cleanup());

for (const json of [false, true]) {
  test(`cache push${json ? ' --json' : ''} with every upload refused: exit 3, 0 of 1 uploaded`, () => {
    const key = keyFiles(repo.dir, 'signer');
    const args = ['cache', 'push', '--remote', refused, '--root', repo.dir, '--store', storeDir(repo)];
    const r = vkit(json ? [...args, '--json'] : args, { env: { VKIT_DAEMON: '0', VKIT_SIGNING_KEY: key.key } });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    if (json) {
      const pushed = r.json().pushed as { ok: boolean; reason: string | null }[];
      assert.equal(pushed.length, 1);
      assert.equal(pushed[0]!.ok, false);
      assert.match(pushed[0]!.reason ?? '', /ECONNREFUSED|failed/);
    } else {
      assert.match(r.stdout, /^not uploaded check:a .*ECONNREFUSED/m);
      assert.match(r.stdout, /^0 of 1 uploaded to http:\/\/127\.0\.0\.1:\d+$/m);
    }
  });
}
