/**
 * A `vkit.manifest.json` validated once, kept between processes: a one-off process that reads the
 * same bytes again takes the manifest and its policy digest from the store instead of parsing
 * strictly, validating and digesting every entry again.
 *
 * Validation is a pure function of the text, the name errors show and the kind registry (validate.ts;
 * the resident process already memoises it, D36), so an entry stands exactly while those are as
 * they were:
 * - the text, by digest;
 * - the code that validated it: the bundled CLI's own inputs (their sizes, times and digests, as
 *   `dist/bundle/inputs.json` records them: vkit's modules, the built-in kinds and the packages
 *   joined into the bundle) and node's version. Only `bin/vkit.js` running the current bundle
 *   has that identity (kept-configs.ts is given it); any other process keeps and reads nothing.
 *
 * One slot per config file and code identity, so an edited manifest replaces its entry instead of
 * adding one. The manifest is kept as JSON text with the digest of that text, so a damaged or
 * truncated entry is a miss (and is written again), never a different manifest. Kept in the store,
 * so writing it is trusted like writing receipts or the kept config bundles (D40).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hexOf, isSha256Id, sha256Id, type Sha256Id } from '../hash/index.js';
import { manifestJson } from '../config/manifest-file.js';
import type { Manifest } from '../config/types.js';

const SCHEMA = 'vkit.config-manifest/1';

interface Entry {
  schema: typeof SCHEMA;
  file: string;
  shown: string;
  code: string;
  text_sha256: string;
  policy_sha256: string;
  manifest_sha256: string;
  /** `JSON.stringify` of the validated manifest: its member order is the one validation produced. */
  manifest: string;
}

const slotOf = (dir: string, file: string, code: string) => join(dir, `${hexOf(sha256Id(`${file}\0${code}`))}.json`);

/** The manifest validated from exactly this text, with its policy digest, or undefined. */
export function readKeptManifest(
  dir: string | undefined,
  code: string | undefined,
  file: string,
  shown: string,
  text: string,
): { manifest: Manifest; policyDigest: string } | undefined {
  if (!dir || !code) return undefined;
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(slotOf(dir, file, code), 'utf8')) as Entry;
  } catch {
    return undefined;
  }
  if (
    entry?.schema !== SCHEMA ||
    entry.file !== file ||
    entry.shown !== shown ||
    entry.code !== code ||
    entry.text_sha256 !== sha256Id(text) ||
    typeof entry.manifest !== 'string' ||
    entry.manifest_sha256 !== sha256Id(entry.manifest) ||
    !isSha256Id(entry.policy_sha256)
  )
    return undefined;
  try {
    return { manifest: JSON.parse(entry.manifest) as Manifest, policyDigest: entry.policy_sha256 };
  } catch {
    return undefined;
  }
}

/** Keeps a manifest validated from `text` (best effort: a store that cannot be written keeps nothing). */
export function keepManifest(
  dir: string | undefined,
  code: string | undefined,
  file: string,
  shown: string,
  text: string,
  manifest: Manifest,
  policyDigest: Sha256Id,
): void {
  if (!dir || !code) return;
  const json = manifestJson(manifest);
  if (json === undefined) return;
  const entry: Entry = {
    schema: SCHEMA,
    file,
    shown,
    code,
    text_sha256: sha256Id(text),
    policy_sha256: policyDigest,
    manifest_sha256: sha256Id(json),
    manifest: json,
  };
  const slot = slotOf(dir, file, code);
  const temp = `${slot}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, JSON.stringify(entry));
    renameSync(temp, slot);
  } catch {
    // Only a cost: the next process validates again.
  }
}
