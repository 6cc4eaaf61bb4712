/**
 * The two esbuild passes over a TS config: the bundle that runs (the running vkit for bare `vkit`
 * imports, packages left to node) and, when user rules may live in linked packages, the local
 * module graph their digest covers.
 */
import { isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { invalid, InvalidInputError } from '../errors.js';
import { importModule } from './import-module.js';
import type { CompiledConfig, KeptConfigs } from './kept.js';
import { describeThrown } from './plain.js';

/**
 * The config bundled by esbuild (the running vkit for bare `vkit` imports, packages left to node),
 * or the bundle `kept` from an earlier load when nothing it was made from changed (kept.ts).
 * esbuild's own warnings that vkit treats as errors are raised here, cached or not.
 */
export async function compileConfig(
  root: string,
  file: string,
  shown: string,
  selfEntry: string,
  kept: KeptConfigs | undefined,
): Promise<CompiledConfig> {
  const self = pathToFileURL(selfEntry).href;
  let compiled = kept?.bundle(root, file, self);
  if (!compiled) {
    const since = Date.now();
    const { build } = await importModule<typeof import('esbuild')>('esbuild');
    let bundled;
    try {
      bundled = await build({
        ...bundleOptions(root, file),
        packages: 'external',
        plugins: [
          {
            name: 'vkit-self',
            setup(b) {
              b.onResolve({ filter: /^vkit$/ }, () => ({ path: self, external: true }));
            },
          },
        ],
      });
    } catch (error) {
      const first = (
        error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } }> }
      ).errors?.[0];
      // esbuild names files relative to absWorkingDir (the root); messages name them relative to cwd like the rest.
      const where = first?.location
        ? { file: relative(process.cwd(), join(root, first.location.file)), line: first.location.line }
        : { file: shown };
      throw invalid(
        'ERR_CONFIG_PARSE',
        `Cannot compile the config: ${first?.text ?? (error as Error).message}`,
        where,
        'Fix the TypeScript error.',
      );
    }
    compiled = {
      text: bundled.outputFiles[0]!.text,
      metafile: bundled.metafile,
      warnings: bundled.warnings.map((w) => ({
        id: w.id,
        text: w.text,
        location: w.location ? { file: w.location.file, line: w.location.line } : null,
      })),
    };
    // Bare imports resolve through node_modules and linked workspaces, which no entry tracks.
    if (kept && !importsPackages(compiled.metafile)) kept.keepBundle(root, file, self, compiled, since);
  }
  // An object literal that names a key twice keeps the last value: a second `checks` would silently
  // replace the list a reader sees first. esbuild notices; vkit refuses it (in the config's own modules).
  const repeated = compiled.warnings.filter(
    (w) => w.id === 'duplicate-object-key' && w.location && !w.location.file.split(/[\\/]/).includes('node_modules'),
  );
  if (repeated.length) {
    throw new InvalidInputError(
      'ERR_CONFIG_INVALID',
      repeated.map((w) => ({
        file: relative(process.cwd(), join(root, w.location!.file)),
        path: '',
        line: w.location!.line,
        message: `${w.text}: only the last one would count; remove the other`,
      })),
    );
  }
  return compiled;
}

/** Whether the bundle imports a package at run time (a bare specifier that is not a Node builtin or vkit). */
export function importsPackages(meta: Metafile): boolean {
  return Object.values(meta.inputs).some((i) =>
    i.imports.some(
      (imp) => imp.external && !isBuiltin(imp.path) && !imp.path.startsWith('file:') && !/^[./]/.test(imp.path),
    ),
  );
}

/** What both esbuild passes over a TS config share: one in-memory ESM bundle for node 20, with its metafile. */
function bundleOptions(root: string, file: string) {
  return {
    entryPoints: [file],
    absWorkingDir: root,
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: 'node20',
    write: false as const,
    metafile: true as const,
    logLevel: 'silent' as const,
  };
}

export interface LocalGraph {
  /** Every module outside node_modules, root-relative as esbuild names them. */
  inputs: string[];
  /** Resolved entry files of the installed packages it imports by name. */
  installed: string[];
  /** Bare imports esbuild could not resolve (node may still load something for them). */
  unresolved: number;
}

const RESOLVING = Symbol('vkit-resolving');

/**
 * The config's local module graph for the rule digest: a bundle (never run) that takes in every
 * module outside `node_modules` (its own imports and linked workspace packages, followed through
 * their symlinks), leaving installed packages external. A linked package that cannot be bundled
 * cannot be identified: a config error, never a rule digest that misses code it runs.
 */
export async function localModuleGraph(
  build: typeof import('esbuild').build,
  root: string,
  file: string,
  shown: string,
  selfEntry: string,
): Promise<LocalGraph> {
  const installed = new Set<string>();
  let unresolved = 0;
  try {
    const result = await build({
      ...bundleOptions(root, file),
      plugins: [
        {
          name: 'vkit-local-graph',
          setup(b) {
            b.onResolve({ filter: /^vkit$/ }, () => ({ path: pathToFileURL(selfEntry).href, external: true }));
            b.onResolve({ filter: /^[^./]/ }, async (args) => {
              if (args.pluginData === RESOLVING || isBuiltin(args.path)) return undefined;
              const r = await b.resolve(args.path, {
                kind: args.kind,
                resolveDir: args.resolveDir,
                importer: args.importer,
                pluginData: RESOLVING,
              });
              const local =
                r.errors.length === 0 &&
                !r.external &&
                r.namespace === 'file' &&
                !r.path.split(/[\\/]/).includes('node_modules');
              if (!local) {
                if (r.errors.length === 0 && r.namespace === 'file' && r.path) installed.add(r.path);
                else unresolved++;
              }
              return local ? { path: r.path } : { path: args.path, external: true };
            });
          },
        },
      ],
    });
    return { inputs: Object.keys(result.metafile.inputs), installed: [...installed], unresolved };
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } }> })
      .errors?.[0];
    const where = first?.location
      ? { file: relative(process.cwd(), join(root, first.location.file)), line: first.location.line }
      : { file: shown };
    throw invalid(
      'ERR_CONFIG_PARSE',
      `Cannot read the modules of a local package the config imports (a user rule's code must be identified): ${first?.text ?? describeThrown(error)}`,
      where,
      'Make the linked package bundleable by esbuild, or import the rule from a local module.',
    );
  }
}

/**
 * Whether the ordinary bundle runs the same from memory as from a file beside the config: it
 * imports nothing at run time but vkit's entry (by absolute URL), never `import.meta`, and loads no
 * code dynamically (the test is on the bundle's text, which esbuild printed).
 */
export function selfContained(text: string, metafile: Metafile, selfUrl: string): boolean {
  const imports = Object.values(metafile.inputs).flatMap((i) => i.imports);
  return (
    imports.every((imp) => !imp.external || imp.path === selfUrl) &&
    !/\bimport\s*\.\s*meta\b/.test(text) &&
    !/\bimport\s*\(/.test(text) &&
    !/\brequire\s*\(/.test(text)
  );
}
