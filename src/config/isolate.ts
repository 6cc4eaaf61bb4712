/**
 * Evaluates a bundled `vkit.config.ts` in a worker thread (config-thread.ts) and returns only plain
 * data: the main thread never runs config code. A thread rather than a child process because it
 * is a separate V8 isolate (the config's globals and prototypes are its own), `process.exit` in it
 * ends only the thread, `resourceLimits` caps its heap, `terminate()` stops even a busy loop, what
 * it prints comes as messages vkit writes to stderr, it starts in a fraction of a process's time, and the
 * main thread can call into it synchronously, which user rules' `plan`, `tool` and `judge` need (the
 * engine calls them synchronously; they run in the isolate that evaluated them). What a thread does
 * not contain: native code and `process.kill`; checks of the same user are sandboxed elsewhere.
 *
 * Limits: `VKIT_CONFIG_TIMEOUT_S` (default 30) for loading and for each rule call,
 * `VKIT_CONFIG_MEMORY_MB` (default 512) for the thread's heap. Every failure is a config error
 * (exit 2) naming the config file.
 */
import { receiveMessageOnPort } from 'node:worker_threads';
import { invalid, type VkitError } from '../errors.js';
import { describeThrown, plainData } from './plain.js';
import { type Booting, bootConfigThread, envOf, limit } from './thread-boot.js';

export { SELF_ENTRY } from './thread-boot.js';

export interface RuleDescriptor {
  kind: string;
  version: number;
  tool: boolean;
  judge: boolean;
}

/** A synchronous call into the thread's rules: the answer, or an Error saying why there is none. */
export type RuleCall = (
  op: 'attrs' | 'plan' | 'tool' | 'judge',
  kind: string,
  args: Record<string, unknown>,
) => { ok: true; value: unknown } | { ok: false; error: string };

export interface IsolatedConfig {
  /** The default export as plain data; `rules` entries are descriptors (null: not a rule). */
  exported: unknown;
  /** Present while the thread hosts user rules. */
  call?: RuleCall;
  /** Stops the thread (a no-op once stopped). */
  close(): Promise<void>;
}

/** A config thread started ahead of the bundle (its start-up overlaps esbuild's work). */
export interface ConfigThread {
  /** Evaluates the module at `moduleUrl` (a file: or data: URL). */
  evaluate(moduleUrl: string, shown: string): Promise<IsolatedConfig>;
  /** Stops a thread that will not be asked to evaluate (the bundle failed). */
  abandon(): Promise<void>;
}

/** A thread booted by prestartConfigThread, waiting for the first config load of this process. */
let waiting: Booting | undefined;

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * Boots a config thread now, for a process that is about to load a TS config (the CLI, before it
 * loads its own modules): the thread's start-up (a new isolate importing vkit's public modules)
 * then runs on another core beside the main thread's. The next config load of this process takes
 * it, whichever root it is for (the thread holds nothing of any config yet); until then it never
 * keeps the process alive, and one nobody takes dies with the process. It is taken only by a load
 * whose environment is `env` (a resident build process boots the next one with the environment of
 * the client it last served).
 */
export function prestartConfigThread(env: NodeJS.ProcessEnv = process.env, booted?: Booting): void {
  if (waiting) {
    if (booted && booted !== waiting) void booted.worker.terminate();
    return;
  }
  waiting = booted ?? bootConfigThread(env);
  waiting.worker.unref();
}

export function startConfigThread(): ConfigThread {
  // A thread booted ahead is not taken once it has ended, or when it was given another environment
  // than this load's (its config would read that one, and its heap limit comes from it): another starts.
  const taken =
    waiting && waiting.ended === undefined && sameEnv(waiting.env, envOf(process.env)) ? waiting : undefined;
  if (waiting && !taken) void waiting.worker.terminate();
  waiting = undefined;
  taken?.worker.ref();
  const booting = taken ?? bootConfigThread();
  const { worker, port1 } = booting;
  return {
    evaluate: (moduleUrl, shown) => {
      worker.postMessage({ module: moduleUrl });
      return evaluate(booting, shown);
    },
    abandon: async () => {
      port1.close();
      await worker.terminate();
    },
  };
}

