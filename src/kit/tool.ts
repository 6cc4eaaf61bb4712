/**
 * What one MCP tool is: a strict input schema (zod, which the MCP SDK advertises as JSON Schema), a
 * description, and a handler that returns JSON. vkit's own tools are in `src/mcp/tools.ts`; a kind
 * adds its own through its `tools` (`rules/<kind>/tools.ts`), loaded only when the MCP server starts.
 */
import type * as z from 'zod';
import type { BackgroundWork, KindHost, ProjectPlace } from './host.js';

/** What every tool's handler may read of the server it runs in, and what it may ask of it. */
export interface ToolContextBase {
  /** Absolute project root. */
  root: string;
  /** Where a path an agent names may be written: the root and the directories `--allow-write` adds. */
  writable: readonly string[];
  /** The project the server was started on: its root, the store it was given (`--store`), its environment. */
  open: Partial<ProjectPlace>;
  /** The server's background work: an id at once, the result through `run_wait`. */
  builds: BackgroundWork;
  /** The operations the core lends a kind's tools. */
  host: KindHost;
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
  /**
   * A kind's tool: listed right after this one of vkit's own (the tool list keeps its order when a
   * tool moves into a kind); default after all of vkit's own.
   */
  listedAfter?: string;
  handler: (args: z.output<S>, ctx: C) => Promise<object>;
}

/** Declares a tool; its handler's arguments are typed by its input schema. */
export function defineTool<S extends z.ZodObject, C extends ToolContextBase = ToolContextBase>(
  s: ToolSpec<S, C>,
): ToolSpec<S, C> {
  return s;
}
