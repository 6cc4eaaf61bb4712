/**
 * Generators of hostile `vkit.config.ts` files for the config fuzz (test/config/config-fuzz). A case
 * is a valid config (baseConfig: checks that leave a mark and exit with a known code) wrapped in one
 * or two pieces of hostile code: throws of odd values, process.exit, unhandled rejections and timer
 * throws, open handles and timers, endless loops (sync, microtask, recursion), memory, prototype
 * pollution and replaced globals, Proxies whose traps throw, stdout writes, syntax errors, data that
 * is not plain (functions, class instances, Maps, Dates, BigInt, NaN, cycles, getters that throw,
 * lone surrogates), huge outputs, and messages forged on the config thread's own channel.
 *
 * Each snippet says what the only right answer is: `invalid` (exit 2 naming the config), or nothing
 * (the config loads: the checks it declares decide, and READY needs every one of them to pass and
 * to have run). A snippet that changes what the config exports (`alters`) leaves the test nothing
 * it can know about the checks.
 */
import { baseConfig, jsonText, type Known, knownOf } from './fuzz-manifests.js';
import type { Rng } from './random.js';

interface Snippet {
  /** Code placed before the export (top level, top-level await allowed). */
  before?: string;
  /** Code placed after the export. */
  after?: string;
  /** Replaces the export's expression: `DATA` stands for the config data. */
  expression?: string;
  /** Exit 2 naming the config is the only right answer. */
  invalid?: boolean;
  /** The export is not the base data: the test cannot know the checks. */
  alters?: boolean;
  /** Extra environment (limits). */
  env?: Record<string, string>;
}

