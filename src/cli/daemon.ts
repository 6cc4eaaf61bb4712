/**
 * `vkit daemon start|stop|status`'s handlers (declared in `verbs/daemon.ts`, bound in `table.ts`): a
 * resident build process per root that serves `build` and `gate` (see src/daemon/server.ts).
 * Optional: without one every command runs in its own process, with the same answers.
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
import { type Handler, printJson } from '../kit/verb.js';
import { DEFAULT_IDLE_S, type start as startVerb } from './verbs/daemon.js';
const SERVER_MAIN = fileURLToPath(new URL('../daemon/main.js', import.meta.url));

interface Status {
  pid: number;
  root: string;
  started: string;
  served: number;
  /** The warm worker waiting for the next run (jobs/standby.ts), if one is ready. */
  standby?: number | null;
  /** Present when the process watches the tree (`--watch`). */
  watch?: { watching: boolean; refused?: string; missed?: string; recalled: number; restarts: number };
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

/** The three verbs share their flags. */
type DaemonHandler = Handler<typeof startVerb>;

export const start: DaemonHandler = async ({ values: v }) => {
  const paths = pathsOf(v);
  const idle = idleOf(v);
  let status = (await control(paths.socket, FRAME.ping)) as Status | undefined;
  if (status && Boolean(status.watch) !== v.watch)
    throw invalid(
      'ERR_DAEMON',
      `A resident build process already serves ${status.root} ${status.watch ? 'with' : 'without'} --watch (pid ${status.pid}): run \`vkit daemon stop\` first`,
      { path: '--watch' },
    );
  if (!status) {
    makePrivateDir(paths.dir);
    const log = openSync(paths.log, 'a', 0o600);
    const child = spawn(
      process.execPath,
      [
        SERVER_MAIN,
        '--root',
        paths.root,
        '--idle-s',
        String(idle),
        '--kinds',
        kindsModule(),
        ...(v.watch ? ['--watch'] : []),
      ],
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
      `vkit daemon: serving build and gate for ${status.root}${status.watch ? ', watching the tree' : ''} (pid ${status.pid}, socket ${paths.socket})\n`,
    );
  return EXIT.ok;
};

export const stop: DaemonHandler = async ({ values: v }) => {
  const paths = pathsOf(v);
  const answer = await control(paths.socket, FRAME.stop);
  if (v.json) printJson({ running: false, stopped: answer !== undefined });
  else
    process.stdout.write(
      answer ? `vkit daemon: stopped (pid ${String(answer.pid)})\n` : `vkit daemon: none running for ${paths.root}\n`,
    );
  return EXIT.ok;
};

export const status: DaemonHandler = async ({ values: v }) => {
  const paths = pathsOf(v);
  const s = (await control(paths.socket, FRAME.ping)) as Status | undefined;
  if (v.json) printJson(s ? { running: true, ...s, socket: paths.socket } : { running: false, root: paths.root });
  else
    process.stdout.write(
      s
        ? `vkit daemon: running for ${s.root} (pid ${s.pid}, since ${s.started}, ${s.served} served${s.standby ? `, a worker warm (pid ${s.standby})` : ''})\n${watchLine(s)}`
        : `vkit daemon: none running for ${paths.root}\n`,
    );
  return EXIT.ok;
};

function watchLine(s: Status): string {
  if (!s.watch) return '';
  const w = s.watch;
  return `  watching the tree: ${w.recalled} answered from memory, ${w.restarts} watch restart(s)${w.refused ? `; last answer not kept: ${w.refused}` : ''}${w.missed ? `; last answer not given again: ${w.missed}` : ''}\n`;
}
