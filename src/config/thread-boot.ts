/**
 * Starting a config thread (config-thread.ts), apart from the rest of isolate.ts so that bin/vkit.js
 * can start one before it loads anything else (src/fast/boot-ahead.ts): this module loads only node's
 * own. A thread started here holds no config yet; isolate.ts sends it one.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';

const THREAD = new URL('./config-thread.js', import.meta.url);

/** vkit's public entry (src/index.ts, built): what a config's bare `vkit` import resolves to. */
export const SELF_ENTRY = new URL('../index.js', import.meta.url);

export function limit(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export interface Booting {
  worker: Worker;
  port1: MessagePort;
  flag: SharedArrayBuffer;
  memoryMb: number;
  /** The environment the thread was given: a config reads it as its `process.env`. */
  env: Record<string, string>;
  /** Why the thread ended before a config was sent to it (it failed to start). */
  ended?: string;
}

/** The environment as a thread is given it: a copy, of string values only. */
export function envOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function bootConfigThread(given: NodeJS.ProcessEnv = process.env): Booting {
  const env = envOf(given);
  const memoryMb = limit('VKIT_CONFIG_MEMORY_MB', 512, env);
  const flag = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(THREAD, {
    // `warm`: the module a config's bare `vkit` import resolves to, loaded while the config is bundled.
    workerData: { port: port2, flag, warm: SELF_ENTRY.href },
    transferList: [port2],
    // Captured and never read: the thread forwards what it prints as messages (config-thread.ts).
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    // Given explicitly: by default a thread copies the process's environment as the OS holds it,
    // not `process.env` as a resident build process sets it for the client it serves.
    env,
  });
  const booting: Booting = { worker, port1, flag, memoryMb, env };
  // Until evaluate() listens, an error of the thread itself must not be an unhandled 'error' event,
  // and its end must not go unseen (evaluate would wait for an answer that cannot come).
  const ended = (why: string) => {
    booting.ended ??= why;
  };
  worker.on('error', (error) => ended(`raised an error while starting: ${error.message}`));
  worker.once('exit', (code) => ended(`stopped while starting (exit code ${code})`));
  return booting;
}
