/**
 * Finding and loading the config: `vkit.config.ts` first, then `vkit.manifest.json`, at the root.
 * The TS file is loaded as vite loads its config: bundled by esbuild into a temp module beside it
 * (so relative imports and node_modules resolve as the user expects), imported, then deleted. Bare
 * `vkit` imports are pointed at the running vkit, so a config always gets the API it runs under.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as v from 'valibot';
import { invalid, InvalidInputError, type Issue } from '../errors.js';
import { jsonId, sha256Id } from '../hash/index.js';
import type { Rule } from './rule.js';
import { fieldPath, UserConfigSchema } from './schema.js';
import type { Manifest, UserConfig } from './types.js';
import { validateManifest } from './validate.js';

export const CONFIG_FILES = ['vkit.config.ts', 'vkit.manifest.json'] as const;

export interface LoadedConfig {
  /** Absolute path of the file the config came from. */
  file: string;
  manifest: Manifest;
  /** sha256 of the canonical manifest: the whole-policy digest recorded in receipts. */
  policyDigest: string;
  /** User rules by kind, as registered by the config. */
  rules: Map<string, Rule>;
  /** The config file and every local module it imports: what watch reloads on. */
  sources: string[];
}

export function findConfig(root: string): string | undefined {
  for (const name of CONFIG_FILES) {
    const file = join(root, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

export async function loadConfig(root: string): Promise<LoadedConfig> {
  const file = findConfig(root);
  if (!file) {
    throw invalid('ERR_CONFIG_NOT_FOUND', `No vkit.config.ts or vkit.manifest.json in ${root}`, {}, 'Run `vkit init` to create one, or pass --root.');
  }
  const shown = relative(process.cwd(), file) || file;
  if (file.endsWith('.json')) return loadManifestFile(file, shown);
  return loadTsConfig(root, file, shown);
}

async function loadManifestFile(file: string, shown: string): Promise<LoadedConfig> {
  const text = await readFile(file, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid('ERR_CONFIG_PARSE', `Invalid JSON: ${(error as Error).message}`, { file: shown, line: jsonErrorLine(text, error as Error) }, 'Fix the JSON syntax.');
  }
  const { value, issues } = validateManifest(data, shown);
  if (!value) throw new InvalidInputError('ERR_CONFIG_INVALID', withLines(issues, text));
  if (value.rules.length > 0) {
    throw invalid('ERR_CONFIG_INVALID', 'User rules need code: register them in vkit.config.ts with defineRule()', { file: shown, path: 'rules' });
  }
  return { file, manifest: value, policyDigest: jsonId(value), rules: new Map(), sources: [file] };
}

async function loadTsConfig(root: string, file: string, shown: string): Promise<LoadedConfig> {
  const { build } = await import('esbuild');
  const selfEntry = fileURLToPath(new URL('../index.js', import.meta.url));
  let bundled;
  try {
    bundled = await build({
      entryPoints: [file],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      metafile: true,
      packages: 'external',
      logLevel: 'silent',
      plugins: [
        {
          name: 'vkit-self',
          setup(b) {
            b.onResolve({ filter: /^vkit$/ }, () => ({ path: pathToFileURL(selfEntry).href, external: true }));
          },
        },
      ],
    });
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } }> }).errors?.[0];
    // esbuild names files relative to absWorkingDir (the root); messages name them relative to cwd like the rest.
    const where = first?.location ? { file: relative(process.cwd(), join(root, first.location.file)), line: first.location.line } : { file: shown };
    throw invalid('ERR_CONFIG_PARSE', `Cannot compile the config: ${first?.text ?? (error as Error).message}`, where, 'Fix the TypeScript error.');
  }
  const temp = join(dirname(file), `${basename(file)}.timestamp-${Date.now()}-${process.pid}-${Math.random().toString(16).slice(2, 8)}.mjs`);
  let exported: unknown;
  try {
    await writeFile(temp, bundled.outputFiles[0]!.contents);
    exported = (await import(pathToFileURL(temp).href)).default;
  } catch (error) {
    throw invalid('ERR_CONFIG_THREW', `Loading the config threw: ${(error as Error).message}`, { file: shown }, 'Fix the error your config module raises.');
  } finally {
    await rm(temp, { force: true });
  }
  if (typeof exported === 'function') exported = await (exported as () => unknown)();
  const sources = Object.keys(bundled.metafile!.inputs)
    .filter((p) => !p.includes('node_modules') && !p.startsWith('file:'))
    .map((p) => join(root, p))
    .sort();
  return resolveUserConfig(exported, file, shown, sources);
}

