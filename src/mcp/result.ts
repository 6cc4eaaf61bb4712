/**
 * How tool answers go back over MCP: the JSON as text (every client reads that) and the same object
 * as `structuredContent`. A VkitError becomes a tool error carrying the CLI's code and exit code; any
 * other exception is an internal error (ERR_INTERNAL, exit 4) answered as a tool error, its stack on
 * stderr, and the server keeps serving.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT, VkitError, type Issue } from '../errors.js';

interface ToolErrorBody {
  error: {
    code: string;
    exit_code: number;
    message: string;
    where: string | null;
    hint: string | null;
    issues: Issue[];
  };
}

function toolResult(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

function toolError(error: unknown, tool: string, args: readonly string[]): CallToolResult {
  const body = inArgumentWords(errorBody(error, tool), args);
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
    isError: true,
  };
}

export function errorBody(error: unknown, tool: string): ToolErrorBody {
  if (error instanceof VkitError) {
    const issues = (error as { issues?: Issue[] }).issues ?? [];
    return {
      error: {
        code: error.code,
        exit_code: error.exitCode,
        message: error.message,
        where: error.where ?? null,
        hint: error.hint ?? null,
        issues,
      },
    };
  }
  process.stderr.write(`vkit mcp: internal error in tool ${tool}\n${(error as Error)?.stack ?? String(error)}\n`);
  return {
    error: {
      code: 'ERR_INTERNAL',
      exit_code: EXIT.internal,
      message: `internal error: ${(error as Error)?.message ?? String(error)}`,
      where: null,
      hint: 'This is a bug in vkit: please report it with the stack the server printed on stderr.',
      issues: [],
    },
  };
}

/**
 * The service words its errors for the command line (`Expected --check to name ...`); a tool's
 * caller never typed a flag. A flag that is one of the tool's arguments (`--check` -> `check`,
 * `--allow-conditions` -> `allow_conditions`) is named as that argument instead.
 */
function inArgumentWords(body: ToolErrorBody, args: readonly string[]): ToolErrorBody {
  const known = new Set(args);
  const words = (text: string) =>
    text.replace(/`?--([a-z][a-z0-9-]*)`?/g, (flag, name: string) => {
      const arg = name.replace(/-/g, '_');
      return known.has(arg) ? `argument \`${arg}\`` : flag;
    });
  const e = body.error;
  return {
    error: {
      ...e,
      message: words(e.message),
      where: e.where === null ? null : words(e.where).replace(/^argument `(.*)`$/, '$1'),
      hint: e.hint === null ? null : words(e.hint),
      issues: e.issues.map((i) => ({
        ...i,
        path: words(i.path).replace(/^argument `(.*)`$/, '$1'),
        message: words(i.message),
      })),
    },
  };
}

/** Runs a tool's handler and turns whatever it returns or throws into a tool result, errors in the tool's argument words. */
export async function answer(
  tool: string,
  handler: () => Promise<object>,
  args: readonly string[] = [],
): Promise<CallToolResult> {
  try {
    return toolResult(await handler());
  } catch (error) {
    return toolError(error, tool, args);
  }
}
