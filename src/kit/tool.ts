/**
 * What one MCP tool is: a strict input schema (zod, which the MCP SDK advertises as JSON Schema), a
 * description, and a handler that returns JSON. vkit's own tools are in `src/mcp/tools.ts`; a kind
 * adds its own through its `tools` (`rules/<kind>/tools.ts`), loaded only when the MCP server starts.
 */
import type * as z from 'zod';

/** What every tool's handler may read of the server it runs in. */
export interface ToolContextBase {
  /** Absolute project root. */
  root: string;
  /** Where a path an agent names may be written: the root and the directories `--allow-write` adds. */
  writable: readonly string[];
}

export interface ToolSpec<S extends z.ZodObject = z.ZodObject, C extends ToolContextBase = ToolContextBase> {
  description: string;
  input: S;
  readOnly?: boolean;
  /**
   * Offered only when the config has entries in one of these sections (`acceptance`,
   * `formal.components`): a project that uses none is not shown tools it cannot use. A config that
   * cannot be read offers every tool.
   */
  forSections?: readonly string[];
  handler: (args: z.output<S>, ctx: C) => Promise<object>;
}

/** Declares a tool; its handler's arguments are typed by its input schema. */
export function defineTool<S extends z.ZodObject, C extends ToolContextBase = ToolContextBase>(
  s: ToolSpec<S, C>,
): ToolSpec<S, C> {
  return s;
}
