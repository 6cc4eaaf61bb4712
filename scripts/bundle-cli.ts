/**
 * Bundles the CLI (`npm run build`, after tsc): node 20 loads ES modules one file at a time (resolve,
 * read, compile, link; no compile cache), and a no-op `vkit build` used to load about 110 of them.
 * esbuild joins vkit's own modules into `dist/bundle/`: an entry `start.js` (src/cli/start.ts, what
 * bin/vkit.js loads first), an entry `cli.js` (src/cli/entry.ts plus a loader of the built-in kinds' registry),
 * an entry `worker.js` (the job worker, src/jobs/worker-process.ts, started by the bundled job service),
 * and shared chunks (a module shared by several entries is one module), split where the code imports lazily (a
 * verb's handler, a rule), so what a command never runs is still never loaded. Packages stay node's,
 * but for the pure-JS ones every no-op loads (`JOINED`, D43). Beside them, `cli.cjs` is the same CLI
 * (start and cli entries) as one classic script, for V8's code cache (D56, src/fast/code-cache.ts).
 *
 * The bundle is used only while it is current: `dist/bundle/inputs.json` records the size, mtime and
 * sha256 of every module it was made from and of its own files, and bin/vkit.js runs tsc's modules
 * instead when any differs (a `tsc` run without bundling, a bundle file edited by hand), so a stale
 * bundle never runs. A module whose mtime alone
 * differs (an installed package: npm resets mtimes) is hashed and compared by content.
 *
 * `import.meta.url` is rewritten to the URL of the module's own file in dist/: the paths vkit
 * finds beside its modules (worker entries, package.json, pins, packages) resolve as they do unbundled.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';

const PACKAGE = process.cwd();
const DIST = join(PACKAGE, 'dist');
const OUT = join(DIST, 'bundle');
/** The `cli` entry's module, made up here: tsc's entry.js and the kinds' registry. */
const ENTRY = 'vkit-cli-entry';
/** The job worker's entry (src/jobs/service.ts starts it when it runs bundled), made up here too. */
const WORKER_ENTRY = 'vkit-worker-entry';
/** The one-script CLI's entry (`start` and `cli` together), made up here too. */
const SCRIPT_ENTRY = 'vkit-script-entry';
/** The one-script worker's entry: what `worker.js` runs with V8's code cache. */
const WORKER_SCRIPT_ENTRY = 'vkit-worker-script-entry';

// Joined into the bundle: pure JS, no native code, nothing found beside their modules, and loaded
// by every no-op build (valibot alone was 206 KB to compile). Their files are recorded inputs like
// vkit's own, so an updated package makes the bundle stale.
const JOINED = new Set([
  'valibot',
  'graphology',
  'graphology-dag',
  'graphology-utils',
  'mnemonist',
  'obliterator',
  'p-queue',
  'p-timeout',
  'eventemitter3',
]);
/** Packages stay node's (resolved from the output's place in node_modules' tree), but the `JOINED` ones. */
const packages: Plugin = {
  name: 'packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('vkit-') || args.path.startsWith('node:')) return undefined;
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0]!;
      return JOINED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/** The made-up entry modules: the CLI's (with the kinds' registry), the worker's, and the script's (both CLI entries). */
const entries: Plugin = {
  name: 'cli-entry',
  setup(b) {
    b.onResolve({ filter: /^vkit-(cli|worker|script|worker-script)-entry$/ }, (args) => ({
      path: args.path,
      namespace: 'vkit-cli',
    }));
    b.onLoad({ filter: /.*/, namespace: 'vkit-cli' }, (args) => ({
      contents: (args.path === WORKER_ENTRY
        ? [
            // The job service starts this module; the worker itself is the script beside it (D56).
            "import { fileURLToPath } from 'node:url';",
            "import { runCachedScript } from './dist/src/fast/code-cache.js';",
            "runCachedScript(fileURLToPath(new URL('bundle/worker.cjs', __vkitDist)));",
          ]
        : args.path === WORKER_SCRIPT_ENTRY
          ? [
              "import { runWorkerProcess } from './dist/src/jobs/worker-process.js';",
              // The kinds its face hands it are the built-in ones (dist/rules/index.js, as bin/vkit.js
              // installs them): the bundle's own copy loads instead.
              'runWorkerProcess(process.argv.slice(2), {',
              "  module: new URL('rules/index.js', __vkitDist).href,",
              "  load: () => import('./dist/rules/index.js').then((m) => m.registry),",
              '});',
            ]
          : [
              ...(args.path === SCRIPT_ENTRY ? ["export * from './dist/src/cli/start.js';"] : []),
              "export * from './dist/src/cli/entry.js';",
              // A chunk of its own, loaded when a config is first read (never for `--version`).
              "export const loadRegistry = () => import('./dist/rules/index.js').then((m) => m.registry);",
            ]
      ).join('\n'),
      resolveDir: PACKAGE,
      loader: 'js',
    }));
  },
};

