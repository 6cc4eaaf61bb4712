/**
 * Runs a classic script of vkit's bundle (`dist/bundle/cli.cjs`, `worker.cjs`; scripts/bundle-cli.ts)
 * with V8's code cache (D56). Node 20 compiles every ES module anew in every process (it has no
 * compile cache before node 22): ~100 ms of a fresh `vkit build` at N = 1,000 went to loading the
 * CLI's modules, and a job's worker paid its own share. A script compiled through `node:vm` can be
 * handed the code V8 compiled in an earlier run, lazily compiled functions included.
 *
 * Which cache is used: V8 itself checks only the source's length and its own version and flags, so
 * the cache names the source it was made for: its first line is the source's SHA-256, and a cache
 * made for other bytes is never handed to V8. One V8 rejects (another node) is compiled around.
 * Either way the run that could not use a cache writes one at its exit (what it compiled by then),
 * through a temp file and a rename; a cache that cannot be written (a read-only install) is simply
 * not kept.
 *
 * The script never calls `import()` itself: node 20 loses a script's dynamic-import callback when
 * its code comes from the cache. Its one way to import (config/import-module.ts, replaced in the
 * script by the bundler) calls `hostImport`, a parameter of the script's wrapper, which imports
 * from this module.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

/** How the script's code came to be: from the cache, compiled without one, or compiled because V8 refused the cache. */
export type ScriptLoad = 'cached' | 'compiled' | 'rejected';

export interface CachedScript {
  exports: Record<string, unknown>;
  load: ScriptLoad;
}

/** The parameters of the script's wrapper: CommonJS's, and the import the script's modules call. */
const WRAPPER_PARAMS = 'exports, require, module, __filename, __dirname, __vkitImport';

const hostImport = (specifier: string): Promise<unknown> => import(specifier);

/** Runs `file` (CommonJS) and returns its exports; throws what the script throws. */
export function runCachedScript(file: string): CachedScript {
  const source = readFileSync(file, 'utf8');
  const cacheFile = `${file}.cache`;
  const header = `${createHash('sha256').update(source).digest('hex')}\n`;
  const cachedData = cacheFor(cacheFile, header);
  const script = new vm.Script(`(function (${WRAPPER_PARAMS}) {${source}\n})`, { filename: file, cachedData });
  const load: ScriptLoad = cachedData === undefined ? 'compiled' : script.cachedDataRejected ? 'rejected' : 'cached';
  if (load !== 'cached') process.once('exit', () => keepCache(script, cacheFile, header));
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), hostImport);
  return { exports: module.exports, load };
}

/** The cache's data when its first line names these bytes, else undefined. */
function cacheFor(cacheFile: string, header: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  return bytes.subarray(0, header.length).toString('latin1') === header ? bytes.subarray(header.length) : undefined;
}

/** Writes what V8 compiled so far, named for these bytes; a failure loses nothing but the next run's time. */
function keepCache(script: vm.Script, cacheFile: string, header: string): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([Buffer.from(header, 'latin1'), script.createCachedData()]));
    renameSync(temp, cacheFile);
  } catch {
    rmSync(temp, { force: true });
  }
}
