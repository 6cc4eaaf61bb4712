/**
 * `vkit daemon start|stop|status`: a resident build process per root that serves `build` and `gate`.
 * Declarations only; `table.ts` binds each to its handler in `../daemon.ts`.
 */
import { defineVerb, type Flags } from '../verb.js';

/** Seconds without a request after which a resident build process stops. */
export const DEFAULT_IDLE_S = 3 * 3600;

const FLAGS = {
  root: { type: 'string' },
  json: { type: 'boolean', default: false },
  'idle-s': { type: 'string' },
} as const satisfies Flags;

export const start = defineVerb({
  name: 'daemon start',
  summary: 'a resident build process for a root that serves build and gate faster',
  readme:
    "a resident build process for the root: `vkit build` and `vkit gate` there are then served by it (same answers, without node's start-up and module loading); `VKIT_DAEMON=0` makes a command ignore it. It serves only the vkit, node and `NODE_OPTIONS` it started with, and stops after `--idle-s` (default 3 h) without a request, when its own code changes on disk, or after serving a TS config that leaves code in node's module cache (packages, `require`)",
  flags: FLAGS,
  help: `Usage: vkit daemon start [--root DIR] [--idle-s N] [--json]

Starts a resident build process for the root (if none runs): \`vkit build\` and \`vkit gate\` for that
root are then served by it, saving node's start-up and module loading. Every request still reads
the config, lists and stats the tree and verifies every receipt, as a fresh process does; the
answers are the same. It serves only the vkit, node and NODE_OPTIONS it was started with, stops when
its own code changes on disk, after serving a TS config that leaves code in node's module cache
(packages, require), after --idle-s seconds without a request (default ${DEFAULT_IDLE_S}), or on
\`vkit daemon stop\`.
VKIT_DAEMON=0 makes a command ignore it. The socket lives in a directory only you can enter
($XDG_RUNTIME_DIR, else the temp dir, /vkit-<uid>/).
`,
});

export const stop = defineVerb({
  name: 'daemon stop',
  summary: "stop the root's resident build process",
  flags: FLAGS,
  help: `Usage: vkit daemon stop [--root DIR] [--json]

Stops the root's resident build process, after the request it is serving. --idle-s is accepted
(as by daemon start) and ignored.
`,
});

export const status = defineVerb({
  name: 'daemon status',
  summary: 'whether a resident build process serves the root, since when, how many commands it served',
  flags: FLAGS,
  help: `Usage: vkit daemon status [--root DIR] [--json]

Says whether a resident build process serves the root, since when, and how many commands it served.
--idle-s is accepted (as by daemon start) and ignored.
`,
});
