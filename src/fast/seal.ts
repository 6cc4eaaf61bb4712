/**
 * Whether a TS config's data is a function of its own code alone (D53), so that a no-op's record
 * (fast/noop-record.ts) may stand on its modules' states instead of evaluating it again. The config
 * is bundled a second time as one script, vkit's public entry inside it, and evaluated in a thread
 * of its own (seal-thread.ts) inside a `node:vm` context where everything outside ECMAScript's
 * deterministic core is a tripwire; it is sealed when it touched none, threw nothing, and gave the
 * very data its ordinary evaluation gave this command. Only configs whose bundle imports nothing but
 * `vkit` and is imported from memory (`selfContained`) are asked; user rules are never sealed (their
 * code runs during the build). The answer is a reason when not sealed.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { importModule } from '../config/import-module.js';
import { Worker } from 'node:worker_threads';
import type { Metafile } from 'esbuild';
import { canonicalJson } from '../hash/index.js';
import type { Evaluated } from '../config/load.js';
import { limit } from '../config/thread-boot.js';

const THREAD = new URL('./seal-thread.js', import.meta.url);

export interface Sealed {
  /** Every module the sealed bundle was made from, and esbuild's package.json (absolute paths): what the data stands on. */
  inputs: string[];
}

/** Sealed (with what it stands on), or why not. */
export async function sealConfig(e: Evaluated): Promise<Sealed | string> {
  const { build } = await importModule<typeof import('esbuild')>('esbuild');
  let text: string;
  let metafile: Metafile;
  try {
    const out = await build({
      entryPoints: [e.file],
      absWorkingDir: e.root,
      bundle: true,
      platform: 'node',
      format: 'iife',
      globalName: '__vkit_sealed',
      target: 'node20',
      write: false,
      metafile: true,
      logLevel: 'silent',
      define: { 'import.meta': '__vkit_import_meta' },
      plugins: [
        {
          name: 'vkit-self-inside',
          setup(b) {
            b.onResolve({ filter: /^vkit$/ }, () => ({ path: e.selfEntry }));
          },
        },
      ],
    });
    text = out.outputFiles[0]!.text;
    metafile = out.metafile;
  } catch (error) {
    return `the config could not be bundled as one script: ${(error as Error).message.split('\n')[0]}`;
  }
  const external = Object.values(metafile.inputs).some((i) => i.imports.some((imp) => imp.external));
  if (external || /\bimport\s*\(/.test(text) || /\brequire\s*\(/.test(text))
    return 'the sealed bundle loads code at run time';
  const answer = await evaluateSealed(text);
  if ('touched' in answer) return `the config reads ${answer.touched}, which is outside its own code`;
  if ('threw' in answer) return `the sealed config threw: ${answer.threw}`;
  let same: boolean;
  try {
    same = canonicalJson(JSON.parse(answer.json)) === canonicalJson(JSON.parse(JSON.stringify(e.data ?? null)));
  } catch {
    same = false;
  }
  if (!same) return 'the sealed config gave other data than its ordinary evaluation';
  // esbuild made both bundles: another version could make another one (the bundle cache keys on it too).
  const esbuild = createRequire(import.meta.url).resolve('esbuild/package.json');
  return { inputs: [...Object.keys(metafile.inputs).map((p) => resolve(e.root, p)), esbuild] };
}

type Answer = { touched: string } | { threw: string } | { json: string };

function evaluateSealed(text: string): Promise<Answer> {
  const timeoutMs = limit('VKIT_CONFIG_TIMEOUT_S', 30) * 1000;
  return new Promise((settle) => {
    const worker = new Worker(THREAD, {
      workerData: { text, timeoutMs },
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: limit('VKIT_CONFIG_MEMORY_MB', 512) },
      env: {},
    });
    const done = (a: Answer) => {
      clearTimeout(timer);
      settle(a);
      void worker.terminate();
    };
    // Past its limit the thread is stopped, whatever it does (the vm's own limit covers most).
    const timer = setTimeout(() => done({ threw: 'the time limit' }), timeoutMs + 1000);
    worker.once('message', (m: Partial<Record<'touched' | 'threw' | 'json', unknown>>) =>
      done(
        typeof m?.touched === 'string'
          ? { touched: m.touched }
          : typeof m?.json === 'string'
            ? { json: m.json }
            : { threw: typeof m?.threw === 'string' ? m.threw : 'no answer' },
      ),
    );
    worker.once('error', (error) => done({ threw: error.message }));
    worker.once('exit', (code) => done({ threw: `the thread ended (exit code ${code})` }));
  });
}
