/** `vkit tui --help`; a plain string so `src/cli/help.ts` can hold it without loading anything. */
export const TUI_HELP = `Usage: vkit tui [--deep] [--root DIR] [--store DIR] [--json]

Shows the gate overview once from retained evidence, without running anything: the gate status,
then every item (failing first) with its kind, whether it is required and its last run. On a
terminal it is drawn with Ink; otherwise (a pipe, a file) it prints one plain line per item.
For the live view that reruns on changes, use \`vkit watch\`.

  --deep         re-hash every blob, input and tool the gate relies on
  --root DIR     project root holding vkit.config.ts or vkit.manifest.json (default: cwd)
  --store DIR    evidence store (default: <git common dir>/vkit, or <root>/.vkit without git)
  --json         print the gate as JSON (vkit.gate/1) instead

Exit codes: 0 READY, 1 REJECTED, 2 invalid request, 3 BLOCKED, 4 internal error.
`;
