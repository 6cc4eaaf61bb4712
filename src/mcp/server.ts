/**
 * `vkit mcp [--root DIR] [--store DIR]`: the MCP face, over stdio. Thin like the CLI: the tools in
 * `tools.ts` call the service and return its JSON. Every call opens what it needs and closes it again
 * (the service does), so several servers and CLIs can share one store; nothing stays open between calls.
 *
 * stdout carries the protocol and nothing else. The transport gets its own handle on stdout; every
 * other write to `process.stdout` (a `console.log` in a user's vkit.config.ts, which is loaded in this
 * process, or in a library) is sent to stderr instead, where logging goes too.
 */
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { EXIT, invalid, VkitError } from '../errors.js';
import { BackgroundBuilds } from '../service/background.js';
import type { OpenOptions } from '../service/index.js';
import { registerTools } from './tools.js';

function parseFlags(args: string[]): OpenOptions & { root: string } {
  let values: { root?: string; store?: string };
  try {
    values = parseArgs({
      args,
      options: { root: { type: 'string' }, store: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw invalid('ERR_USAGE', (error as Error).message, {}, 'See `vkit mcp --help` for the flags.');
  }
  return { root: resolve(values.root ?? process.cwd()), store: values.store ? resolve(values.store) : undefined };
}

/** A stream onto the real stdout for the transport; `process.stdout.write` goes to stderr from here on. */
function claimStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  // A client that went away closes the pipe: the write fails quietly and stdin's end shuts us down.
  stdout.on('error', () => {});
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk, () => callback());
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return protocol;
}

/** Serves until the client closes stdin; background builds already started finish before the process exits. */
export async function serveMcp(args: string[], version: () => string): Promise<number> {
  let open: OpenOptions & { root: string };
  try {
    open = parseFlags(args);
  } catch (error) {
    // Reported here rather than by the CLI's handler, which may print JSON on stdout.
    if (!(error instanceof VkitError)) throw error;
    process.stderr.write(`vkit: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
    return error.exitCode;
  }
  const protocol = claimStdout();
  const server = new McpServer({ name: 'vkit', version: version() }, { instructions: INSTRUCTIONS });
  registerTools(server, { open, root: open.root, builds: new BackgroundBuilds() });
  const closed = new Promise<void>((done) => {
    server.server.onclose = done;
  });
  server.server.onerror = (error) => process.stderr.write(`vkit mcp: ${error.message}\n`);
  // The stdio transport does not watch for the end of stdin; a client closing it means goodbye.
  process.stdin.once('end', () => void server.close());
  await server.connect(new StdioServerTransport(process.stdin, protocol));
  process.stderr.write(`vkit mcp: serving on stdio (root ${open.root}${open.store ? `, store ${open.store}` : ''})\n`);
  await closed;
  return EXIT.ok;
}

const INSTRUCTIONS = `vkit is a build system whose outputs are evidence. build and verify start runs and return ids at once
unless wait_s (<= 50) is given; poll with run_wait. gate reports READY, REJECTED or BLOCKED from retained
evidence. vkit's errors are tool errors whose text is {"error": {"code", "exit_code", "message", "where", "hint",
"issues"}}, with the CLI's codes; arguments that do not match a tool's input schema are refused before the
tool runs as ERR_TOOL_INPUT (exit_code 2), one issue per problem with its argument path.`;
