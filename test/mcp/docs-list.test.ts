/** The docs' table of MCP tools lists exactly the tools a server started without a config offers. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from '../_support/mcp-client.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';

test("docs/mcp.md's tool table names every tool the server offers, and no other", async () => {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8');
  const table = page.slice(page.indexOf('<!-- tools'), page.indexOf('<!-- /tools -->'));
  const documented = [...table.matchAll(/^\| (.+?) \|/gm)]
    .flatMap((m) => [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((n) => n[1]!))
    .sort();
  const repo = tempRepo({});
  const mcp = await connect(repo);
  try {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(documented, tools.map((t) => t.name).sort());
  } finally {
    await mcp.close();
    repo.cleanup();
  }
});
