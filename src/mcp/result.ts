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

function toolError(error: unknown, tool: string): CallToolResult {
  const body = errorBody(error, tool);
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

/** Runs a tool's handler and turns whatever it returns or throws into a tool result. */
export async function answer(tool: string, handler: () => Promise<object>): Promise<CallToolResult> {
  try {
    return toolResult(await handler());
  } catch (error) {
    return toolError(error, tool);
  }
}
