/**
 * Arguments several MCP tools share, vkit's own and the kinds', so each is described in one set of
 * words: how long a call may wait for the work it starts.
 */
import * as z from 'zod';

/** Longest wait a tool call may ask for, in seconds: below common MCP client request timeouts (60 s). */
export const MAX_WAIT_S = 50;

/** `wait_s`: seconds to wait for `what` before the call answers with the id and state `running`. */
export const waitS = (what: string) =>
  z
    .number()
    .min(0)
    .max(MAX_WAIT_S)
    .optional()
    .describe(
      `Seconds to wait for ${what} (0 to ${MAX_WAIT_S}); without it the call returns at once with the id and state \`running\`.`,
    );
