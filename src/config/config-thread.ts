/**
 * The config's own thread (started by isolate.ts): imports the bundled `vkit.config.ts`, resolves
 * `defineConfig(() => ...)`, and hands the main thread plain data only. With user rules it then
 * stays up as their host: `attrs`, `plan`, `tool` and `judge` calls arrive on a port and are
 * answered synchronously (the caller blocks on a shared flag). Whatever the config does here
 * (exit, throw odd values, pollute prototypes, replace globals, leave timers) stays in this isolate;
 * the main thread validates every answer again. The answer is sent only once the config's one-shot
 * timers have run, and its processes are killed then (thread-leftovers.ts): neither its timing nor
 * a process it started outlives the answer.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import * as v from 'valibot';
import { fieldPath, isRuleShaped } from './schema.js';
import { describeThrown, plainData, PlainDataError } from './plain.js';
import { limit } from './thread-boot.js';
import { watchLeftovers } from './thread-leftovers.js';

interface ThreadData {
  port: MessagePort;
  flag: SharedArrayBuffer;
  /** The module a config's bare `vkit` import resolves to (vkit's public entry), to warm up. */
  warm: string;
}

type Request =
  | { id: number; op: 'attrs'; kind: string; value: unknown }
  | { id: number; op: 'plan'; kind: string; node: unknown; deps: unknown }
  | { id: number; op: 'tool'; kind: string; attrs: unknown }
  | { id: number; op: 'judge'; kind: string; result: unknown; today: string };

interface HostedRule {
  attrs: v.GenericSchema;
  plan(node: unknown, deps: unknown): { definition?: unknown; env?: unknown; execute?: unknown } | null | undefined;
  tool?(attrs: unknown): unknown;
  judge?(result: unknown, today: string): unknown;
}

const { port, flag, warm } = workerData as ThreadData;
const answered = new Int32Array(flag);
const rules = new Map<string, HostedRule>();
let pending: number | undefined;

function reply(id: number, answer: { ok: true; value: unknown } | { ok: false; error: string }): void {
  port.postMessage({ id, ...answer });
  Atomics.store(answered, 0, 1);
  Atomics.notify(answered, 0);
}

// A rule that calls process.exit ends this thread: answer the call first, so the caller need not
// wait for its time limit to learn why.
const exit = process.exit.bind(process);
process.exit = ((code?: number) => {
  if (pending !== undefined) reply(pending, { ok: false, error: `called process.exit(${code ?? ''})` });
  else parentPort!.postMessage({ type: 'exit', code: code ?? process.exitCode ?? 0 });
  exit(code);
}) as typeof process.exit;

function answer(req: Request): unknown {
  const rule = rules.get(req.kind);
  if (!rule) throw new Error(`no rule of kind \`${req.kind}\` is registered`);
  switch (req.op) {
    case 'attrs': {
      const parsed = v.safeParse(rule.attrs, req.value);
      return parsed.success
        ? { ok: true, output: plainData(parsed.output, 'attrs') }
        : { ok: false, issues: parsed.issues.map((i) => ({ path: fieldPath(i.path), message: String(i.message) })) };
    }
    case 'plan': {
      const planned = rule.plan(req.node, req.deps);
      if (typeof planned !== 'object' || planned === null) return { shape: typeof planned };
      let definition: unknown;
      try {
        definition = plainData(planned.definition, 'definition');
      } catch (error) {
        // Said as such, so the main thread reports a definition that is not data, not a throwing plan().
        if (error instanceof PlainDataError) return { notPlain: error.message };
        throw error;
      }
      return { definition, env: plainData(planned.env, 'env'), execute: typeof planned.execute === 'function' };
    }
    case 'tool':
      return plainData(rule.tool?.(req.attrs), 'tool()');
    case 'judge':
      return plainData(rule.judge?.(req.result, req.today), 'judge()');
  }
}

port.on('message', (req: Request) => {
  pending = req.id;
  try {
    reply(req.id, { ok: true, value: answer(req) });
  } catch (error) {
    reply(req.id, { ok: false, error: describeThrown(error) });
  } finally {
    pending = undefined;
  }
});

