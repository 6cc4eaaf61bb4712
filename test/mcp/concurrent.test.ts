/**
 * Several faces on one store at once: two MCP servers (each with its own client) and a CLI
 * `vkit build`, all started together. Each opens the store per call, so all succeed and the final
 * gate is READY.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkitAsync } from '../_support/repo.js';
import { connect } from '../_support/mcp-client.js';
import { whenClosed } from '../_support/wait.js';

const cliBuild = (root: string, store: string) =>
  whenClosed(vkitAsync(['build', '--json', '--root', root, '--store', store], { cwd: root }));

test('two MCP clients and a CLI build share one store at once; the final gate is READY', async () => {
  const files: Record<string, string> = {};
  const checks = [];
  for (const id of ['a', 'b', 'c', 'd']) {
    files[`${id}.txt`] = `${id}\n`;
    checks.push({ id, run: nodeCheck(`setTimeout(() => console.log('${id} done'), 300)`), inputs: [`${id}.txt`] });
  }
  const repo = tempRepo(files);
  repo.manifest({ checks });
  const store = storeDir(repo);
  const [one, two] = await Promise.all([connect(repo), connect(repo)]);
  try {
    const [b1, b2, cli, v2] = await Promise.all([
      one.call('build', { wait_s: 45 }),
      two.call('build', { wait_s: 45 }),
      cliBuild(repo.dir, store),
      two.call('verify', { check: 'c', wait_s: 45 }),
    ]);
    for (const b of [b1, b2]) {
      assert.equal(b.isError, false, JSON.stringify(b.json));
      assert.equal(b.json.schema, 'vkit.build/1', 'the build ended within its wait');
      assert.equal(b.json.gate.status, 'READY');
      assert.ok(b.json.actions.every((a: any) => a.outcome === 'PASS'));
    }
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).gate.status, 'READY');
    assert.equal(v2.isError, false, JSON.stringify(v2.json));
    assert.equal(v2.json.state, 'done');
    assert.equal(v2.json.action.outcome, 'PASS');

    const [g1, g2] = await Promise.all([one.call('gate', {}), two.call('gate', { deep: true })]);
    assert.equal(g1.json.status, 'READY');
    assert.equal(g2.json.status, 'READY');
    // Every run either server or the CLI started is in the one store, and none is left unfinished.
    const runs = (await one.call('runs_list', { limit: 500 })).json.runs;
    assert.ok(runs.length >= 5, `${runs.length} runs`);
    assert.ok(
      runs.every((r: any) => r.state === 'done' && r.outcome === 'PASS'),
      JSON.stringify(runs),
    );
  } finally {
    await Promise.all([one.close(), two.close()]);
    repo.cleanup();
  }
});
