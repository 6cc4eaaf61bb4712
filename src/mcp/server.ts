/**
 * `vkit mcp [--root DIR] [--store DIR] [--allow-write DIR]...`: the MCP face, over stdio. Thin like the CLI: the tools in
 * `tools.ts` call the service and return its JSON. Every call opens what it needs and closes it again
 * (the service does), so several servers and CLIs can share one store; nothing stays open between calls.
 *
 * stdout carries the protocol and nothing else. The transport gets its own handle on stdout; every
 * other write to `process.stdout` (a `console.log` in a user's vkit.config.ts, which is loaded in this
 * process, or in a library) is sent to stderr instead, where logging goes too.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { loadKinds } from '../config/kind.js';
import { EXIT, invalid, VkitError } from '../errors.js';
import { BackgroundBuilds } from '../service/background.js';
import type { OpenOptions } from '../service/index.js';
import { registerTools } from './call.js';
import type * as z from 'zod';
import { StdioLineTransport } from './stdio.js';
import { type ToolSpec, TOOLS } from './tools.js';
import { defaultRoot } from '../service/root.js';
import { usedSections } from '../service/checks.js';

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

/** An `--allow-write` directory, absolute; one that is not an existing directory is a usage error. */
function allowedDir(dir: string): string {
  const abs = resolve(dir);
  if (!statSync(abs, { throwIfNoEntry: false })?.isDirectory())
    throw invalid('ERR_USAGE', `Expected --allow-write to name an existing directory, got \`${dir}\``, {
      path: '--allow-write',
    });
  return abs;
}

/**
 * Serves until the client closes stdin; background builds already started finish before the process
 * exits. The flags come parsed by the CLI's command table (src/cli/table.ts); `vkit mcp` declares no
 * --json, so not even a usage error is printed on stdout.
 */
export async function serveMcp(
  flags: { root?: string; store?: string; 'allow-write'?: string[] },
  version: () => string,
): Promise<number> {
  const open: OpenOptions & { root: string } = {
    root: resolve(flags.root ?? defaultRoot()),
    store: flags.store ? resolve(flags.store) : undefined,
  };
  // A path an agent names is written only inside the root or a directory the host allowed here.
  const writable = [open.root, ...(flags['allow-write'] ?? []).map(allowedDir)];
  const protocol = claimStdout();
  const server = new McpServer({ name: 'vkit', version: version() }, { instructions: INSTRUCTIONS });
  const tools = await allTools();
  const shown = offered(tools, await usedSections(open.root));
  const withheld = Object.fromEntries(
    Object.entries(tools)
      .filter(([name]) => !(name in shown))
      .map(([name, t]) => [name, t.forSections ?? []]),
  );
  const { kindHost: host } = await import('../service/kind-host.js');
  registerTools(server, shown, { open, root: open.root, writable, builds: new BackgroundBuilds(), host }, withheld);
  const closed = new Promise<void>((done) => {
    server.server.onclose = done;
  });
  server.server.onerror = (error) => process.stderr.write(`vkit mcp: ${error.message}\n`);
  // The stdio transport does not watch for the end of stdin; a client closing it means goodbye.
  process.stdin.once('end', () => void server.close());
  await server.connect(new StdioLineTransport(process.stdin, protocol));
  const allowed = writable.length > 1 ? `, writes also in ${writable.slice(1).join(', ')}` : '';
  process.stderr.write(
    `vkit mcp: serving on stdio (root ${open.root}${open.store ? `, store ${open.store}` : ''}${allowed})\n`,
  );
  await closed;
  return EXIT.ok;
}

/**
 * vkit's own tools, then those each installed kind adds (one naming `listedAfter` right after that
 * tool of vkit's own); two of one name is an internal error.
 */
async function allTools(): Promise<Record<string, ToolSpec<z.ZodObject>>> {
  const own: Array<[string, ToolSpec<z.ZodObject>]> = Object.entries(TOOLS);
  const added: Array<[string, ToolSpec<z.ZodObject>]> = [];
  const names = new Set(Object.keys(TOOLS));
  for (const kind of (await loadKinds()).kinds) {
    for (const [name, tool] of Object.entries((await kind.tools?.()) ?? {})) {
      if (names.has(name))
        throw new VkitError('ERR_INTERNAL', EXIT.internal, `Two MCP tools are named \`${name}\` (kind ${kind.name})`);
      names.add(name);
      const at = tool.listedAfter === undefined ? -1 : own.findIndex(([n]) => n === tool.listedAfter);
      if (tool.listedAfter !== undefined && at === -1)
        throw new VkitError(
          'ERR_INTERNAL',
          EXIT.internal,
          `MCP tool \`${name}\` (kind ${kind.name}) is listed after \`${tool.listedAfter}\`, which vkit does not have`,
        );
      if (at === -1) {
        added.push([name, tool]);
        continue;
      }
      // After the tool named and the kinds' tools already placed after it, in the registry's order.
      let i = at + 1;
      while (i < own.length && !(own[i]![0] in TOOLS)) i++;
      own.splice(i, 0, [name, tool]);
    }
  }
  return Object.fromEntries([...own, ...added]);
}

/**
 * The tools this project can use: one tied to config sections is left out when the config has no
 * entry in any of them. Decided when the server starts (the tool list does not change while it runs).
 */
function offered(
  tools: Record<string, ToolSpec<z.ZodObject>>,
  used: ReadonlySet<string> | undefined,
): Record<string, ToolSpec<z.ZodObject>> {
  if (!used) return tools;
  return Object.fromEntries(
    Object.entries(tools).filter(([, t]) => !t.forSections || t.forSections.some((s) => used.has(s))),
  );
}

const INSTRUCTIONS = `vkit is a build system whose outputs are evidence. checks_list says what the config declares. build and verify start runs and return ids at once
unless wait_s (<= 50) is given; poll with run_wait. gate reports READY, REJECTED or BLOCKED from retained
evidence. vkit's errors are tool errors whose text is {"error": {"code", "exit_code", "message", "where", "hint",
"issues"}}, with the CLI's codes. A call that cannot start (an unknown tool, arguments that are not an object
or do not match the tool's input schema) is a JSON-RPC error -32602 naming each argument and its problem,
its data the same error object (ERR_TOOL_INPUT, exit_code 2, one issue per problem with its argument path).
evidence_export writes only inside the project root (or a directory the host allowed), never in .git or the
store, and replaces an existing file only with overwrite: true.`;
