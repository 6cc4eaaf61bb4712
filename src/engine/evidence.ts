/**
 * The fail-closed hit check (invariant 2): a cache entry counts only if its receipt is intact,
 * parses, names the key it is filed under, and every blob it names is intact. Anything else is a
 * miss that says why, so the gate can call the evidence stale and the next build reruns it.
 */
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';

export type Lookup =
  | { state: 'hit'; receiptId: string; receipt: Receipt }
  | { state: 'miss' }
  | { state: 'tampered'; reason: string };

/**
 * `latest` is the label's last receipt, loaded for the whole build in one query: when it was made for
 * this very key it is the cache entry (both are written together for PASS and FAIL), which saves a
 * lookup per action on a no-op build. Otherwise the action cache is asked.
 */
export function lookupEvidence(
  store: Store,
  key: string,
  deep: boolean,
  latest?: { receipt: string; key: string },
  intact?: Set<string>,
): Lookup {
  if (latest?.key === key) {
    const found = verifyReceipt(store, latest.receipt, deep, key, intact);
    if (found.state !== 'miss') return found;
  }
  const receiptId = store.actions.cacheGet(key);
  if (!receiptId) return { state: 'miss' };
  return verifyReceipt(store, receiptId, deep, key, intact);
}

/**
 * The receipt's bytes are always re-hashed against its id. Its shape is then checked in full with
 * `deep`, and otherwise only in the fields a hit relies on: bytes that hash to their id are the
 * bytes vkit wrote. `intact` holds the artifact blobs already verified during this build: many
 * receipts share a blob (every empty log is one), and one check per build answers for all of them.
 */
export function verifyReceipt(
  store: Store,
  receiptId: string,
  deep: boolean,
  key?: string,
  intact?: Set<string>,
): Lookup {
  const read = store.actions.readReceipt(receiptId);
  if (read.state !== 'intact')
    return { state: 'tampered', reason: `evidence tampered: receipt ${short(receiptId)} is ${read.state}` };
  const receipt = deep ? parseReceipt(read.receipt) : hitFields(read.receipt);
  if (!receipt)
    return { state: 'tampered', reason: `evidence tampered: receipt ${short(receiptId)} is not a vkit.receipt/1` };
  if (key && receipt.key !== key)
    return { state: 'tampered', reason: `evidence tampered: receipt ${short(receiptId)} belongs to another action` };
  if (receipt.outcome === 'BLOCKED') return { state: 'miss' };
  // Bytes that hash to their name prove only that someone wrote them: the run that claims them must
  // have recorded them (a forged PASS copied from a real receipt fails here).
  const broken = store.lifecycle.receiptChainBroken(receiptId, receipt);
  if (broken)
    return {
      state: 'tampered',
      reason: `evidence tampered: receipt ${short(receiptId)} is not its run's own (${broken})`,
    };
  for (const a of receipt.artifacts) {
    if (intact?.has(a.sha256)) continue;
    const state = store.cas.state(a.sha256, deep);
    if (state !== 'intact')
      return { state: 'tampered', reason: `evidence tampered: artifact ${a.name} (${short(a.sha256)}) is ${state}` };
    intact?.add(a.sha256);
  }
  return { state: 'hit', receiptId, receipt };
}

const OUTCOMES = new Set(['PASS', 'FAIL', 'BLOCKED']);
const ID = /^sha256:[0-9a-f]{64}$/;

function hitFields(r: Record<string, unknown>): Receipt | undefined {
  if (
    r.schema !== 'vkit.receipt/1' ||
    typeof r.key !== 'string' ||
    typeof r.run !== 'string' ||
    typeof r.attempt !== 'string' ||
    !OUTCOMES.has(r.outcome as string)
  )
    return undefined;
  if (
    !Array.isArray(r.artifacts) ||
    !r.artifacts.every(
      (a: { name?: unknown; sha256?: unknown }) => typeof a?.name === 'string' && ID.test(String(a.sha256)),
    )
  )
    return undefined;
  return r as unknown as Receipt;
}

export function short(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}
