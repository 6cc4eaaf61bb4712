/**
 * The resident build process (started by `vkit daemon start`, entry `main.ts`): one per root,
 * listening on a user-only unix socket, running `build` and `gate` command lines for its clients one
 * at a time through the very same `runCli` a fresh process runs, with the client's arguments,
 * environment, directory and terminal. What it saves is node's start, module loading, a cold JIT
 * and booting the config thread (the next one boots while it waits, given the environment of the
 * client last served, and is taken only by a request with that same environment). It keeps no
 * evidence of its own, so every request re-reads the config, re-lists and re-stats the tree,
 * re-loads the file-state cache and re-verifies every receipt exactly as a fresh process would; its
 * one memo is a pure function's: the manifest validated from the config's exact bytes (load.ts).
 * A command's output reaches the client in one frame per turn of the event loop (frames.ts).
 *
 * It declines (the client then runs the command itself) whatever it cannot serve as a twin of the
 * client: another node, vkit package or NODE_OPTIONS, its own code changed on disk since it started
 * (it then exits), another root, another verb. A config that leaves code in node's module cache
 * (config/reload-guard.ts) would keep that code here, so the server exits after serving one.
 */
import { lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { runCli } from '../cli/main.js';
import { withInterrupts, type Interrupt } from '../cli/interrupt.js';
import { prestartConfigThread } from '../config/isolate.js';
import { rememberManifests } from '../config/load.js';
import { dropStandbyWorker, keepStandbyWorker, refillStandbyWorker, standbyPid } from '../jobs/standby.js';
import { installSpeed } from '../service/speed.js';
import { WatchedMemo } from '../fast/watched-memo.js';
import { TreeWatch } from '../fast/tree-watch.js';
import { locksAbove, userCodeCached } from '../config/reload-guard.js';
import { PACKAGE_DIR, control } from './client.js';
import { FRAME, FrameReader, OutputFrames, PROTOCOL, frame, type Request } from './frames.js';
import { makePrivateDir, rootOf, SHORTCUT_VERBS, type DaemonPaths } from './paths.js';

const OWN_PACKAGE = realpathSync(PACKAGE_DIR);

export interface ServeOptions {
  paths: DaemonPaths;
  /** Exit after this long without a request. */
  idleMs: number;
  /** Watch the tree and answer a repeated no-op from memory (fast/watched-memo.ts). */
  watch?: boolean;
}

/** Size, mtime and inode of every file of vkit's own code: a change means this process runs old code. */
export function codeFingerprint(pkg = PACKAGE_DIR): string {
  const parts: string[] = [];
  const add = (p: string) => {
    try {
      const st = lstatSync(p, { bigint: true });
      parts.push(`${p}\0${st.size}\0${st.mtimeNs}\0${st.ino}`);
    } catch {
      parts.push(`${p}\0missing`);
    }
  };
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return void parts.push(`${dir}\0missing`);
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else add(join(dir, e.name));
    }
  };
  // What this process runs (tsc's modules; a bundled client runs the same code, bin/vkit.js).
  walk(join(pkg, 'dist', 'src'));
  walk(join(pkg, 'dist', 'rules'));
  add(join(pkg, 'package.json'));
  // vkit's dependencies: its own install, or the project's when vkit is one of them (hoisted).
  for (const lock of locksAbove(pkg)) add(lock);
  add(process.execPath);
  return parts.join('\n');
}