/** `import.meta.url` becomes the URL of the module's own file in dist/ (`__vkitDist` is set by each output's banner). */
const ownModuleUrl: Plugin = {
  name: 'own-module-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!args.path.startsWith(`${DIST}/`) || !text.includes('import.meta.url')) return undefined;
      const own = `new URL(${JSON.stringify(relative(DIST, args.path))}, __vkitDist).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'js' };
    });
  },
};

/**
 * In the scripts, `import()` goes through the ES module that ran them (src/fast/code-cache.ts):
 * node 20 loses a script's dynamic-import callback when its code comes from V8's code cache.
 */
const hostImport: Plugin = {
  name: 'host-import',
  setup(b) {
    b.onLoad({ filter: /[/\\]dist[/\\]src[/\\]config[/\\]import-module\.js$/ }, () => ({
      contents: 'export const importModule = (specifier) => __vkitImport(specifier);',
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  outdir: OUT,
  metafile: true,
  logLevel: 'warning',
  // What src/jobs/service.ts reads to start the bundle's worker entry instead of tsc's.
  define: { __VKIT_BUNDLED__: 'true' },
  plugins: [packages, entries, ownModuleUrl],
} satisfies BuildOptions;

await rm(OUT, { recursive: true, force: true });
const modules = await build({
  ...common,
  entryPoints: [
    { in: join(DIST, 'src', 'cli', 'start.js'), out: 'start' },
    { in: ENTRY, out: 'cli' },
    { in: WORKER_ENTRY, out: 'worker' },
  ],
  splitting: true,
  format: 'esm',
  chunkNames: 'chunk-[hash]',
  // Every output file lies directly in dist/bundle/, so `../` is dist/ in each of them.
  banner: { js: "const __vkitDist = new URL('../', import.meta.url);" },
});
// The same CLI and worker as classic scripts, which bin/vkit.js (for `build` and `gate`) and the job
// service run with V8's code cache (src/fast/code-cache.ts): node 20 keeps no compiled code for
// ES modules between runs. Their lazily imported modules are joined in too (each initialised on
// first use); packages stay node's, required, or imported through the host (`hostImport`). ES
// modules are strict: so are the scripts.
const script = await build({
  ...common,
  plugins: [hostImport, ...common.plugins],
  entryPoints: [
    { in: SCRIPT_ENTRY, out: 'cli' },
    { in: WORKER_SCRIPT_ENTRY, out: 'worker' },
  ],
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  banner: { js: `"use strict";\nconst __vkitDist = new URL('../', require('node:url').pathToFileURL(__filename));` },
});
// A package imported with `import()` anywhere else would fail once the script's code came from the cache.
for (const [file, output] of Object.entries(script.metafile.outputs))
  for (const i of output.imports)
    if (i.kind === 'dynamic-import')
      throw new Error(`${file} imports \`${i.path}\` with import(): use importModule (src/config/import-module.ts)`);
const metafiles = [modules.metafile, script.metafile];
const inputs: Record<string, [size: number, mtimeMs: number, sha256: string]> = {};
// The bundle's own files are recorded too: one edited by hand is not the code the record names (and
// what vkit keeps between processes is keyed by this record: src/fast/manifest-cache.ts).
for (const input of new Set(metafiles.flatMap((m) => [...Object.keys(m.inputs), ...Object.keys(m.outputs)]))) {
  if (input.startsWith('vkit-cli:')) continue;
  const file = resolve(PACKAGE, input);
  const st = statSync(file);
  inputs[relative(PACKAGE, file)] = [
    st.size,
    st.mtimeMs,
    createHash('sha256').update(readFileSync(file)).digest('hex'),
  ];
}
await writeFile(join(OUT, 'inputs.json'), `${JSON.stringify(inputs)}\n`);
const outputs = metafiles.reduce((n, m) => n + Object.keys(m.outputs).length, 0);
console.log(`bundle-cli: ${Object.keys(inputs).length} modules -> ${outputs} files in dist/bundle/`);
