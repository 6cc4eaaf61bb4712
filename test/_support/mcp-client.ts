/**
 * A real MCP client (the SDK's `Client` + `StdioClientTransport`) spawning the built `vkit mcp` against
 * a temp repo and its store. (Lives beside the MCP suites; the lead may move it to test/_support/.)
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { storeDir } from './evidence.js';
import { toggle } from './models.js';
import { VKIT_BIN, type TempRepo } from './repo.js';

export interface McpSession {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Calls a tool and returns its parsed JSON; asserts that text and structuredContent agree. */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; json: any }>;
  close(): Promise<void>;
}

export function childEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries({ ...process.env, NO_COLOR: '1' }).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/** A `vkit mcp` on the repo and `store`; `extra` adds flags (`--allow-write DIR`); `bin` is the CLI's entry point. */
export async function connect(
  repo: TempRepo,
  store = storeDir(repo),
  extra: string[] = [],
  bin = VKIT_BIN,
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--root', repo.dir, '--store', store, ...extra],
    cwd: repo.dir,
    env: childEnv(),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = new Client({ name: 'vkit-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as Array<{ type: string; text: string }>;
      assert.equal(content.length, 1);
      assert.equal(content[0]!.type, 'text');
      const isError = result.isError === true;
      // Every answer, errors included (schema violations too), is vkit's JSON.
      const json = JSON.parse(content[0]!.text);
      assert.deepEqual(result.structuredContent, json, 'structuredContent carries the same object as the text');
      return { isError, json };
    },
    close: () => client.close(),
  };
}

/** A well-formed model-comparison request: the spec's toggle before, a latch after (they differ). */
export function compareRequestObject(): Record<string, unknown> {
  const after = toggle();
  after.rules = after.rules.map((r) => (r.source === 'open' ? { ...r, targets: ['open'] } : r));
  return { schema_version: 1, before: toggle(), after };
}
