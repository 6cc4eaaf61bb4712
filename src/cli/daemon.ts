/**
 * `vkit daemon start|stop|status`: a resident build process per root that serves `build` and `gate`
 * (see src/daemon/server.ts). Optional: without one every command runs in its own process, with the
 * same answers.
 */
import { spawn } from 'node:child_process';
import { kindsModule } from '../config/kind.js';
import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, invalid } from '../errors.js';
import { control } from '../daemon/client.js';
import { FRAME } from '../daemon/frames.js';
import { daemonPaths, makePrivateDir, type DaemonPaths } from '../daemon/paths.js';
import { parseFlags, printJson, type Command } from './args.js';

const FLAGS = {
  root: { type: 'string' },
  json: { type: 'boolean', default: false },
  'idle-s': { type: 'string' },
} as const;
const DEFAULT_IDLE_S = 3 * 3600;
const SERVER_MAIN = fileURLToPath(new URL('../daemon/main.js', import.meta.url));

interface Status {
  pid: number;
  root: string;
  started: string;
  served: number;
}

function pathsOf(v: { root?: string }): DaemonPaths {
  try {
    return daemonPaths(resolve(v.root ?? '.'));
  } catch {
    throw invalid('ERR_ROOT', `Expected --root to be a directory, got \`${resolve(v.root ?? '.')}\``, {
      path: '--root',
    });
  }
}

function idleOf(v: { 'idle-s'?: string }): number {
  if (v['idle-s'] === undefined) return DEFAULT_IDLE_S;
  const n = Number(v['idle-s']);
  if (!Number.isInteger(n) || n < 1)
    throw invalid('ERR_USAGE', `Expected --idle-s to be a positive integer, got \`${v['idle-s']}\``, {
      path: '--idle-s',
    });
  return n;
}

const start: Command = async (args) => {
  const v = parseFlags(args, FLAGS);
  const paths = pathsOf(v);
  const idle = idleOf(v);
  let status = (await control(paths.socket, FRAME.ping)) as Status | undefined;
  if (!status) {
    makePrivateDir(paths.dir);
    const log = openSync(paths.log, 'a', 0o600);
    const child = spawn(
      process.execPath,
      [SERVER_MAIN, '--root', paths.root, '--idle-s', String(idle), '--kinds', kindsModule()],
      {
        detached: true,
        stdio: ['ignore', log, log],
        env: process.env,
        cwd: paths.root,
      },
    );
    child.unref();
    closeSync(log);
    for (let waited = 0; !status && waited < 10_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await control(paths.socket, FRAME.ping)) as Status | undefined;
    }
    if (!status)
      throw invalid('ERR_DAEMON', `The resident build process did not start; see ${paths.log}`, { file: paths.log });
  }
  if (v.json) printJson({ running: true, ...status, socket: paths.socket });
  else
    process.stdout.write(
      `vkit daemon: serving build and gate for ${status.root} (pid ${status.pid}, socket ${paths.socket})\n`,
    );
  return EXIT.ok;
};

const stop: Command = async (args) => {
  const v = parseFlags(args, FLAGS);
  const paths = pathsOf(v);
  const answer = await control(paths.socket, FRAME.stop);
  if (v.json) printJson({ running: false, stopped: answer !== undefined });
  else
    process.stdout.write(
      answer ? `vkit daemon: stopped (pid ${String(answer.pid)})\n` : `vkit daemon: none running for ${paths.root}\n`,
    );
  return EXIT.ok;
};

const status: Command = async (args) => {
  const v = parseFlags(args, FLAGS);
  const paths = pathsOf(v);
  const s = (await control(paths.socket, FRAME.ping)) as Status | undefined;
  if (v.json) printJson(s ? { running: true, ...s, socket: paths.socket } : { running: false, root: paths.root });
  else
    process.stdout.write(
      s
        ? `vkit daemon: running for ${s.root} (pid ${s.pid}, since ${s.started}, ${s.served} served)\n`
        : `vkit daemon: none running for ${paths.root}\n`,
    );
  return EXIT.ok;
};

export const DAEMON_COMMANDS: Record<string, Command> = {
  'daemon start': start,
  'daemon stop': stop,
  'daemon status': status,
};

export const DAEMON_HELP: Record<string, string> = {
  'daemon start': `Usage: vkit daemon start [--root DIR] [--idle-s N] [--json]

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
  'daemon stop': `Usage: vkit daemon stop [--root DIR] [--json]

Stops the root's resident build process, after the request it is serving.
`,
  'daemon status': `Usage: vkit daemon status [--root DIR] [--json]

Says whether a resident build process serves the root, since when, and how many commands it served.
`,
};
