/**
 * The sealed evaluation of a TS config (seal.ts starts this thread; D53): the config, bundled as
 * one script with vkit's public entry inside it, runs in a fresh `node:vm` context of this thread
 * whose every way to the world outside ECMAScript is a tripwire. The global names a config thread
 * has and a bare context does not (`process`, `fetch`, `setTimeout`, `performance`, `crypto`,
 * ...), and the context's own sources of time, chance and scheduling (`Date`, `Math.random`,
 * `Intl`, `WeakRef`, `FinalizationRegistry`, `SharedArrayBuffer`, `Atomics`, `WebAssembly`,
 * `console`), code made from strings (`eval`, `Function`; the context refuses it anyway) and
 * `import.meta` are accessors that record the first name touched and throw. What the thread
 * answers: the first name touched, what the evaluation threw, or the config's data as JSON.
 * A config that touched nothing computed its data from its own code alone.
 */
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';

const { text, timeoutMs } = workerData as { text: string; timeoutMs: number };

/** Not in a bare context, or in it but not a function of the code alone. */
const OUTSIDE = [
  'console',
  'Date',
  'Intl',
  'WeakRef',
  'FinalizationRegistry',
  'SharedArrayBuffer',
  'Atomics',
  'WebAssembly',
  'eval',
  'Function',
  '__vkit_import_meta',
];

let touched: string | undefined;
const sandbox: Record<string, unknown> = Object.create(null);
const context = vm.createContext(sandbox, {
  name: 'sealed config',
  codeGeneration: { strings: false, wasm: false },
  // Promise jobs run inside each evaluation, under its time limit.
  microtaskMode: 'afterEvaluate',
});
const intrinsic = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', context) as string[]);
// Made in the context, so what a config catches is of its own realm (never this thread's objects).
const prelude = vm.runInContext(
  `(trip) => {
    Object.defineProperty(Error, 'stackTraceLimit', { value: 0, writable: false, configurable: false });
    const math = new Proxy(Math, {
      get(target, key) { if (key === 'random') trip('Math.random'); return Reflect.get(target, key); },
      getOwnPropertyDescriptor(target, key) {
        if (key === 'random') trip('Math.random');
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    const fail = (name) => { throw new ReferenceError(name + ' reaches outside the sealed config'); };
    const stringify = JSON.stringify;
    const settled = Promise.resolve();
    const run = (exports) => {
      const out = {};
      settled
        .then(async () => {
          let data = exports == null ? undefined : exports.default;
          if (typeof data === 'function') data = await data();
          out.json = stringify(data === undefined ? null : data);
        })
        .then(undefined, (error) => { out.threw = String(error); });
      return out;
    };
    return { math, fail, run };
  }`,
  context,
) as (trip: (name: string) => void) => {
  math: object;
  fail: (name: string) => never;
  run: (exports: unknown) => { json?: unknown; threw?: unknown };
};
const sealed = prelude((name) => {
  touched ??= name;
  sealed.fail(name);
});
const names = new Set([...Object.getOwnPropertyNames(globalThis).filter((n) => !intrinsic.has(n)), ...OUTSIDE]);
for (const name of names)
  Object.defineProperty(sandbox, name, {
    get() {
      touched ??= name;
      return sealed.fail(name);
    },
    set() {
      touched ??= name;
      sealed.fail(name);
    },
    enumerable: Object.getOwnPropertyDescriptor(globalThis, name)?.enumerable ?? false,
    configurable: false,
  });
Object.defineProperty(sandbox, 'Math', { value: sealed.math, writable: true, configurable: true, enumerable: false });

let answer: { touched: string } | { threw: string } | { json: string };
try {
  new vm.Script(text, { filename: 'vkit.config.sealed.js' }).runInContext(context, { timeout: timeoutMs });
  const out = sealed.run(sandbox.__vkit_sealed);
  // run() returned before its promise settled; the context's jobs ran right after it (afterEvaluate).
  vm.runInContext('0', context, { timeout: timeoutMs });
  answer =
    touched !== undefined
      ? { touched }
      : typeof out.json === 'string'
        ? { json: out.json }
        : { threw: typeof out.threw === 'string' ? out.threw : 'the config did not settle' };
} catch (error) {
  const message = (error as { message?: unknown } | null)?.message;
  answer = touched !== undefined ? { touched } : { threw: typeof message === 'string' ? message : 'a value' };
}
parentPort!.postMessage(touched !== undefined ? { touched } : answer);
