/**
 * The first thing bin/vkit.js runs, before it even chooses between the bundle and tsc's modules:
 * for a verb about to load the root's TS config that no resident build process may serve, the
 * config's thread starts booting at once. A worker thread takes ~55 ms to start here (node's own
 * modules are compiled anew in each isolate) and a no-op build waits for its answer, so every
 * millisecond it starts earlier is one the no-op saves. Only node's modules and two small ones of
 * vkit's load here; `prestart` hands the thread to the config loader (isolate.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bootConfigThread, type Booting } from '../config/thread-boot.js';
import { rootOf } from '../daemon/paths.js';

/** The verbs that open a workspace of the root at once (their first step loads its config). */
export const LOADS_CONFIG: ReadonlySet<string> = new Set(['build', 'gate', 'verify', 'watch', 'tui']);

/** A config thread booting for this command line, or undefined when it would not be used here. */
export function earlyConfigThread(argv: readonly string[]): Booting | undefined {
  if (!LOADS_CONFIG.has(argv[0] ?? '')) return undefined;
  const root = rootOf(argv);
  if (root === undefined || !existsSync(join(root, 'vkit.config.ts'))) return undefined;
  const booted = bootConfigThread(process.env);
  booted.worker.unref();
  return booted;
}
