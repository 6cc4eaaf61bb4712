/**
 * The compiled TS config kept between processes, so a config whose bytes and imports have not
 * changed is not bundled again (esbuild's start and build are most of a small project's no-op).
 * Only the bundle is kept, never what evaluating it gave: the config's code still runs on every
 * load, in its thread, since it may read the environment or the tree.
 *
 * An entry stands only while everything esbuild read to make it is as it was:
 * - every module of the bundle (the metafile's inputs), by content digest;
 * - the listing of each module's directory (names, types, link targets): a relative import resolves
 *   to the first of several candidates, and a file added beside an importer or in an imported
 *   directory could win (`./lib.ts` before `./lib/index.ts`); every importer is itself a module;
 * - `package.json`, `tsconfig.json` and `jsconfig.json` in each module's directory and every
 *   ancestor up to the file system's root, present (by digest) or absent (esbuild reads them for
 *   module format, paths and JSX settings).
 * Not kept at all (rebuilt every time): a config that imports packages (bare imports are resolved
 * through node_modules and linked workspaces, config/reload-guard.ts watches those) or whose tsconfig
 * chain uses `extends` (a file anywhere). The key names the config file, the running vkit and the
 * esbuild version. An entry that cannot be read or parsed is a miss and is written again.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { Metafile } from 'esbuild';
import type { CompiledConfig } from '../config/kept.js';
import { canonicalJson, hexOf, sha256Id, type Sha256Id } from '../hash/index.js';

interface Entry extends CompiledConfig {
  schema: 'vkit.config-bundle/1';
  key: string;
  modules: Record<string, string>;
  dirs: Record<string, string>;
  aux: Record<string, string>;
}

const AUX = ['package.json', 'tsconfig.json', 'jsconfig.json'];
/** File systems with coarse timestamps may date a write up to this much before it happened. */
const COARSE_MS = 2000;
/** vkit's own temp modules beside the config (load.ts): never part of what resolution sees. */
const OWN_TEMP = /\.timestamp-\d+-\d+-[0-9a-f]+\.mjs$/;

let esbuildVersion: string | undefined;
function esbuildId(): string {
  if (esbuildVersion === undefined) {
    const pkg = createRequire(import.meta.url).resolve('esbuild/package.json');
    esbuildVersion = `${pkg}@${(JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version}`;
  }
  return esbuildVersion;
}

/** The entry's key: the config file, the vkit that loads it and the esbuild that would bundle it. */
function keyOf(root: string, file: string, self: string): string {
  return sha256Id(canonicalJson({ root, file, self, esbuild: esbuildId() }));
}

const digest = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

function fileDigest(path: string): string {
  try {
    return digest(readFileSync(path));
  } catch {
    return 'missing';
  }
}

function listingDigest(dir: string): string {
  try {
    const entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !OWN_TEMP.test(e.name))
      .map((e) => {
        const type = e.isSymbolicLink() ? `link:${readlinkSync(join(dir, e.name))}` : e.isDirectory() ? 'dir' : 'file';
        return `${e.name}\0${type}`;
      })
      .sort();
    return digest(entries.join('\n'));
  } catch {
    return 'missing';
  }
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) return out;
  }
}

/**
 * Modified at or after `since`, or unreadable: not to be trusted yet. A timestamp without a
 * fraction of a second is taken to come from a coarse file system, which may date a write up to
 * two seconds early: then anything within two seconds before `since` is racy too.
 */
function racy(path: string, since: number): boolean {
  try {
    const ns = statSync(path, { bigint: true }).mtimeNs;
    const coarse = ns % 1_000_000_000n === 0n;
    return Number(ns / 1_000_000n) >= since - (coarse ? COARSE_MS : 0);
  } catch {
    return true;
  }
}

/**
 * Everything the entry stands on, as it is now; undefined when this config is not kept. The bundle
 * was made from the bytes esbuild read during the build, and the snapshot is taken after it: a file
 * or directory changed since the build started (by its mtime) could differ between the two, so such
 * a bundle is not kept (the next load bundles again and keeps that one).
 */
function snapshot(
  root: string,
  metafile: Metafile,
  since: number,
): Pick<Entry, 'modules' | 'dirs' | 'aux'> | undefined {
  const modules: Record<string, string> = {};
  const dirs: Record<string, string> = {};
  const aux: Record<string, string> = {};
  for (const input of Object.keys(metafile.inputs)) {
    if (input.startsWith('file:') || input.split(/[\\/]/).includes('node_modules')) return undefined;
    const path = resolve(root, input);
    if (racy(path, since) || racy(dirname(path), since)) return undefined;
    modules[input] = fileDigest(path);
    dirs[dirname(path)] ??= listingDigest(dirname(path));
    for (const d of ancestors(dirname(path)))
      for (const name of AUX) {
        const f = join(d, name);
        if (f in aux) continue;
        aux[f] = fileDigest(f);
        if (aux[f] === 'missing') continue;
        if (racy(f, since)) return undefined;
        if (name !== 'package.json' && /"extends"/.test(readFileSync(f, 'utf8'))) return undefined;
      }
  }
  return { modules, dirs, aux };
}

function entryFile(dir: string, key: string): string {
  return join(dir, `${hexOf(key as Sha256Id)}.json`);
}

/** The kept bundle of `file`, when every file and listing it was made from is as it was. */
export function readCompiled(dir: string, root: string, file: string, self: string): CompiledConfig | undefined {
  const key = keyOf(root, file, self);
  const path = entryFile(dir, key);
  if (!existsSync(path)) return undefined;
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(path, 'utf8')) as Entry;
  } catch {
    return undefined;
  }
  if (entry?.schema !== 'vkit.config-bundle/1' || entry.key !== key) return undefined;
  for (const [input, want] of Object.entries(entry.modules ?? {}))
    if (fileDigest(resolve(root, input)) !== want) return undefined;
  for (const [d, want] of Object.entries(entry.dirs ?? {})) if (listingDigest(d) !== want) return undefined;
  for (const [f, want] of Object.entries(entry.aux ?? {})) if (fileDigest(f) !== want) return undefined;
  if (typeof entry.text !== 'string' || typeof entry.metafile !== 'object' || !Array.isArray(entry.warnings))
    return undefined;
  return { text: entry.text, metafile: entry.metafile, warnings: entry.warnings };
}

/**
 * Keeps a fresh bundle, made by a build that started at `since` (epoch ms), for the next load.
 * Called as soon as the build returns, before anything is written beside the config.
 */
export function writeCompiled(
  dir: string,
  root: string,
  file: string,
  self: string,
  compiled: CompiledConfig,
  since: number,
): void {
  const basis = snapshot(root, compiled.metafile, since);
  if (!basis) return;
  const key = keyOf(root, file, self);
  const entry: Entry = { schema: 'vkit.config-bundle/1', key, ...basis, ...compiled };
  try {
    mkdirSync(dir, { recursive: true });
    const path = entryFile(dir, key);
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(entry));
    renameSync(temp, path);
  } catch {
    // A store that cannot take the entry only costs the next load a bundle.
  }
}