const wait = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms}));`;
const port = `(await import('node:worker_threads')).parentPort`;

const SNIPPETS: Record<string, Snippet> = {
  // Throws of odd values, at the top or from the config function.
  'throw a number': { before: 'throw 1;', invalid: true },
  'throw null': { before: 'throw null;', invalid: true },
  'throw undefined': { before: 'throw undefined;', invalid: true },
  'throw a symbol': { before: "throw Symbol('s');", invalid: true },
  'throw a bigint': { before: 'throw 10n;', invalid: true },
  'throw a null-prototype object': { before: 'throw Object.create(null);', invalid: true },
  'throw a Proxy whose traps throw': {
    before:
      "throw new Proxy({}, { get() { throw new Error('get'); }, getPrototypeOf() { throw new Error('proto'); }, ownKeys() { throw new Error('keys'); }, has() { throw new Error('has'); } });",
    invalid: true,
  },
  'throw an unprintable object': {
    before:
      "throw { toString() { throw new Error('no'); }, valueOf() { throw new Error('no'); }, toJSON() { throw new Error('no'); } };",
    invalid: true,
  },
  'throw an Error whose message getter throws': {
    before: "throw new (class extends Error { get message(): string { throw new Error('m'); } })();",
    invalid: true,
  },
  'throw a huge message': { before: "throw new Error('x'.repeat(2_000_000));", invalid: true },
  'throw a cycle': { before: 'const e: any = { a: 1 }; e.self = e; throw e;', invalid: true },
  'config function throws': {
    expression: "defineConfig(() => { throw new Error('from the function'); })",
    invalid: true,
  },
  'config function rejects oddly': {
    expression: 'defineConfig((async () => { throw Object.create(null); }) as any)',
    invalid: true,
  },
  // Ending the thread.
  'process.exit(0)': { before: 'process.exit(0);', invalid: true },
  'process.exit(1)': { before: 'process.exit(1);', invalid: true },
  'process.exit()': { before: 'process.exitCode = 0; process.exit();', invalid: true },
  'process.exit later': { before: `setTimeout(() => process.exit(0), 5); ${wait(50)}`, invalid: true },
  'process.exit in the config function': { expression: 'defineConfig(() => process.exit(0) as never)', invalid: true },
  'process.reallyExit': { before: '(process as any).reallyExit(0);', invalid: true },
  'process.abort': { before: 'process.abort();', invalid: true },
  'process.chdir': { before: "process.chdir('/');", invalid: true },
  // Errors that reach no catch.
  'unhandled rejection': { before: `Promise.reject(new Error('nobody catches me')); ${wait(50)}`, invalid: true },
  'unhandled rejection of a symbol': { before: `void Promise.reject(Symbol('s')); ${wait(50)}`, invalid: true },
  'timer throw': { before: `setTimeout(() => { throw 1; }, 0); ${wait(50)}`, invalid: true },
  'never-settling await': { before: 'await new Promise(() => {});', invalid: true },
  // Work that never ends (VKIT_CONFIG_TIMEOUT_S), and the stack and heap.
  'endless loop': { before: 'while (true) {}', invalid: true },
  'endless loop in the config function': {
    expression: 'defineConfig(() => { for (;;) Math.random(); })',
    invalid: true,
  },
  'endless microtasks': { before: 'for (;;) await null;', invalid: true },
  'endless timers': {
    before: 'await new Promise(() => { const again = () => setImmediate(again); again(); });',
    invalid: true,
  },
  'unbounded recursion': { before: 'const f = (n: number): number => f(n + 1) + 1; f(0);', invalid: true },
  'unbounded memory': {
    before: "const keep: string[] = []; while (true) keep.push('x'.repeat(1e6) + keep.length);",
    invalid: true,
    env: { VKIT_CONFIG_MEMORY_MB: '64' },
  },
  // Syntax and module errors.
  'syntax error': { after: 'export const = 1;', invalid: true },
  'unclosed brace': { after: 'function f() {', invalid: true },
  'two default exports': { after: 'export default 1;', invalid: true },
  'missing local import': { before: "import './no-such-module.js';", invalid: true },
  'missing package': { before: "await import('no-such-package-vkit-fuzz');", invalid: true },
  'no default export': { expression: 'undefined as any; export const config = DATA', invalid: true },
  'duplicate key in a literal': {
    expression: 'defineConfig({ checks: [], ...DATA, checks: [] } as any)',
    invalid: true,
  },
  // Data that is not plain, or not a config.
  'default export is a number': { expression: '42 as any', invalid: true },
  'default export is an array': { expression: '[DATA] as any', invalid: true },
  'default export is a Proxy whose traps throw': {
    expression:
      "new Proxy(DATA, { ownKeys() { throw new Error('trap'); }, get() { throw new Error('trap'); }, getOwnPropertyDescriptor() { throw new Error('trap'); } }) as any",
    invalid: true,
  },
  'a check that is a Proxy whose traps throw': {
    expression: "({ ...DATA, checks: [new Proxy({}, { ownKeys() { throw new Error('trap'); } })] }) as any",
    invalid: true,
  },
  'a getter that throws': {
    expression: "({ ...DATA, get checks(): any { throw new Error('getter'); } }) as any",
    invalid: true,
  },
  'a function in a check': {
    expression: "({ ...DATA, checks: [{ id: 'f', run: () => 0, inputs: ['a.txt'] }] }) as any",
    invalid: true,
  },
  'a Date': {
    expression: "({ ...DATA, checks: [{ id: 'd', run: 'true', inputs: ['a.txt'], timeout_s: new Date() }] }) as any",
    invalid: true,
  },
  'a Map': { expression: '({ ...DATA, checks: new Map() }) as any', invalid: true },
  'a class instance': {
    expression: "({ ...DATA, checks: [new (class C { id = 'c'; run = 'true'; inputs = ['a.txt']; })()] }) as any",
    invalid: true,
  },
  'a bigint': {
    expression: "({ ...DATA, checks: [{ id: 'b', run: 'true', inputs: ['a.txt'], timeout_s: 5n }] }) as any",
    invalid: true,
  },
  NaN: {
    expression: "({ ...DATA, checks: [{ id: 'n', run: 'true', inputs: ['a.txt'], timeout_s: NaN }] }) as any",
    invalid: true,
  },
  'Infinity in free-form data': {
    expression:
      "({ ...DATA, formal: { components: [{ id: 'f', package: { id: 'p', version: '1', sha256: 'sha256:' + '0'.repeat(64) }, contract: 'c', source: { entry: 'a.txt' }, profile: 'coq-linux-x86_64-v1', bindings: {}, inputs: ['a.txt'], parameters: { x: Infinity } }] } }) as any",
    invalid: true,
  },
  'a cycle': { expression: '(() => { const d: any = { ...DATA }; d.self = d; return d; })()', invalid: true },
  'a symbol': {
    expression: "({ ...DATA, checks: [{ id: 's', run: Symbol('x'), inputs: ['a.txt'] }] }) as any",
    invalid: true,
  },
  'a lone surrogate': {
    expression: "({ ...DATA, checks: [{ id: 'u', run: ['node', '-e', '0', '\\ud800'], inputs: ['a.txt'] }] }) as any",
    invalid: true,
  },
  'a typed array': {
    expression: "({ ...DATA, checks: [{ id: 't', run: new Uint8Array(2), inputs: ['a.txt'] }] }) as any",
    invalid: true,
  },
  'deep nesting': {
    expression:
      "({ ...DATA, formal: { components: [{ id: 'f', package: { id: 'p', version: '1', sha256: 'sha256:' + '0'.repeat(64) }, contract: 'c', source: { entry: 'a.txt' }, profile: 'coq-linux-x86_64-v1', bindings: {}, inputs: ['a.txt'], parameters: { x: JSON.parse('['.repeat(5000) + ']'.repeat(5000)) } }] } }) as any",
    invalid: true,
  },
  'a huge id': {
    expression: "({ ...DATA, checks: [{ id: 'x'.repeat(1_000_000), run: 'true', inputs: ['a.txt'] }] }) as any",
    alters: true,
  },
  'many checks with one id': {
    expression:
      "({ ...DATA, checks: Array.from({ length: 20_000 }, () => ({ id: 'same', run: 'true', inputs: ['a.txt'] })) }) as any",
    invalid: true,
  },
  // Forged messages on the config thread's channel to vkit.
  'forged output that is not text': {
    before: `${port}!.postMessage({ type: 'out', chunk: { not: 'text' } }); ${wait(20)}`,
    invalid: true,
  },
  'forged answer that is not plain data': {
    before: `const c: any = {}; c.self = c; ${port}!.postMessage({ type: 'loaded', data: { checks: [], formal: { components: [{ id: 'f', package: { id: 'p', version: '1', sha256: 'sha256:' + '0'.repeat(64) }, contract: 'c', source: { entry: 'a.txt' }, profile: 'coq-linux-x86_64-v1', bindings: {}, inputs: ['a.txt'], parameters: c }] } } }); await new Promise(() => {});`,
    invalid: true,
  },
  'forged answer holding a Map': {
    before: `${port}!.postMessage({ type: 'loaded', data: { checks: new Map([[1, 2]]) } }); await new Promise(() => {});`,
    invalid: true,
  },
  'forged exit with a non-number': {
    before: `${port}!.postMessage({ type: 'exit', code: { a: 1 } }); process.exit(0);`,
    invalid: true,
  },
  'forged throw with an object message': {
    before: `${port}!.postMessage({ type: 'threw', message: { a: 1 } }); await new Promise(() => {});`,
    invalid: true,
  },
  'forged unknown message': {
    before: `${port}!.postMessage({ type: 'nonsense' }); ${port}!.postMessage(42); ${wait(20)}`,
    invalid: true,
  },
  // Loads, but misbehaves: the checks it declares still decide.
  'stdout: a READY gate': {
    before: "console.log(JSON.stringify({ status: 'READY', gate: { status: 'READY', items: [] } }));",
  },
  'stdout: raw writes': {
    before:
      'process.stdout.write(\'{"status":"READY"}\\n\'); process.stdout.write(Buffer.from([0xff, 0, 0x0a])); process.stdout.write(new Uint8Array([0x7b]));',
  },
  'stdout: a lot': { before: "console.log('x'.repeat(3_000_000));" },
  'stderr: terminal control': { before: "console.error('\\u001b[2J\\u001b[H\\r');" },
  'open interval': { before: 'setInterval(() => {}, 1000);' },
  'open timeout': { before: 'setTimeout(() => {}, 1e9);' },
  'open server': { before: "const net = await import('node:net'); net.createServer().listen(0, '127.0.0.1');" },
  'open stdin': { before: 'process.stdin.resume();' },
  'nested worker': {
    before:
      "const { Worker } = await import('node:worker_threads'); new Worker('setInterval(() => {}, 1000)', { eval: true });",
  },
  'child process': {
    before: "const cp = await import('node:child_process'); cp.spawn('sleep', ['2'], { stdio: 'ignore' });",
  },
  'Object.prototype.status': {
    before:
      "(Object.prototype as any).status = 'READY'; (Object.prototype as any).exitCode = 0; (Object.prototype as any).outcome = 'PASS';",
  },
  'Array.prototype tricks': {
    before:
      '(Array.prototype as any).includes = () => true; (Array.prototype as any).filter = function () { return []; }; (Array.prototype as any).some = () => false;',
  },
  'replaced globals': {
    before:
      "(globalThis as any).Promise = undefined; (globalThis as any).JSON = { stringify: () => '{}', parse: () => ({}) }; (globalThis as any).Map = undefined;",
  },
  'config function': { expression: 'defineConfig(() => (DATA))' },
  'async config function': { expression: 'defineConfig(async () => { await null; return DATA; })' },
  'frozen data': { expression: 'Object.freeze(DATA)' },
  'null-prototype data': { expression: 'Object.assign(Object.create(null), DATA)' },
  'a Proxy that answers': { expression: 'new Proxy(DATA, {})' },
  'environment edits': {
    before:
      "process.env.VKIT_CONFIG_TIMEOUT_S = '0'; process.env.PATH = '/nowhere'; process.env.NODE_OPTIONS = '--bad';",
  },
  // Changes what is exported: nothing can be known about the checks.
  'Object.prototype.then': {
    before:
      '(Object.prototype as any).then = function (this: any, r: any) { delete (Object.prototype as any).then; r({ checks: [] }); };',
    expression: 'defineConfig(() => (DATA))',
    alters: true,
  },
  'forged empty answer': {
    before: `${port}!.postMessage({ type: 'loaded', data: { checks: [] } }); await new Promise(() => {});`,
    alters: true,
  },
};

export interface ConfigCase {
  generator: string;
  text: string;
  files: Record<string, string>;
  /** What the test knows of the checks (undefined when a snippet changes the export). */
  known?: Known;
  invalid: boolean;
  env: Record<string, string>;
}

/** A config case: a valid base, one or (now and then) two snippets. */
export function generateConfig(rng: Rng, marksDir: string): ConfigCase {
  const base = baseConfig(rng, marksDir, { failing: 0.3 });
  // Manifest-only members.
  delete base.data.$schema;
  delete base.data.schema_version;
  const names = [rng.pick(Object.keys(SNIPPETS))];
  // A second snippet never changes the export, nor joins one that does (which would decide alone).
  if (rng.chance(0.2) && !SNIPPETS[names[0]!]!.alters)
    names.push(rng.pick(Object.keys(SNIPPETS).filter((n) => !SNIPPETS[n]!.expression && !SNIPPETS[n]!.alters)));
  const snippets = names.map((n) => SNIPPETS[n]!);
  const data = jsonText(base.data, '', rng.pick(['  ', '']));
  const expression = (snippets.find((s) => s.expression)?.expression ?? 'defineConfig(DATA)').replace('DATA', data);
  const text = `${[
    "import { defineConfig } from 'vkit';",
    ...snippets.map((s) => s.before ?? ''),
    `export default ${expression};`,
    ...snippets.map((s) => s.after ?? ''),
  ].join('\n')}\n`;
  const alters = snippets.some((s) => s.alters);
  return {
    generator: names.join(' + '),
    text,
    files: base.files,
    known: alters ? undefined : knownOf(base.data),
    invalid: snippets.some((s) => s.invalid),
    env: Object.assign({ VKIT_CONFIG_TIMEOUT_S: '2' }, ...snippets.map((s) => s.env ?? {})),
  };
}
