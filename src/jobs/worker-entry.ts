/**
 * Which file a detached worker process runs (`service.ts` starts workers, `standby.ts` warm ones).
 */
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Set by esbuild in the bundled CLI (scripts/bundle-cli.ts), never declared anywhere else. */
declare const __VKIT_BUNDLED__: boolean | undefined;
/**
 * The worker's entry: the bundle's own when this process runs the bundle (bin/vkit.js found it
 * current a moment ago, and the worker loads a few files instead of tsc's ~100), else tsc's.
 */
export const WORKER_MAIN = fileURLToPath(
  typeof __VKIT_BUNDLED__ === 'boolean' && __VKIT_BUNDLED__
    ? new URL('../../bundle/worker.js', import.meta.url)
    : new URL('./worker-main.js', import.meta.url),
);

/** A queue's worker log in the store (`workers/<queue>.log`), opened for appending: what its workers write on stderr. */
export function openWorkerLog(storeDir: string, queue: string): number {
  mkdirSync(join(storeDir, 'workers'), { recursive: true });
  return openSync(join(storeDir, 'workers', `${queue}.log`), 'a');
}
