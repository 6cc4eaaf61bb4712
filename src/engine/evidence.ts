/**
 * The fail-closed hit check (invariant 2): a cache entry counts only if its receipt is intact,
 * parses, names the key it is filed under, and every blob it names is intact. Anything else is a
 * miss that says why, so the gate can call the evidence stale and the next build reruns it.
 */
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';

export type Lookup = { state: 'hit'; receiptId: string; receipt: Receipt } | { state: 'miss' } | { state: 'tampered'; reason: string };

export function lookupEvidence(store: Store, key: string, deep: boolean): Lookup {
  const receiptId = store.cacheGet(key);
  if (!receiptId) return { state: 'miss' };
  return verifyReceipt(store, receiptId, deep, key);
}

export function verifyReceipt(store: Store, receiptId: string, deep: boolean, key?: string): Lookup {
  const read = store.readReceipt(receiptId);
  if (read.state !== 'intact') return { state: 'tampered', reason: `evidence tampered: receipt ${short(receiptId)} is ${read.state}` };
  const receipt = parseReceipt(read.receipt);
  if (!receipt) return { state: 'tampered', reason: `evidence tampered: receipt ${short(receiptId)} is not a vkit.receipt/1` };
  if (key && receipt.key !== key) return { state: 'tampered', reason: `evidence tampered: receipt ${short(receiptId)} belongs to another action` };
  if (receipt.outcome === 'BLOCKED') return { state: 'miss' };
  for (const a of receipt.artifacts) {
    const state = store.cas.state(a.sha256, deep);
    if (state !== 'intact') return { state: 'tampered', reason: `evidence tampered: artifact ${a.name} (${short(a.sha256)}) is ${state}` };
  }
  return { state: 'hit', receiptId, receipt };
}

export function short(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}
