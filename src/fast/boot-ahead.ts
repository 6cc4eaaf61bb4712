/**
 * Work started before the CLI's modules load, for a verb about to open the root's workspace that
 * no resident build process serves: the TS config's thread starts booting and the root's git
 * listing starts, so both overlap the loading (a no-op build waits for them). Only node's modules
 * and a few small ones of vkit's load here; hand-over.ts gives both to the CLI.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startListing, type StartedListing } from '../capture/listing.js';
import { bootConfigThread, type Booting } from '../config/thread-boot.js';
import { rootOf } from '../daemon/paths.js';

/** The verbs that open a workspace of the root at once (their first step loads its config). */
export const LOADS_CONFIG: ReadonlySet<string> = new Set(['build', 'gate', 'verify', 'watch', 'tui']);

/** A config thread booting for this command line, or undefined when it would not be used here. */
export function configThreadAhead(argv: readonly string[]): Booting | undefined {
  if (!LOADS_CONFIG.has(argv[0] ?? '')) return undefined;
  const root = rootOf(argv);
  if (root === undefined || !existsSync(join(root, 'vkit.config.ts'))) return undefined;
  const booted = bootConfigThread(process.env);
  booted.worker.unref();
  return booted;
}

/**
 * The git listing of the root a verb is about to open, started now: git runs while the CLI's code
 * loads, and hand-over.ts hands it over. Undefined when the verb opens no workspace of its root
 * (the protected gate opens materialised trees).
 */
export function listingAhead(argv: readonly string[]): StartedListing | undefined {
  if (!LOADS_CONFIG.has(argv[0] ?? '') || argv.includes('--protected')) return undefined;
  const root = listedRoot(argv);
  return root === undefined ? undefined : startListing(root);
}

/**
 * The root a listing ahead is for: the real directory the command line names, as the workspace
 * opens it (service/root.ts: a link is its target). None for what is no directory, which the
 * command itself reports (git cannot even start in it).
 */
export function listedRoot(argv: readonly string[]): string | undefined {
  const root = rootOf(argv);
  if (root === undefined) return undefined;
  try {
    const real = realpathSync(root);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}