// The port must not keep the thread alive while loading (listening refs it): a top-level await
// that never settles then ends the thread, and the main thread says so. Hosting rules, it does.
port.unref();

/** Rules stay here; the main thread gets `{kind, version, tool, judge}` (or null for something that is not a rule). */
function describeRules(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((r) => {
    if (!isRuleShaped(r)) return null;
    const rule = r as HostedRule & { kind: unknown; version: unknown };
    if (typeof rule.kind === 'string') rules.set(rule.kind, rule);
    return {
      kind: plainData(rule.kind, 'rules[].kind'),
      version: plainData(rule.version, 'rules[].version'),
      tool: typeof rule.tool === 'function',
      judge: typeof rule.judge === 'function',
    };
  });
}

// What the config prints travels as messages, which the main thread writes to its stderr: ordered
// before the answer, and (unlike a read of the thread's stdout stream) never keeping the main
// thread alive once the thread is unref'd.
for (const stream of [process.stdout, process.stderr]) {
  stream.write = ((chunk: unknown, encoding?: unknown, done?: unknown) => {
    parentPort!.postMessage({
      type: 'out',
      chunk: typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : String(chunk),
    });
    const callback = typeof encoding === 'function' ? encoding : done;
    if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
    return true;
  }) as typeof stream.write;
}

/**
 * What is wrong with a default export that is not the object `defineConfig` returns, or undefined.
 * A promise, a function's function, a Map or a class instance has no own keys a config would have:
 * copied as data it would read as an empty config (no requirements, BLOCKED) instead of a mistake.
 * Primitives and arrays exported as such are left to the main thread, which names their type.
 */
function wrongExport(imported: unknown, exported: unknown): string | undefined {
  const from = typeof imported === 'function' ? 'a function that returned ' : '';
  if (from === '' && (typeof exported !== 'object' || exported === null || Array.isArray(exported))) return undefined;
  if (typeof exported === 'object' && exported !== null && !Array.isArray(exported)) {
    if (typeof (exported as { then?: unknown }).then === 'function') return `${from}a promise`;
    const proto: unknown = Object.getPrototypeOf(exported);
    if (proto === Object.prototype || proto === null) return undefined;
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    return `${from}${typeof name === 'string' && name ? `a ${name}` : 'an object that is not plain data'}`;
  }
  if (typeof exported === 'function') return `${from}a function`;
  if (Array.isArray(exported)) return `${from}an array`;
  return `${from}${exported === null ? 'null' : typeof exported === 'undefined' ? 'undefined' : `a ${typeof exported}`}`;
}

async function load(module: string): Promise<void> {
  // The answer waits for the config's timers, and its processes end with it (thread-leftovers.ts).
  const leftovers = watchLeftovers(limit('VKIT_CONFIG_TIMEOUT_S', 30) * 1000);
  // Also when a timer's error ends the thread before the answer.
  process.once('exit', () => leftovers.reap());
  try {
    const imported: unknown = (await import(module)).default;
    // `defineConfig(() => ...)`: the function is the config's code too; what it throws is the user's error.
    const exported = typeof imported === 'function' ? await (imported as () => unknown)() : imported;
    const wrong = wrongExport(imported, exported);
    if (wrong !== undefined) {
      parentPort!.postMessage({ type: 'export', message: wrong });
      return;
    }
    let data: unknown = exported;
    if (typeof exported === 'object' && exported !== null && !Array.isArray(exported)) {
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(exported))
        copy[key] =
          key === 'rules'
            ? describeRules((exported as Record<string, unknown>).rules)
            : (exported as Record<string, unknown>)[key];
      data = copy;
    }
    const answer = plainData(data, '');
    await leftovers.settle();
    leftovers.reap();
    parentPort!.postMessage({ type: 'loaded', data: answer });
    if (rules.size > 0) port.ref();
  } catch (error) {
    leftovers.reap();
    parentPort!.postMessage({ type: 'threw', message: describeThrown(error) });
  }
}

// The thread starts while the config is still being bundled: it warms up vkit's own modules (the
// config imports `vkit`; load.ts names the entry, so this core module does not import the public
// face), then waits for the bundle's path.
parentPort!.once('message', (m: { module: string }) => void load(m.module));
void import(warm).catch(() => undefined);