/** Turns what `defineConfig` received into the manifest, recording user rules by kind, version and source digest. */
export async function resolveUserConfig(exported: unknown, file: string, shown: string, sources: string[]): Promise<LoadedConfig> {
  if (typeof exported !== 'object' || exported === null) {
    throw invalid('ERR_CONFIG_INVALID', `Expected the config's default export to be an object from defineConfig(), got ${exported === null ? 'null' : typeof exported}`, { file: shown }, 'Write `export default defineConfig({ checks: [...] })`.');
  }
  const parsed = v.safeParse(UserConfigSchema, exported);
  if (!parsed.success) {
    throw new InvalidInputError('ERR_CONFIG_INVALID', parsed.issues.map((i) => ({ file: shown, path: fieldPath(i.path), message: i.message })));
  }
  const user = exported as UserConfig;
  const rules = new Map<string, Rule>();
  // The rule's code is somewhere in the config's own module graph; its digest covers all of it,
  // so editing any local module the config imports re-identifies every user rule.
  const sourceDigest = jsonId(await Promise.all(sources.map(async (p) => [relative(dirname(file), p), sha256Id(await readFile(p))])));
  for (const rule of user.rules ?? []) rules.set(rule.kind, rule);
  const data = {
    schema_version: 3,
    checks: parsed.output.checks,
    formal: parsed.output.formal,
    rules: (user.rules ?? []).map((r) => ({ kind: r.kind, version: r.version, source_sha256: sourceDigest })),
    actions: parsed.output.actions,
    compare: parsed.output.compare,
    acceptance: parsed.output.acceptance,
  };
  const { value, issues } = validateManifest(data, shown);
  if (!value) throw new InvalidInputError('ERR_CONFIG_INVALID', issues);
  const attrIssues: Issue[] = [];
  value.actions.forEach((a, i) => {
    const rule = rules.get(a.rule)!;
    const res = v.safeParse(rule.attrs, a.attrs);
    if (!res.success) attrIssues.push(...res.issues.map((x) => ({ file: shown, path: `actions[${i}].attrs${fieldPath(x.path) ? '.' + fieldPath(x.path) : ''}`, message: x.message })));
    else a.attrs = res.output as Record<string, unknown>;
  });
  if (attrIssues.length) throw new InvalidInputError('ERR_CONFIG_INVALID', attrIssues);
  return { file, manifest: value, policyDigest: jsonId(value), rules, sources };
}

function jsonErrorLine(text: string, error: Error): number | undefined {
  const pos = /position (\d+)/.exec(error.message);
  if (pos) return text.slice(0, Number(pos[1])).split('\n').length;
  const line = /line (\d+)/.exec(error.message);
  return line ? Number(line[1]) : undefined;
}

/** Adds the line of the first key on each issue's path in the JSON text, found by a light scan. */
function withLines(issues: Issue[], text: string): Issue[] {
  return issues.map((issue) => ({ ...issue, line: locate(text, issue.path) }));
}

function locate(text: string, path: string): number | undefined {
  // Walk keys in order; each search starts where the previous key was found. Good enough to point
  // a human at the right place; never used for anything but messages.
  let at = 0;
  for (const part of path.split(/\.|\[(\d+)\]/).filter(Boolean)) {
    if (/^\d+$/.test(part)) continue;
    const idx = text.indexOf(`"${part}"`, at);
    if (idx < 0) break;
    at = idx;
  }
  return at > 0 ? text.slice(0, at).split('\n').length : undefined;
}
