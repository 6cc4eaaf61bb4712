/**
 * Capsules (pure): the formal profile assets of one run, carried digest-bound in a bundle under
 * `assets/`. A capsule names the exact worker image by id (never a tag: a tag can move, and the
 * reference says a matching tag is insufficient), the tool-tree digest the lock accepted (the
 * checker digest the run was judged against), the tool paths that digest covers, and each entry
 * with its role, size and sha256. Its own `sha256` is the digest of all of that, so a manifest
 * whose capsule was edited without recomputing it is refused.
 *
 * Limits (reference): every archive (the saved image tar, an official release archive) at most
 * 16 GiB, every capsule entry together at most 16 GiB, at most 100,000 entries per tool tree. They
 * are judged here from the manifest alone, before a byte of the entry is read.
 */
import { jsonId } from '../hash/index.js';
import type { BundleEntry, BundleManifest, Capsule } from './manifest.js';
import { badName, refuse } from './refusal.js';
import type { TarSource } from './tar.js';

/** Capsule limits from the reference. */
export const CAPSULE_LIMITS = {
  archiveBytes: 16 * 1024 ** 3,
  totalBytes: 16 * 1024 ** 3,
  entriesPerToolTree: 100_000,
} as const;
export type CapsuleLimits = { archiveBytes: number; totalBytes: number; entriesPerToolTree: number };

/** Capsules gathered by `collectCapsule` (src/evidence/capsule-io.ts), with the files holding their entries. */
export interface CollectedAssets {
  capsules: Capsule[];
  sources: TarSource[];
}

/** Where a capsule's entries live in a bundle. */
const ASSETS_PREFIX = 'assets/';
export const imageEntryName = (profile: string) => `${ASSETS_PREFIX}${profile}/image.tar`;
export const archiveEntryName = (profile: string) => `${ASSETS_PREFIX}${profile}/archive.bin`;
export const treeEntryName = (profile: string) => `${ASSETS_PREFIX}${profile}/tool-tree.tar`;

/** The digest binding everything a capsule says except the digest itself. */
export function capsuleDigest(c: Omit<Capsule, 'sha256'>): string {
  const { profile, kind, image, image_ref, checker_sha256, tool_paths, entries } = c;
  return jsonId({ profile, kind, image, image_ref, checker_sha256, tool_paths, entries });
}

export function sealCapsule(c: Omit<Capsule, 'sha256'>): Capsule {
  return { ...c, sha256: capsuleDigest(c) };
}

/**
 * Why a capsule entry list breaks the limits, naming the entry, or undefined. Pure, so the limits
 * can be tested with sizes no test could afford to write.
 */
export function limitProblem(
  entries: readonly Capsule['entries'][number][],
  limits: CapsuleLimits = CAPSULE_LIMITS,
): { entry: string; message: string } | undefined {
  let total = 0;
  for (const e of entries) {
    if ((e.role === 'image' || e.role === 'archive') && e.size > limits.archiveBytes) {
      return {
        entry: e.name,
        message: `an archive of ${e.size} bytes exceeds the capsule archive limit of ${limits.archiveBytes} bytes`,
      };
    }
    if (e.role === 'tool-tree' && (e.files ?? 0) > limits.entriesPerToolTree) {
      return {
        entry: e.name,
        message: `a tool tree of ${e.files} entries exceeds the limit of ${limits.entriesPerToolTree} entries per tool tree`,
      };
    }
    total += e.size;
    if (total > limits.totalBytes)
      return {
        entry: e.name,
        message: `the capsule's entries reach ${total} bytes, over the capsule total limit of ${limits.totalBytes} bytes`,
      };
  }
  return undefined;
}

/** Names of every bundle entry some capsule carries. */
export function capsuleEntryNames(manifest: BundleManifest): Set<string> {
  return new Set(manifest.assets.capsules.flatMap((c) => c.entries.map((e) => e.name)));
}

/**
 * Checks a manifest's capsules against themselves and the bundle listing (pure): the digest, entry
 * names under `assets/`, each entry listed in the manifest with the same size and sha256, exactly
 * one image entry, and the limits. Throws a refusal (exit 2) naming the entry at fault.
 */
export function checkCapsules(manifest: BundleManifest, limits: CapsuleLimits = CAPSULE_LIMITS): void {
  const seen = new Set<string>();
  for (const c of manifest.assets.capsules) {
    const first = c.entries[0]?.name ?? `${ASSETS_PREFIX}${c.profile}`;
    if (capsuleDigest(c) !== c.sha256)
      throw refuse(first, `the capsule for \`${c.profile}\` does not match its own digest ${c.sha256} (it was edited)`);
    if (c.entries.filter((e) => e.role === 'image').length !== 1)
      throw refuse(first, `the capsule for \`${c.profile}\` must carry exactly one worker image`);
    for (const e of c.entries) {
      const bad = badName(e.name);
      if (bad) throw refuse(e.name, bad);
      if (!e.name.startsWith(ASSETS_PREFIX)) throw refuse(e.name, `a capsule entry must live under ${ASSETS_PREFIX}`);
      if (seen.has(e.name)) throw refuse(e.name, 'a duplicate capsule entry');
      seen.add(e.name);
      const listed: BundleEntry | undefined = manifest.entries.find((x) => x.name === e.name);
      if (!listed) throw refuse(e.name, 'the capsule names it but the manifest does not list it');
      if (listed.size !== e.size || listed.sha256 !== e.sha256)
        throw refuse(
          e.name,
          `the capsule records ${e.size} bytes ${e.sha256}, the manifest lists ${listed.size} bytes ${listed.sha256}`,
        );
    }
    const over = limitProblem(c.entries, limits);
    if (over) throw refuse(over.entry, over.message);
  }
  const stray = manifest.entries.find((e) => e.name.startsWith(ASSETS_PREFIX) && !seen.has(e.name));
  if (stray) throw refuse(stray.name, 'no capsule names it');
}
