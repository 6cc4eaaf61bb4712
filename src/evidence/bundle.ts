/**
 * Evidence bundles: what one retained run consists of, laid out as tar entries, and the checks a
 * read bundle must pass before anything in it is believed.
 *
 * Layout, in this order: `manifest.json`, `job.json` (the frozen job, canonical JSON),
 * `receipt.json` (the receipt's exact CAS bytes) and `artifacts/<hex>` (each distinct artifact
 * blob, sorted by digest). Capsules of formal profile assets follow under `assets/` (capsule.ts).
 */
import { readFileSync } from 'node:fs';
import { canonicalJson, sha256Id } from '../hash/index.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';
import { VkitError, EXIT, invalid } from '../errors.js';
import { collectAssets } from './assets.js';
import type { ReadBundle } from './hostile.js';
import { refuse } from './refusal.js';
import { capsuleEntryNames, checkCapsules, type CollectedAssets } from './capsule.js';
import {
  artifactEntry,
  buildManifest,
  JOB_ENTRY,
  manifestBytes,
  MANIFEST_ENTRY,
  RECEIPT_ENTRY,
  type BundleEntry,
  type BundleManifest,
} from './manifest.js';
import type { TarSource } from './tar.js';

export interface ExportPlan {
  manifest: BundleManifest;
  sources: TarSource[];
  receipt: Receipt;
  receiptId: string;
}

function damaged(message: string): VkitError {
  return new VkitError('ERR_EVIDENCE_DAMAGED', EXIT.blocked, message, {
    hint: 'Run the check again (`vkit verify --check ID`) and export the new run.',
  });
}

/**
 * Collects a run's evidence from the store, re-hashing the receipt and every artifact (deep), and
 * lays it out as bundle entries. A run without an intact receipt, or with a damaged artifact, is
 * refused: a bundle is never made from evidence the store itself could not vouch for.
 */
