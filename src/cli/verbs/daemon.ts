/**
 * `vkit daemon start|stop|status`: a resident build process per root that serves `build` and `gate`.
 * Declarations only; `table.ts` binds each to its handler in `../daemon.ts`.
 */
import { defineVerb, type Flags } from '../../kit/verb.js';

/** Seconds without a request after which a resident build process stops. */
export const DEFAULT_IDLE_S = 3 * 3600;

const FLAGS = {
  root: { type: 'string' },
  json: { type: 'boolean', default: false },
  'idle-s': { type: 'string' },
  watch: { type: 'boolean', default: false },
} as const satisfies Flags;

export const start = defineVerb({
  name: 'daemon start',
  summary: 'a resident build process for a root that serves build and gate faster',
  readme:
    "a resident build process for the root: `vkit build` and `vkit gate` there are then served by it (same answers, without node's start-up and module loading; a worker is kept warm for the next edit's run); `VKIT_DAEMON=0` makes a command ignore it. With `--watch` (opt-in) it also watches the tree and answers a repeated no-op from memory while nothing it depended on changed (conditions in `vkit daemon start --help`). It serves only the vkit, node and `NODE_OPTIONS` it started with, and stops after `--idle-s` (default 3 h) without a request, when its own code changes on disk, or after serving a TS config that leaves code in node's module cache (packages, `require`)",
  flags: FLAGS,
  help: `Usage: vkit daemon start [--root DIR] [--idle-s N] [--watch] [--json]

Starts a resident build process for the root (if none runs): \`vkit build\` and \`vkit gate\` for that
root are then served by it, saving node's start-up and module loading. Every request still reads
the config, lists and stats the tree and verifies every receipt, as a fresh process does; the
answers are the same. It serves only the vkit, node and NODE_OPTIONS it was started with, stops when
its own code changes on disk, after serving a TS config that leaves code in node's module cache
(packages, require), after --idle-s seconds without a request (default ${DEFAULT_IDLE_S}), or on
\`vkit daemon stop\`. It keeps one worker process warm (started ahead, handed the next run's store,
queue and environment when a served build needs one), so an edit's check starts at once.
VKIT_DAEMON=0 makes a command ignore it.

  --watch        also watch the tree (inotify, opt-in): a no-op \`build\` or \`gate\` asked again, with
                 the same arguments, directory, environment and date, while nothing changed, is
                 answered from memory: no event in any directory git does not ignore whole, no commit
                 to the store, every receipt and blob it stands on with its recorded stat
                 fingerprint, every tool identified again, git's configuration unchanged. Only for
                 vkit.manifest.json configs of checks without outputs, at the top of a git work tree,
                 on a local file system (never network or FUSE); anything else runs in full. A watcher
                 error starts a new watch and a full sweep. \`daemon status\` says why an answer was not kept.

The socket lives in a directory only you can enter
($XDG_RUNTIME_DIR, else the temp dir, /vkit-<uid>/).
`,
});

export const stop = defineVerb({
  name: 'daemon stop',
  summary: "stop the root's resident build process",
  flags: FLAGS,
  help: `Usage: vkit daemon stop [--root DIR] [--json]

Stops the root's resident build process, after the request it is serving. --idle-s and --watch are
accepted (as by daemon start) and ignored.
`,
});

export const status = defineVerb({
  name: 'daemon status',
  summary:
    'whether a resident build process serves the root, since when, how many commands it served, its warm worker (watching: how many it answered from memory, and why not)',
  flags: FLAGS,
  help: `Usage: vkit daemon status [--root DIR] [--json]

Says whether a resident build process serves the root, since when, and how many commands it served;
when it watches the tree, how many it answered from memory and why the last answer was not kept.
--idle-s and --watch are accepted (as by daemon start) and ignored.
`,
});