/** The directories holding what `codeFingerprint` covers (the code's, the package's and every one above it, node's), with their inodes. */
function codeDirs(pkg = PACKAGE_DIR): Map<string, bigint> {
  const dirs = new Map<string, bigint>();
  const add = (dir: string) => {
    const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
    if (st) dirs.set(dir, st.ino);
  };
  const walk = (dir: string) => {
    add(dir);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(join(pkg, 'dist', 'src'));
  walk(join(pkg, 'dist', 'rules'));
  add(join(pkg, 'dist'));
  for (let dir = resolve(pkg); ; dir = dirname(dir)) {
    add(dir);
    if (dirname(dir) === dir) break;
  }
  add(dirname(process.execPath));
  return dirs;
}

export async function serve(opts: ServeOptions): Promise<void> {
  const { paths } = opts;
  makePrivateDir(paths.dir);
  rememberManifests();
  const code = codeFingerprint();
  // A watching server also watches its own code's directories: the fingerprint (hundreds of stats)
  // is taken again only after an event there.
  const codeWatch = opts.watch ? new TreeWatch(join(paths.dir, `code-${process.pid}`)) : undefined;
  codeWatch?.cover(codeDirs());
  let codeSeen = -1;
  const codeChanged = (): boolean => {
    if (codeWatch && !codeWatch.broken && codeWatch.generation === codeSeen) return false;
    const seen = codeWatch?.generation ?? -1;
    const changed = codeFingerprint() !== code;
    if (!changed) codeSeen = seen;
    return changed;
  };
  // Watching starts before the first request, so that its answer can be kept.
  const memo = opts.watch ? new WatchedMemo(paths.root, join(paths.dir, `watch-${process.pid}`)) : undefined;
  installSpeed({ memo });
  const started = new Date().toISOString();
  let served = 0;
  let queue: Promise<void> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  let stopping = false;

  const server = createServer((socket) => {
    const reader = new FrameReader();
    let interrupt: ((signal: Interrupt) => void) | undefined;
    let interrupted: Interrupt | undefined;
    socket.on('error', () => {});
    socket.on('close', () => {
      // A client that went away mid-request is an interrupt: its checks stop.
      if (interrupt) interrupt('SIGTERM');
      else interrupted = 'SIGTERM';
    });
    socket.on('data', (chunk) => {
      try {
        handle(reader.push(chunk));
      } catch {
        socket.destroy(); // a frame that is not ours: nothing to answer
      }
      armIdle();
    });
    const handle = (frames: Array<{ type: number; body: Buffer }>) => {
      for (const f of frames) {
        if (f.type === FRAME.ping)
          socket.end(
            frame(FRAME.exit, {
              code: 0,
              pid: process.pid,
              root: paths.root,
              started,
              served,
              standby: standbyPid() ?? null,
              ...(memo ? { watch: memo.status() } : {}),
            }),
          );
        else if (f.type === FRAME.stop)
          void answer(socket, frame(FRAME.exit, { code: 0, pid: process.pid })).then(shutdown);
        else if (f.type === FRAME.interrupt) {
          const signal = (JSON.parse(f.body.toString()) as { signal: Interrupt }).signal;
          if (interrupt) interrupt(signal);
          else interrupted = signal;
        } else if (f.type === FRAME.request) {
          const request = JSON.parse(f.body.toString()) as Request;
          queue = queue
            .then(async () => {
              // Every change made before the request is counted first (the code's and the tree's).
              await memo?.begin();
              const why = stopping ? 'the server is stopping' : declined(request, paths.root, codeChanged);
              if (why) {
                await answer(socket, frame(FRAME.refuse, { reason: why }));
                if (why.startsWith('vkit changed')) shutdown();
                return;
              }
              if (socket.destroyed) return;
              let result: number;
              try {
                result = await runServed(request, socket, (listener) => {
                  interrupt = listener;
                  if (interrupted) listener(interrupted);
                });
              } catch (error) {
                // runCli reports its own errors; this is the server failing to stand in for the client.
                if (!socket.destroyed)
                  socket.write(
                    frame(
                      FRAME.stderr,
                      `vkit: internal error in the resident build process\n${(error as Error)?.stack ?? String(error)}\n`,
                    ),
                  );
                result = 4;
              }
              interrupt = undefined;
              served++;
              // The next request most likely comes from the same shell, with the same environment.
              prestartConfigThread(request.env);
              // The exit frame is on its way before a shutdown below may end this process.
              await answer(socket, frame(FRAME.exit, { code: result }));
              // What the request offered is kept once its answer is on its way (the tree walk is not the client's wait).
              await memo?.end();
              // A warm worker taken by this request is replaced now, before the next edit needs one.
              refillStandbyWorker();
              // A TS config left its packages or required modules in node's cache: never serve again.
              if (userCodeCached()) shutdown();
            })
            .catch(() => void socket.destroy()); // one failed request never stalls the ones queued behind it
        }
      }
    };
  });

  const armIdle = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(shutdown, opts.idleMs);
    idle.unref();
  };
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    server.close();
    void queue.then(() => {
      dropStandbyWorker();
      memo?.close();
      codeWatch?.close();
      rmSync(paths.socket, { force: true });
      process.exit(0);
    });
  };

  // Another server answering on this socket keeps it (two `daemon start`s raced): this one leaves.
  if (await control(paths.socket, FRAME.ping)) throw new Error(`a server already listens on ${paths.socket}`);
  rmSync(paths.socket, { force: true });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(paths.socket, () => ok());
  });
  armIdle();
  // The next request's config thread boots while the server waits (isolate.ts), and so does the
  // next edit's worker (a warm standby; jobs/standby.ts).
  prestartConfigThread();
  keepStandbyWorker(process.env);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/** Ends the connection with `last`, resolved once it is flushed (or the client is gone, or 5 s passed). */
