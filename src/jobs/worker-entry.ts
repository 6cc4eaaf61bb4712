/**
 * Which file a detached worker process runs (`service.ts` starts workers, `standby.ts` warm ones).
 */
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