async function evaluate(booting: Booting, shown: string): Promise<IsolatedConfig> {
  const { worker, port1, flag, memoryMb } = booting;
  const timeoutMs = limit('VKIT_CONFIG_TIMEOUT_S', 30) * 1000;
  const answered = new Int32Array(flag);
  let stopped: string | undefined;
  const fail = (
    what: string,
    fix = 'Fix the config so that loading it only computes and returns the config.',
  ): VkitError => invalid('ERR_CONFIG_THREW', `Loading the config ${what}`, { file: shown }, fix);

  const loaded = await new Promise<{ data: unknown } | { error: VkitError }>((resolve) => {
    const timer = setTimeout(
      () =>
        resolve({
          error: fail(
            `did not finish within ${timeoutMs / 1000} s (an endless loop, or work that never ends)`,
            'Make loading finish quickly, or raise VKIT_CONFIG_TIMEOUT_S.',
          ),
        }),
      timeoutMs,
    );
    const settle = (r: { data: unknown } | { error: VkitError }) => {
      clearTimeout(timer);
      resolve(r);
    };
    if (booting.ended !== undefined) {
      stopped = booting.ended;
      settle({ error: fail(booting.ended, 'Check that vkit is installed whole (its config thread could not start).') });
      return;
    }
    let exitCalled: string | undefined;
    // Config code can post on this channel too (`parentPort` is its to import): every message is read
    // as untrusted, and one the thread itself never sends is the config's error.
    worker.on(
      'message',
      (m: { type?: unknown; data?: unknown; message?: unknown; code?: unknown; chunk?: unknown } | null) => {
        const type = typeof m === 'object' && m !== null ? m.type : undefined;
        // The config's output never reaches stdout, which belongs to vkit's answer (`--json`).
        if (type === 'out' && (typeof m!.chunk === 'string' || m!.chunk instanceof Uint8Array))
          process.stderr.write(m!.chunk);
        else if (type === 'exit' && (typeof m!.code === 'number' || typeof m!.code === 'string'))
          exitCalled = String(m!.code);
        else if (type === 'export' && typeof m!.message === 'string')
          settle({
            error: invalid(
              'ERR_CONFIG_INVALID',
              `Expected the config's default export to be the object defineConfig returns; the default export is ${m!.message}`,
              { file: shown },
              'Export the object: `export default defineConfig({ checks: [...] })` (a config that must wait first may export `defineConfig(async () => ({ ... }))`).',
            ),
          });
        else if (type === 'threw' && typeof m!.message === 'string')
          settle({ error: fail(`threw: ${m!.message}`, 'Fix the error your config module raises.') });
        else if (type === 'loaded') {
          // The thread copies its answer as plain data, but a forged answer is only structured-clone data:
          // it may hold cycles, Maps, Dates, lone surrogates. Copied again here, on this side.
          try {
            settle({ data: plainData(m!.data, '') });
          } catch (error) {
            settle({ error: fail(`gave an answer that is not plain data: ${describeThrown(error)}`) });
          }
        } else
          settle({
            error: fail(
              `sent vkit a message its thread never sends (${describeThrown(m)})`,
              "Do not post messages on vkit's config thread channel (worker_threads parentPort).",
            ),
          });
      },
    );
    worker.on('error', (error: Error & { code?: string }) => {
      stopped = `raised ${error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out of memory' : `an uncaught error: ${error.message}`}`;
      settle({
        error:
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? fail(`used more than ${memoryMb} MB`, 'Reduce what the config computes, or raise VKIT_CONFIG_MEMORY_MB.')
            : fail(
                `raised an uncaught error or unhandled rejection: ${error.message}`,
                'Handle every promise and timer error in your config.',
              ),
      });
    });
    worker.on('exit', (code) => {
      stopped ??= `stopped (exit code ${code})`;
      const what =
        exitCalled !== undefined || code !== 0
          ? `called process.exit(${exitCalled ?? code})`
          : 'ended without an answer (a top-level await that never settles)';
      settle({ error: fail(what, 'A config must not exit the process or leave promises unsettled.') });
    });
  });

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    port1.close();
    await worker.terminate();
  };
  if ('error' in loaded) {
    await close();
    throw loaded.error;
  }
  const rules = (loaded.data as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules) || rules.length === 0) {
    // Nothing left to host: timers and handles the config left die with the thread.
    await close();
    return { exported: loaded.data, close };
  }
  worker.unref();
  port1.unref();
  let next = 0;
  const call: RuleCall = (op, kind, args) => {
    if (closed || stopped) return { ok: false, error: `the config's rule host ${stopped ?? 'is closed'}` };
    const id = ++next;
    Atomics.store(answered, 0, 0);
    port1.postMessage({ id, op, kind, ...args });
    const waited = Atomics.wait(answered, 0, 0, timeoutMs);
    const reply = receiveMessageOnPort(port1)?.message as
      | ({ id: number } & ({ ok: true; value: unknown } | { ok: false; error: string }))
      | undefined;
    if (!reply || reply.id !== id) {
      stopped = waited === 'timed-out' ? `did not answer within ${timeoutMs / 1000} s` : 'stopped answering';
      void close();
      return { ok: false, error: `the config's rule host ${stopped}` };
    }
    return reply.ok ? { ok: true, value: reply.value } : { ok: false, error: reply.error };
  };
  return { exported: loaded.data, call, close };
}
