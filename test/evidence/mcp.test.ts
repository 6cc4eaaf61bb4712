/**
 * `evidence_export` and `evidence_replay` through a real MCP client: the same service as the CLI,
 * paths relative to the server's root, hostile bundles as coded tool errors (never a crash).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from '../_support/mcp-client.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';
import { makeTar } from './_tar.js';

test('MCP evidence_export then evidence_replay; include_assets and restore_assets say there is no asset', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('a')"), inputs: ['a.txt'] }] });
  const mcp = await connect(repo);
  try {
    const run = (await mcp.call('verify', { check: 'a', wait_s: 30 })).json.run;
    const exported = await mcp.call('evidence_export', { run, out: 'a.tar', include_assets: true });
    assert.equal(exported.isError, false, JSON.stringify(exported.json));
    assert.equal(exported.json.schema, 'vkit.evidence-export/1');
    assert.equal(exported.json.bundle, join(repo.dir, 'a.tar'));
    assert.match(exported.json.assets.note, /no formal profile asset exists/);
    assert.match(exported.json.integrity, /do not authenticate/);

    const replayed = await mcp.call('evidence_replay', { bundle: 'a.tar', restore_assets: true });
    assert.equal(replayed.isError, false, JSON.stringify(replayed.json));
    assert.equal(replayed.json.status, 'PASS');
    assert.equal(replayed.json.assets.restore_requested, true);
    assert.notEqual(replayed.json.replayed.run, run);

    writeFileSync(join(repo.dir, 'evil.tar'), makeTar([{ name: '../evil', body: 'x' }]));
    const evil = await mcp.call('evidence_replay', { bundle: 'evil.tar' });
    assert.equal(evil.isError, true);
    assert.match(JSON.stringify(evil.json), /ERR_BUNDLE_REFUSED/);
    assert.match(JSON.stringify(evil.json), /\.\.\/evil/);
  } finally {
    await mcp.close();
    repo.cleanup();
  }
});