export function planExport(
  store: Store,
  runId: string,
  includeAssets: boolean,
  collected?: CollectedAssets,
): ExportPlan {
  const run = store.lifecycle.getRun(runId);
  if (!run)
    throw invalid(
      'ERR_USAGE',
      `No run \`${runId}\` in this store`,
      { path: '--run' },
      'List runs with `vkit runs` (and pass the same --store).',
    );
  if (!run.receipt)
    throw invalid(
      'ERR_USAGE',
      `Run \`${runId}\` has no receipt (state ${run.state}${run.reason ? `: ${run.reason}` : ''}); only a finished run can be exported`,
      { path: '--run' },
    );
  const read = store.actions.readReceipt(run.receipt);
  if (read.state !== 'intact') throw damaged(`receipt ${run.receipt} of run ${runId} is ${read.state}`);
  const receipt = parseReceipt(read.receipt);
  if (!receipt) throw damaged(`receipt ${run.receipt} of run ${runId} is not a vkit.receipt/1`);
  const frozen = store.lifecycle.getJob(receipt.key);
  if (!frozen) throw damaged(`the frozen job ${receipt.key} of run ${runId} is not in this store`);
  let job: unknown;
  try {
    job = JSON.parse(frozen.job);
  } catch {
    throw damaged(`the frozen job ${receipt.key} of run ${runId} is not JSON`);
  }
  const jobBytes = Buffer.from(canonicalJson(job), 'utf8');
  const receiptBytes = store.cas.read(run.receipt);

  const sources: TarSource[] = [
    { name: JOB_ENTRY, size: jobBytes.length, bytes: jobBytes },
    { name: RECEIPT_ENTRY, size: receiptBytes.length, bytes: receiptBytes },
  ];
  const entries: BundleEntry[] = [
    { name: JOB_ENTRY, sha256: sha256Id(jobBytes), size: jobBytes.length },
    { name: RECEIPT_ENTRY, sha256: run.receipt, size: receiptBytes.length },
  ];
  const blobs = new Map<string, number>();
  for (const a of receipt.artifacts) blobs.set(a.sha256, a.size);
  for (const [sha256, size] of [...blobs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const state = store.cas.state(sha256, true);
    if (state !== 'intact') throw damaged(`artifact ${sha256} of run ${runId} is ${state}`);
    sources.push({ name: artifactEntry(sha256), size, file: store.cas.pathOf(sha256) });
    entries.push({ name: artifactEntry(sha256), sha256, size });
  }
  // Capsule entries come last, in the capsule's order; they were streamed to files by the collector.
  if (collected) {
    sources.push(...collected.sources);
    for (const c of collected.capsules)
      for (const e of c.entries) entries.push({ name: e.name, sha256: e.sha256, size: e.size });
  }
  const assets = collected
    ? { requested: includeAssets, capsules: collected.capsules }
    : collectAssets(receipt, includeAssets);
  const manifest = buildManifest({
    receipt,
    receiptSha256: run.receipt,
    job: { key: receipt.key, sha256: sha256Id(jobBytes) },
    entries,
    assets,
  });
  const mBytes = manifestBytes(manifest);
  return {
    manifest,
    receipt,
    receiptId: run.receipt,
    sources: [{ name: MANIFEST_ENTRY, size: mBytes.length, bytes: mBytes }, ...sources],
  };
}

/** A bundle whose entries all agree with each other: what replay may then look at. */
export interface CheckedBundle {
  manifest: BundleManifest;
  receipt: Receipt;
  job: Record<string, unknown>;
}

/**
 * Checks a bundle read by `readBundle` (which already matched every entry's size and digest against
 * the manifest) for consistency: the receipt parses and is the one the manifest names, the job is
 * the receipt's, every artifact the receipt names is in the bundle, and the manifest is exactly the
 * one these entries give, byte for byte. Refusals name the entry at fault.
 */
export function checkBundle(read: ReadBundle): CheckedBundle {
  const { manifest } = read;
  const bytesOf = (name: string) => {
    const e = read.entries.get(name);
    if (!e) throw refuse(name, 'the bundle does not hold it');
    return readFileSync(e.file);
  };
  const receiptBytes = bytesOf(RECEIPT_ENTRY);
  if (sha256Id(receiptBytes) !== manifest.receipt.sha256)
    throw refuse(RECEIPT_ENTRY, `its digest is not the receipt the manifest names (${manifest.receipt.sha256})`);
  let receipt: Receipt | undefined;
  try {
    receipt = parseReceipt(JSON.parse(receiptBytes.toString('utf8')));
  } catch {
    receipt = undefined;
  }
  if (!receipt) throw refuse(RECEIPT_ENTRY, 'it is not a vkit.receipt/1');
  if (receipt.key !== manifest.job.key || receipt.job !== manifest.job.key)
    throw refuse(RECEIPT_ENTRY, 'it belongs to another job than the manifest names');

  const jobBytes = bytesOf(JOB_ENTRY);
  let job: Record<string, unknown>;
  try {
    job = JSON.parse(jobBytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw refuse(JOB_ENTRY, 'it is not JSON');
  }
  if (typeof job !== 'object' || job === null || job.key !== receipt.key || job.schema !== 'vkit.job/1')
    throw refuse(JOB_ENTRY, 'it is not the frozen job of the receipt');
  if (!Buffer.from(canonicalJson(job), 'utf8').equals(jobBytes)) throw refuse(JOB_ENTRY, 'it is not canonical JSON');
  if (read.entries.get(JOB_ENTRY)!.sha256 !== manifest.job.sha256)
    throw refuse(JOB_ENTRY, `its digest is not the job the manifest names (${manifest.job.sha256})`);

  for (const a of receipt.artifacts) {
    const e = read.entries.get(artifactEntry(a.sha256));
    if (!e || e.size !== a.size)
      throw refuse(
        artifactEntry(a.sha256),
        `the receipt's artifact \`${a.name}\` is not in the bundle with ${a.size} bytes`,
      );
  }
  const expected = manifestBytes(
    buildManifest({
      receipt,
      receiptSha256: manifest.receipt.sha256,
      job: manifest.job,
      entries: manifest.entries,
      assets: manifest.assets,
    }),
  );
  if (!expected.equals(read.manifestBytes))
    throw refuse(MANIFEST_ENTRY, 'it is not the manifest its receipt, job and entries give (a byte was changed)');
  // Entries under `assets/` are allowed when a capsule names them (and the capsule is self-consistent).
  checkCapsules(manifest);
  const carried = capsuleEntryNames(manifest);
  const extra = manifest.entries.find(
    (e) =>
      e.name !== JOB_ENTRY &&
      e.name !== RECEIPT_ENTRY &&
      !carried.has(e.name) &&
      !receipt!.artifacts.some((a) => artifactEntry(a.sha256) === e.name),
  );
  if (extra) throw refuse(extra.name, 'the receipt does not name it');
  return { manifest, receipt, job };
}
