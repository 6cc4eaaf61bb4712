/**
 * The thin side of `vkit daemon`: `build` and `gate` first ask the root's resident build process,
 * which runs the same command line with this process's arguments, environment and directory and
 * streams its output back. When no server listens, or it declines (another vkit or node, its code
 * changed, a verb it does not serve), the command runs here as usual: the answer is the same either
 * way, only faster when served. `VKIT_DAEMON=0` never asks.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardOutput, settleOutputAtExit } from '../cli/output-failure.js';
import { FRAME, FrameReader, PROTOCOL, frame, type Request } from './frames.js';
import { daemonPaths, rootOf, SHORTCUT_VERBS, unsafeDir } from './paths.js';

export const PACKAGE_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * `viaDaemon` as bin/vkit.js runs it, before any other module of vkit's loads: a reader that went
 * away (EPIPE) only silences later output, output lost otherwise (a full disk) turns a 0 into 3
 * (cli/output-failure.ts, which the CLI keeps using when the command is not served), and an error
 * escaping is an internal error (exit 4), never an exit code that reads as a verdict.
 */
export async function serveHere(argv: string[]): Promise<number | undefined> {
  guardOutput();
  const crash = (error: unknown) => {
    try {
      process.stderr.write(
        `vkit: internal error in the resident build process's client\n${(error as Error)?.stack ?? String(error)}\n`,
      );
    } finally {
      process.exit(4);
    }
  };
  process.on('uncaughtException', crash);
  let served: number | undefined;
  try {
    served = await viaDaemon(argv);
  } catch (error) {
    crash(error); // a rejection would otherwise end the process with node's exit code 1: REJECTED
  }
  if (served === undefined) process.off('uncaughtException', crash);
  else settleOutputAtExit();
  return served;
}

/** The exit code of the command as served by the root's resident process, or undefined to run it here. */
export async function viaDaemon(argv: string[]): Promise<number | undefined> {
  if (process.env.VKIT_DAEMON === '0' || !SHORTCUT_VERBS.has(argv[0] ?? '')) return undefined;
  const root = rootOf(argv);
  if (root === undefined) return undefined;
  let paths;
  try {
    paths = daemonPaths(root);
    if (!lstatSync(paths.socket).isSocket()) return undefined;
  } catch {
    return undefined; // no such root (the local run reports it) or no server: the usual path
  }
  const unsafe =
    unsafeDir(paths.dir) ??
    (lstatSync(paths.socket).uid !== process.getuid?.() ? `${paths.socket} belongs to another user` : undefined);
  if (unsafe) {
    process.stderr.write(`vkit: not using the resident build process: ${unsafe}\n`);
    return undefined;
  }
  const request: Request = {
    protocol: PROTOCOL,
    argv,
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    cwd: process.cwd(),
    tty: Boolean(process.stdout.isTTY),
    columns: process.stdout.columns,
    node: process.version,
    execPath: process.execPath,
    pkg: realpathSync(PACKAGE_DIR),
  };
  return ask(paths.socket, request);
}

async function ask(socketPath: string, request: Request): Promise<number | undefined> {
  // node:net loads only when a server's socket exists: a local build does not pay for it (a
  // built-in taken without `import()`, which the one-script CLI never calls: config/import-module.ts).
  const { connect } = process.getBuiltinModule('node:net') as typeof import('node:net');
  return new Promise((done) => {
    const socket = connect(socketPath);
    const reader = new FrameReader();
    let answered = false;
    let wrote = false;
    let interrupts = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      // The first Ctrl-C cancels the served build (its checks are stopped); a second leaves at once.
      if (++interrupts > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
      socket.write(frame(FRAME.interrupt, { signal }));
    };
    const finish = (code: number | undefined) => {
      if (answered) return;
      answered = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      socket.destroy();
      done(code);
    };
    socket.on('connect', () => {
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      socket.write(frame(FRAME.request, request));
    });
    socket.on('data', (chunk) => {
      for (const f of reader.push(chunk)) {
        if (f.type === FRAME.stdout || f.type === FRAME.stderr) {
          wrote = true;
          (f.type === FRAME.stdout ? process.stdout : process.stderr).write(f.body);
        } else if (f.type === FRAME.exit) finish((JSON.parse(f.body.toString()) as { code: number }).code);
        else if (f.type === FRAME.refuse && !wrote) finish(undefined);
      }
    });
    // Ended without an exit frame. Nothing listened (a stale socket) or the server went away before
    // saying anything: run here. After output, running again would print twice: fail instead.
    const gone = () => {
      if (answered) return;
      if (!wrote) return finish(undefined);
      process.stderr.write('vkit: the resident build process went away before the command finished; run it again\n');
      finish(4);
    };
    socket.on('error', gone);
    socket.on('close', gone);
  });
}

/** One control exchange (ping, stop) with the server at `socketPath`: its answer, or undefined when none answers. */
export async function control(
  socketPath: string,
  type: number,
  timeoutMs = 2000,
): Promise<Record<string, unknown> | undefined> {
  if (unsafeDir(dirname(socketPath))) return undefined;
  const { connect } = process.getBuiltinModule('node:net') as typeof import('node:net');
  return new Promise((done) => {
    const s = connect(socketPath);
    const reader = new FrameReader();
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const finish = (v: Record<string, unknown> | undefined) => {
      clearTimeout(timer);
      s.destroy();
      done(v);
    };
    s.on('connect', () => s.write(frame(type, {})));
    s.on('data', (c) => {
      for (const f of reader.push(c))
        if (f.type === FRAME.exit) finish(JSON.parse(f.body.toString()) as Record<string, unknown>);
    });
    s.on('error', () => finish(undefined));
    s.on('close', () => finish(undefined));
  });
}