function answer(socket: Socket, last: Buffer): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(done, 5000);
    const finish = () => {
      clearTimeout(timer);
      done();
    };
    socket.once('close', finish);
    socket.end(last, finish);
  });
}

/** Why this server will not run `request`, or undefined to run it. */
function declined(r: Request, root: string, codeChanged: () => boolean): string | undefined {
  if (r.protocol !== PROTOCOL) return `protocol ${r.protocol}, this server speaks ${PROTOCOL}`;
  if (r.node !== process.version || r.execPath !== process.execPath)
    return `node ${r.node} at ${r.execPath}, this server runs ${process.version} at ${process.execPath}`;
  if (r.pkg !== OWN_PACKAGE) return `vkit at ${r.pkg}, this server is ${OWN_PACKAGE}`;
  if (!SHORTCUT_VERBS.has(r.argv[0] ?? '')) return `\`${r.argv[0]}\` is not served`;
  // Node's own options (conditions, loaders, flags) were fixed when this process started.
  if ((r.env.NODE_OPTIONS ?? '') !== (process.env.NODE_OPTIONS ?? '')) return "NODE_OPTIONS differs from this server's";
  let asked: string | undefined;
  try {
    if (!lstatSync(r.cwd).isDirectory()) return `directory ${r.cwd} is gone`;
    asked = rootOf(r.argv, r.cwd);
    if (asked) asked = realpathSync(asked);
  } catch {
    asked = undefined;
  }
  if (asked !== root) return `root ${asked ?? '(unclear)'}, this server serves ${root}`;
  if (codeChanged()) return 'vkit changed on disk since this server started';
  return undefined;
}

/**
 * Runs one request as the client would have run it: its environment, directory, terminal and
 * interrupts stand in for this process's own until the command returns.
 */
async function runServed(
  r: Request,
  socket: Socket,
  onInterrupt: (listener: (signal: Interrupt) => void) => void,
): Promise<number> {
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    out: process.stdout.write,
    err: process.stderr.write,
    isTTY: process.stdout.isTTY,
    columns: process.stdout.columns,
  };
  const output = new OutputFrames(socket);
  const forward =
    (type: number) =>
    (
      chunk: string | Uint8Array,
      encoding?: BufferEncoding | ((e?: Error) => void),
      cb?: (e?: Error) => void,
    ): boolean => {
      if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
      output.write(type, typeof chunk === 'string' ? Buffer.from(chunk, encoding ?? 'utf8') : Buffer.from(chunk));
      if (cb) process.nextTick(cb);
      return true;
    };
  try {
    process.env = { ...r.env };
    process.chdir(r.cwd);
    process.stdout.write = forward(FRAME.stdout) as typeof process.stdout.write;
    process.stderr.write = forward(FRAME.stderr) as typeof process.stderr.write;
    Object.assign(process.stdout, { isTTY: r.tty, columns: r.columns });
    return await withInterrupts({ listen: (listener) => (onInterrupt(listener), () => {}), exitNow: () => {} }, () =>
      runCli(r.argv),
    );
  } finally {
    output.flush();
    process.env = saved.env;
    process.chdir(saved.cwd);
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    Object.assign(process.stdout, { isTTY: saved.isTTY, columns: saved.columns });
  }
}
