/**
 * Work the CLI starts before it loads its own modules, for a verb about to open the root's
 * workspace: the git processes listing the tree start while the process is small (each `spawn`
 * costs more in a bigger one) and run while the main thread imports the verb's modules
 * (capture/listing.ts), and for a TS config the config thread boots on another core (isolate.ts,
 * prestartConfigThread; bin/vkit.js may have started it even earlier, boot-ahead.ts). Guesses
 * that cost little when wrong: a listing nobody takes is dropped, an unused thread never keeps the
 * process alive.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listAhead, type StartedListing } from '../capture/listing.js';
import { prestartConfigThread } from '../config/isolate.js';
import type { Booting } from '../config/thread-boot.js';
import { rootOf } from '../daemon/paths.js';
import { LOADS_CONFIG, listedRoot } from './boot-ahead.js';

export function handOver(argv: readonly string[], booted?: Booting, listed?: StartedListing): void {
  if (!LOADS_CONFIG.has(argv[0] ?? '')) return;
  const root = rootOf(argv);
  if (root === undefined) return;
  // The protected gate opens workspaces of materialised trees, never the root's own.
  const listedAt = listedRoot(argv);
  if (!argv.includes('--protected') && listedAt !== undefined) listAhead(listedAt, listed);
  if (booted || existsSync(join(root, 'vkit.config.ts'))) prestartConfigThread(process.env, booted);
}
