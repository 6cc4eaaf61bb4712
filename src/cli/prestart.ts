/**
 * Work the CLI starts before it loads its own modules: for a verb that is about to load a TS config,
 * the config thread boots on another core while the main thread imports the verb's ~100 modules
 * (isolate.ts, prestartConfigThread). A guess that costs nothing when wrong: an unused thread never
 * keeps the process alive, and any config load may take it. Imports only what it needs, so the
 * thread starts a few milliseconds after node does.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prestartConfigThread } from '../config/isolate.js';

/** The verbs that open a workspace of the root at once (their first step loads its config). */
const LOADS_CONFIG = new Set(['build', 'gate', 'verify', 'watch', 'tui']);

export function prestart(argv: readonly string[]): void {
  if (!LOADS_CONFIG.has(argv[0] ?? '')) return;
  // The root as the verb will read it: `--root DIR`, `--root=DIR`, or the working directory.
  let root = '.';
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') break;
    if (arg === '--root' && argv[i + 1] !== undefined) root = argv[i + 1]!;
    else if (arg.startsWith('--root=')) root = arg.slice('--root='.length);
  }
  if (existsSync(join(resolve(root), 'vkit.config.ts'))) prestartConfigThread();
}
