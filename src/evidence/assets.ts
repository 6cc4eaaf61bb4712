/**
 * Formal profile assets in a bundle: the extension point for capsules.
 *
 * A capsule (reference: "Formal evidence export --include-assets") will carry a formal profile's
 * exact worker image (saved through dockerode), its archives and its expanded tool trees, each
 * bound by digest, under `assets/` in the bundle, with separate 16 GiB archive and total limits and
 * 100,000 entries per tool tree; `--restore-assets` will load them into the engine before the fresh
 * check. Registered checks, model comparisons and acceptance items run host tools and have no
 * profile asset, so for them a capsule list is always empty, and the faces say so plainly.
 *
 * When formal components land: `collectAssets` returns their capsules (and `planExport` adds the
 * capsule entries), `checkBundle` admits the `assets/` entries a capsule names, and `restoreAssets`
 * loads them. Until then a bundle that names a capsule is refused rather than half understood.
 */
import type { Receipt } from '../store/receipt.js';
import { refuse } from './hostile.js';
import type { BundleManifest, Capsule } from './manifest.js';

/** Capsule limits from the reference, for when capsules exist. */
export const CAPSULE_LIMITS = { archiveBytes: 16 * 1024 ** 3, totalBytes: 16 * 1024 ** 3, entriesPerToolTree: 100_000 } as const;

/** The capsules to include for a receipt: none for every kind this vkit exports today. */
export function collectAssets(_receipt: Receipt, requested: boolean): { requested: boolean; capsules: Capsule[] } {
  return { requested, capsules: [] };
}

/** What a face says about assets for a bundle. */
export function assetsNote(manifest: BundleManifest, kind: string, verb: 'include' | 'restore'): string {
  if (manifest.assets.capsules.length > 0) return `${manifest.assets.capsules.length} capsule(s) of formal profile assets`;
  return `no formal profile asset exists in this bundle: ${kind} actions run host tools, not a formal profile's worker image, so there is nothing to ${verb}`;
}

/**
 * Restores a bundle's capsules before a replay. With no capsule there is nothing to restore; a
 * capsule this vkit cannot restore yet is refused (exit 2) rather than ignored.
 */
export function restoreAssets(manifest: BundleManifest): { restored: string[] } {
  const first = manifest.assets.capsules[0];
  if (first) throw refuse(first.entries[0] ?? 'assets/', `a capsule for profile \`${first.profile}\`: restoring formal profile assets is not supported by this vkit yet`);
  return { restored: [] };
}
