/**
 * The long-running faces: watch, mcp, tui. Declarations only; `table.ts` binds each to its handler.
 */
import { COMMON, defineVerb } from '../../kit/verb.js';

export const watch = defineVerb({
  name: 'watch',
  summary: 'build, then rebuild on every change to inputs or config; one settle line per cycle',
  readme:
    'build, then rebuild on every change to a declared input, the config or its imports; one settle line per cycle (`cycle N settled: READY in X ms`); the Ink TUI on a terminal',
  flags: { ...COMMON, 'no-tui': { type: 'boolean', default: false } },
  help: `Usage: vkit watch [--no-tui] [--json] [--root DIR] [--store DIR] [--jobs N]

Builds, then rebuilds whenever a declared input, the config or one of its imports changes. Changes
are debounced and batched; edits made while actions run start the next cycle. Only actions whose keys
changed rerun. While the config is invalid the gate is BLOCKED ("config invalid") until it is fixed.
Every cycle ends with one line: \`cycle N settled: READY|REJECTED|BLOCKED in X ms\`.

  --no-tui       one line per event (the default when stdout is not a terminal)
  --json         one vkit.event/1 object per line
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: the nearest
                 directory up from here that holds one)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --jobs N       concurrent actions (default: number of cores)

Ctrl-C cancels running checks (their attempts end interrupted, reason cancelled) and exits 130;
a second Ctrl-C exits at once.
`,
});

/** No `--json`: stdout belongs to the protocol, so not even a usage error is printed there. */
export const mcp = defineVerb({
  name: 'mcp',
  summary: 'serve the same verbs as MCP tools over stdio (for agents)',
  readme: 'MCP server over stdio for agents (see [MCP](mcp.md))',
  flags: { root: { type: 'string' }, store: { type: 'string' }, 'allow-write': { type: 'string', multiple: true } },
  help: `Usage: vkit mcp [--root DIR] [--store DIR] [--allow-write DIR ...]

Serves MCP (Model Context Protocol) over stdio: stdout carries the protocol only, logs go to stderr.
Tools: build, verify, run_wait, run_show, run_cancel, run_retry, runs_list, gate, model_compare,
acceptance_check_decision, acceptance_render, evidence_export, evidence_replay, feedback_add, feedback_list. build and verify return a run or build id at once unless wait_s (0 to 50)
is given; poll with run_wait. Errors are tool errors carrying the CLI's codes and exit codes; a call
that cannot start (unknown tool, arguments outside its schema) is JSON-RPC error -32602 naming the
argument, and a line that is not JSON-RPC gets -32700 or -32600. Each call opens the store and closes
it again, so several servers and CLIs may share one store. Exits when the client closes stdin.

A path an agent names for writing (evidence_export's out) must resolve, symlinks followed, inside the
root or an --allow-write directory, never inside a .git directory or the store; an existing file is
replaced only when the call passes overwrite: true.

  --root DIR         project root holding vkit.config.ts or vkit.manifest.json (default: the nearest
                     directory up from here that holds one)
  --store DIR        evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --allow-write DIR  a directory besides the root where agents' paths may be written (repeatable)
`,
});

export const tui = defineVerb({
  name: 'tui',
  summary: 'the gate overview once, from retained evidence (drawn with Ink on a terminal)',
  readme: 'the gate overview once, from retained evidence',
  flags: {
    root: { type: 'string' },
    store: { type: 'string' },
    json: { type: 'boolean', default: false },
    deep: { type: 'boolean' },
  },
  help: `Usage: vkit tui [--deep] [--root DIR] [--store DIR] [--json]

Shows the gate overview once from retained evidence, without running anything: the gate status,
then every item (failing first) with its kind, whether it is required and its last run. On a
terminal it is drawn with Ink; otherwise (a pipe, a file) it prints one plain line per item.
For the live view that reruns on changes, use \`vkit watch\`.

  --deep         re-hash every blob, input and tool the gate relies on
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: the nearest
                 directory up from here that holds one)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --json         print the gate as JSON (vkit.gate/1) instead

Exit codes: 0 READY, 1 REJECTED, 2 invalid request, 3 BLOCKED, 4 internal error.
`,
});
