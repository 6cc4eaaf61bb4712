/**
 * The acceptance tools through a real MCP client: `acceptance_check_decision` and
 * `acceptance_render` take the CLI's arguments and answer with the CLI's JSON and exit code.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT, tempRepo, type TempRepo } from '../_support/repo.js';
import { connect, type McpSession } from '../_support/mcp-client.js';

let repo: TempRepo;
let mcp: McpSession;
const docs = { root: 'toy', spec: 'acceptance-specification.toml', package: 'acceptance.toml' };

before(async () => {
  repo = tempRepo({});
  cpSync(join(REPO_ROOT, 'examples', 'weighted-toy'), join(repo.dir, 'toy'), { recursive: true });
  mcp = await connect(repo);
});

after(async () => {
  await mcp?.close();
  repo?.cleanup();
});

test('acceptance_check_decision: the weighted-toy decision is valid, effect-eligible on its last day and not the day after', async () => {
  const ok = await mcp.call('acceptance_check_decision', { ...docs, decision: 'acceptance-decision.toml' });
  assert.equal(ok.isError, false, JSON.stringify(ok.json));
  assert.equal(ok.json.schema, 'vkit.acceptance-decision-check/1');
  assert.equal(ok.json.status, 'valid');
  assert.equal(ok.json.verdict, 'accepted');
  assert.equal(ok.json.exit_code, 0);
  const last = await mcp.call('acceptance_check_decision', {
    ...docs,
    decision: 'acceptance-decision.toml',
    effect: true,
    now: '2027-05-29',
  });
  assert.equal(last.json.effect.eligible, true, JSON.stringify(last.json.effect));
  const next = await mcp.call('acceptance_check_decision', {
    ...docs,
    decision: 'acceptance-decision.toml',
    effect: true,
    now: '2027-05-30',
  });
  assert.equal(next.json.effect.eligible, false);
  assert.equal(next.json.exit_code, 1);
  assert.match(next.json.effect.reason, /expired/);
});

test('acceptance_check_decision: one changed byte of the package makes the decision stale (exit_code 1)', async () => {
  const pkg = join(repo.dir, 'toy', 'acceptance.toml');
  const original = readFileSync(pkg, 'utf8');
  try {
    writeFileSync(pkg, original.replace('weight', 'weight '));
    const r = await mcp.call('acceptance_check_decision', { ...docs, decision: 'acceptance-decision.toml' });
    assert.equal(r.json.status, 'stale');
    assert.equal(r.json.exit_code, 1);
  } finally {
    writeFileSync(pkg, original);
  }
});

test('acceptance_render: Markdown with the requirement row and the decision line; unknown keys are refused', async () => {
  const r = await mcp.call('acceptance_render', { ...docs, decision: 'acceptance-decision.toml' });
  assert.equal(r.isError, false, JSON.stringify(r.json));
  assert.equal(r.json.exit_code, 0);
  assert.match(r.json.markdown, /^\| S-1 \| yes \|/m);
  assert.match(r.json.markdown, /^decision: accepted by /m);
  // An unknown key breaks the tool's schema: the call never starts (JSON-RPC -32602 naming it).
  await assert.rejects(mcp.client.callTool({ name: 'acceptance_render', arguments: { ...docs, bogus: 1 } }), {
    code: -32602,
    message: /`bogus`: Unknown argument/,
  });
  const missing = await mcp.call('acceptance_check_decision', { ...docs, decision: 'nope.toml' });
  assert.equal(missing.isError, true);
  assert.equal(missing.json.error.exit_code, 2);
});
