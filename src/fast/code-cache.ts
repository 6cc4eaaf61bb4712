/**
 * Runs a classic script of vkit's bundle (`dist/bundle/cli.cjs`, `worker.cjs`) with V8's code cache
 * (D56): node 20 compiles every ES module anew in every process, and a script compiled through
 * `node:vm` can be handed the code V8 compiled in an earlier run.
 *
 * V8 checks only the source's length and its own version and flags, so the cache names the source
 * it was made for in its first line and a cache made for other bytes is never handed to V8: a
 * script settled past the racy window is named by its stat (a later write moves its ctime past the
 * name's), a younger one by its SHA-256. A cache V8 rejects is compiled around; the run that could
 * not use one writes one at its exit (temp file and rename; a read-only install keeps none).
 *
 * The script never calls `import()` itself (node 20 loses a cached script's dynamic-import
 * callback): its one way to import (config/import-module.ts, replaced by the bundler) calls
 * `hostImport`, a parameter of the script's wrapper, which imports from this module.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** A file changed less than this before it was statted may change again within the same timestamps. */
const RACY_WINDOW_NS = 2_000_000_000n;

/** Runs `file` (CommonJS) and returns its exports; throws what the script throws. */
export function runCachedScript(file: string): CachedScript {
  const now = BigInt(Date.now()) * 1_000_000n;
  // Statted before it is read: a write after this moment gives it a ctime this name does not hold.
  const st = statSync(file, { bigint: true });
  const bytes = readFileSync(file);
  const settled = now - st.mtimeNs > RACY_WINDOW_NS && now - st.ctimeNs > RACY_WINDOW_NS;
  const statName = `stat ${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}\n`;
  let sha: string | undefined; // hashed at most once, and only when a name needs it
  const shaName = () => (sha ??= `sha256 ${createHash('sha256').update(bytes).digest('hex')}\n`);
  const cacheFile = `${file}.cache`;
  const found = cacheFor(cacheFile, settled ? statName : undefined, shaName);
  const script = new vm.Script(`(function (${WRAPPER_PARAMS}) {${bytes.toString('utf8')}\n})`, {
    filename: file,
    cachedData: found?.data,
  });
  const load: ScriptLoad = found === undefined ? 'compiled' : script.cachedDataRejected ? 'rejected' : 'cached';
  // Kept anew when none was used, and renamed by its stat once the script has settled.
  const name = settled ? statName : (found?.name ?? shaName());
  if (load !== 'cached' || found?.name !== name) process.once('exit', () => keepCache(script, cacheFile, name));
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), hostImport);
  return { exports: module.exports, load };
}

/**
 * The cache's data when its first line names these bytes: `statName` (given only for a settled
 * script) as it is, or a SHA-256 name checked by hashing the script; else undefined.
 */
function cacheFor(
  cacheFile: string,
  statName: string | undefined,
  shaName: () => string,
): { data: Buffer; name: string } | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const end = bytes.indexOf(0x0a);
  if (end < 0) return undefined;
  const name = bytes.subarray(0, end + 1).toString('latin1');
  const names = name === statName || (name.startsWith('sha256 ') && name === shaName());
  return names ? { data: bytes.subarray(end + 1), name } : undefined;
}

/** Writes what V8 compiled so far, named for these bytes; a failure loses nothing but the next run's time. */
function keepCache(script: vm.Script, cacheFile: string, name: string): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([Buffer.from(name, 'latin1'), script.createCachedData()]));
    renameSync(temp, cacheFile);
  } catch {
    rmSync(temp, { force: true });
  }
}
