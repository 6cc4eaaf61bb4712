/**
 * Bundles the CLI (`npm run build`, after tsc): node 20 loads ES modules one file at a time (resolve,
 * read, compile, link; no compile cache), and a no-op `vkit build` used to load about 110 of them.
 * esbuild joins vkit's own modules into `dist/bundle/`: an entry `start.js` (src/cli/start.ts, what
 * bin/vkit.js loads first), an entry `cli.js` (src/cli/entry.ts plus a loader of the built-in kinds' registry),
 * an entry `worker.js` (the job worker, src/jobs/worker-process.ts, started by the bundled job service),
 * and shared chunks (a module shared by several entries is one module), split where the code imports lazily (a
 * verb's handler, a rule), so what a command never runs is still never loaded. Packages stay node's,
 * but for the pure-JS ones every no-op loads (`JOINED`, D43).
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
import { build } from 'esbuild';

const PACKAGE = process.cwd();
const DIST = join(PACKAGE, 'dist');
const OUT = join(DIST, 'bundle');
/** The `cli` entry's module, made up here: tsc's entry.js and the kinds' registry. */
const ENTRY = 'vkit-cli-entry';
/** The job worker's entry (src/jobs/service.ts starts it when it runs bundled), made up here too. */
const WORKER_ENTRY = 'vkit-worker-entry';

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
await rm(OUT, { recursive: true, force: true });
const result = await build({
  entryPoints: [
    { in: join(DIST, 'src', 'cli', 'start.js'), out: 'start' },
    { in: ENTRY, out: 'cli' },
    { in: WORKER_ENTRY, out: 'worker' },
  ],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: OUT,
  chunkNames: 'chunk-[hash]',
  metafile: true,
  logLevel: 'warning',
  // Every output file lies directly in dist/bundle/, so `../` is dist/ in each of them.
  banner: { js: "const __vkitDist = new URL('../', import.meta.url);" },
  // What src/jobs/service.ts reads to start the bundle's worker entry instead of tsc's.
  define: { __VKIT_BUNDLED__: 'true' },
  plugins: [
    {
      name: 'packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('vkit-') || args.path.startsWith('node:')) return undefined;
          const name = args.path.startsWith('@')
            ? args.path.split('/').slice(0, 2).join('/')
            : args.path.split('/')[0]!;
          return JOINED.has(name) ? undefined : { path: args.path, external: true };
        });
      },
    },
    {
      name: 'cli-entry',
      setup(b) {
        b.onResolve({ filter: /^vkit-(cli|worker)-entry$/ }, (args) => ({ path: args.path, namespace: 'vkit-cli' }));
        b.onLoad({ filter: /.*/, namespace: 'vkit-cli' }, (args) => ({
          contents: (args.path === ENTRY
            ? [
                "export * from './dist/src/cli/entry.js';",
                // A chunk of its own, loaded when a config is first read (never for `--version`).
                "export const loadRegistry = () => import('./dist/rules/index.js').then((m) => m.registry);",
              ]
            : [
                "import { runWorkerProcess } from './dist/src/jobs/worker-process.js';",
                // The kinds its face hands it are the built-in ones (dist/rules/index.js, as bin/vkit.js
                // installs them): the bundle's own copy loads instead.
                'runWorkerProcess(process.argv.slice(2), {',
                "  module: new URL('rules/index.js', __vkitDist).href,",
                "  load: () => import('./dist/rules/index.js').then((m) => m.registry),",
                '});',
              ]
          ).join('\n'),
          resolveDir: PACKAGE,
          loader: 'js',
        }));
      },
    },
    {
      name: 'own-module-url',
      setup(b) {
        b.onLoad({ filter: /\.js$/ }, async (args) => {
          const text = await readFile(args.path, 'utf8');
          if (!args.path.startsWith(`${DIST}/`) || !text.includes('import.meta.url')) return undefined;
          const own = `new URL(${JSON.stringify(relative(DIST, args.path))}, __vkitDist).href`;
          return { contents: text.replaceAll('import.meta.url', own), loader: 'js' };
        });
      },
    },
  ],
});
const inputs: Record<string, [size: number, mtimeMs: number, sha256: string]> = {};
// The bundle's own files are recorded too: one edited by hand is not the code the record names (and
// what vkit keeps between processes is keyed by this record: src/config/manifest-cache.ts).
for (const input of [...Object.keys(result.metafile.inputs), ...Object.keys(result.metafile.outputs)]) {
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
const outputs = Object.keys(result.metafile.outputs).length;
console.log(`bundle-cli: ${Object.keys(inputs).length} modules -> ${outputs} files in dist/bundle/`);
