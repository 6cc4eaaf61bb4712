/**
 * tools/call, answered by vkit rather than the SDK. A call the server cannot start (an unknown tool,
 * `arguments` that is not an object, an argument outside the tool's schema) is a JSON-RPC error
 * -32602 (Invalid params) whose message names the argument and whose `data` is vkit's error body
 * (`{error: {code, exit_code, message, where, hint, issues}}`). A call that started and failed is a
 * tool error (`isError`) with the same body. The SDK's own tools/call handler would parse the request
 * with its schema first, and answer non-object arguments with -32603 and a zod dump; so the call is
 * taken by the protocol's fallback handler, which sees the request as sent.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { InvalidInputError, invalid, type Issue, type VkitError } from '../errors.js';
import { nearestName } from '../text/suggest.js';
import { answer, errorBody } from './result.js';
import type { ToolContext, ToolSpec } from './tools.js';

const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;

/** An error the protocol layer sends as the JSON-RPC error itself: its `code`, `message` and `data`. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Registers the tools (tools/list advertises their strict input schemas) and takes tools/call over. */
export function registerTools(
  server: McpServer,
  tools: Record<string, ToolSpec<z.ZodObject>>,
  ctx: ToolContext,
  /** Tools left out because the config uses none of their sections, with those sections. */
  withheld: Record<string, readonly string[]> = {},
): void {
  const byName = new Map(Object.entries(tools));
  for (const [name, tool] of byName) {
    server.registerTool(
      name,
      { description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: tool.readOnly ?? false } },
      (args: Record<string, unknown>) => answer(name, () => tool.handler(args, ctx), Object.keys(tool.input.shape)),
    );
  }
  server.server.removeRequestHandler('tools/call');
  server.server.fallbackRequestHandler = async (request: JSONRPCRequest) => {
    // Every other method keeps the answer the SDK gives a method it has no handler for.
    if (request.method !== 'tools/call') throw new RpcError(METHOD_NOT_FOUND, 'Method not found');
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    const tool = typeof params.name === 'string' ? byName.get(params.name) : undefined;
    if (!tool) throw unknownTool(params.name, [...byName.keys()], withheld);
    const name = params.name as string;
    const args = params.arguments === undefined ? {} : params.arguments;
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw invalidParams(
        name,
        invalid(
          'ERR_TOOL_INPUT',
          `Expected \`arguments\` to be an object of named arguments, got ${describe(args)}`,
          { path: 'arguments' },
          schemaHint(name),
        ),
      );
    const parsed = tool.input.safeParse(args);
    if (!parsed.success)
      throw invalidParams(
        name,
        new InvalidInputError('ERR_TOOL_INPUT', inputIssues(parsed.error, tool), schemaHint(name)),
      );
    return answer(name, () => tool.handler(parsed.data as Record<string, unknown>, ctx), Object.keys(tool.input.shape));
  };
}

const schemaHint = (name: string) => `See the input schema of \`${name}\` (tools/list).`;

function unknownTool(name: unknown, names: string[], withheld: Record<string, readonly string[]>): RpcError {
  const shown = typeof name === 'string' ? `\`${name}\`` : `a name that is ${describe(name)}`;
  const sections = typeof name === 'string' && Object.hasOwn(withheld, name) ? withheld[name] : undefined;
  const near = typeof name === 'string' && !sections ? nearestName(name, names) : undefined;
  const error = invalid(
    'ERR_USAGE',
    sections
      ? `Tool ${shown} is not offered: this project's config has no ${sections.join(' or ')} entries`
      : `Tool ${shown} not found${near ? ` (did you mean \`${near}\`?)` : ''}`,
    { path: 'name' },
    sections
      ? 'Add such an entry to the config and restart the server; the tools offered are in tools/list.'
      : `The tools are: ${names.join(', ')}.`,
  );
  return new RpcError(INVALID_PARAMS, `Invalid params: ${error.message}`, errorBody(error, String(name)));
}

/** -32602 whose message names each argument and its problem; `data` carries vkit's body. */
function invalidParams(tool: string, error: InvalidInputError): RpcError {
  const problems = error.issues.map((i) => `\`${i.path || 'arguments'}\`: ${i.message}`).join('; ');
  return new RpcError(
    INVALID_PARAMS,
    `Invalid params for tool \`${tool}\`: ${problems}`,
    errorBody(error as VkitError, tool),
  );
}

/** zod's problems as vkit issues: the argument path (`sections[2]`), then the problem. An unknown key is its own path. */
function inputIssues(error: z.ZodError, tool: ToolSpec<z.ZodObject>): Issue[] {
  const known = Object.keys(tool.input.shape);
  return error.issues.flatMap((i): Issue[] => {
    const path = argumentPath(i.path);
    if (i.code !== 'unrecognized_keys') return [{ path, message: i.message }];
    return i.keys.map((key) => {
      const near = nearestName(key, known);
      return {
        path: path ? `${path}.${key}` : key,
        message: `Unknown argument${near ? ` (did you mean \`${near}\`?)` : ''}; the arguments are: ${known.join(', ')}`,
      };
    });
  });
}

function argumentPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)),
    '',
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const shown = JSON.stringify(value);
  return `${typeof value === 'object' ? 'an object' : `a ${typeof value}`}${shown && shown.length <= 40 ? ` (${shown})` : ''}`;
}
