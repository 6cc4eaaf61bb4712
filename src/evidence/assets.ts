/**
 * Formal profile assets in a bundle: what the faces say, and the entry points export and replay
 * call. A capsule (capsule.ts, pure; capsule-io.ts, the engine and files) carries a formal run's
 * exact worker image (saved through dockerode, identified by id), its archives and expanded tool
 * trees, each bound by digest, under `assets/`. Registered checks, model comparisons and acceptance
 * items run host tools and have no profile asset, so for them the capsule list is always empty,
 * and the faces say so plainly. The engine module is loaded only when a capsule is involved.
 */
import type { Receipt } from '../store/receipt.js';
import type { ReadBundle } from './hostile.js';
import type { CollectedAssets } from './capsule.js';
import type { BundleManifest, Capsule } from './manifest.js';

/** Said wherever capsules are included or restored. */
const CAPSULE_NOTE =
  'capsule hashes give integrity relative to trusted state, not authentication: the restored image is the one the bundle names, not one anybody vouched for';

/** The capsules to include for a receipt without touching an engine: none (see `collectFormalAssets`). */
export function collectAssets(_receipt: Receipt, requested: boolean): { requested: boolean; capsules: Capsule[] } {
  return { requested, capsules: [] };
}

/** Whether a run's assets can be collected into a capsule: formal and model-checking runs only. */
export function hasFormalAssets(receipt: Receipt): boolean {
  return receipt.kind === 'formal-check' || receipt.kind === 'model-check';
}

/** Collects a formal run's capsule into `scratch` (the engine must hold the run's worker image). */
export async function collectFormalAssets(
  receipt: Receipt,
  scratch: string,
  env: Record<string, string | undefined> = process.env,
): Promise<CollectedAssets> {
  return (await import('./capsule-io.js')).collectCapsule(receipt, scratch, env);
}

/** What a face says about assets for a bundle. */
export function assetsNote(manifest: BundleManifest, kind: string, verb: 'include' | 'restore'): string {
  const capsules = manifest.assets.capsules;
  if (capsules.length > 0) {
    const what = capsules
      .map(
        (c) =>
          `${c.profile}: image ${c.image}, checker ${c.checker_sha256}, ${c.entries.map((e) => `${e.name} (${e.size} bytes, ${e.sha256})`).join(', ')}`,
      )
      .join('; ');
    return `${capsules.length} capsule(s) of formal profile assets (${what}); ${CAPSULE_NOTE}`;
  }
  return `no formal profile asset exists in this bundle: ${kind} actions run host tools, not a formal profile's worker image, so there is nothing to ${verb}`;
}

/**
 * Restores a checked bundle's capsules before a replay (their bytes must have been kept by the
 * reader). With no capsule there is nothing to restore; any mismatch is refused (exit 2).
 */
export async function restoreAssets(
  manifest: BundleManifest,
  read?: ReadBundle,
  scratch?: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ restored: string[] }> {
  if (manifest.assets.capsules.length === 0) return { restored: [] };
  if (!read || !scratch)
    throw new Error('restoreAssets needs the read bundle and its scratch directory when the bundle holds a capsule');
  return { restored: await (await import('./capsule-io.js')).restoreCapsules(manifest, read, scratch, env) };
}
