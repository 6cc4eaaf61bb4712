/**
 * The fail-closed hit check (invariant 2): a cache entry counts only if its receipt is intact,
 * parses, names the key it is filed under, and every blob it names is intact. Anything else is a
 * miss that says why, so the gate can call the evidence stale and the next build reruns it.
 */
import type { ReceiptRead } from '../store/actions.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';

export type Lookup =
  | { state: 'hit'; receiptId: string; receipt: Receipt }
  | { state: 'miss' }
  | { state: 'tampered'; reason: string };

/**
 * What a build's many lookups share: the artifact blobs already verified during it (many receipts
 * share a blob, every empty log is one, and one check per build answers for all of them), and the
 * receipt read and chain check with every label's latest receipt and run read in one query each
 * (`Actions.latestReceipts`, `Lifecycle.latestChains`; `deep` reads every receipt's file).
 */
export interface BuildChecks {
  intact: Set<string>;
  readReceipt(receiptId: string): ReceiptRead;
  chainBroken(receiptId: string, receipt: { run: string; attempt?: unknown; key: string }): string | undefined;
  /** Records what the reads learnt (copies of receipts read from their files), in one transaction. */
  flush(): void;
}

export function buildChecks(store: Store): BuildChecks {
  const receipts = store.actions.latestReceipts();
  return {
    intact: new Set(),
    readReceipt: receipts.read,
    chainBroken: store.lifecycle.latestChains(),
    flush: receipts.flush,
  };
}

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
  shared?: BuildChecks,
): Lookup {
  if (latest?.key === key) {
    const found = verifyReceipt(store, latest.receipt, deep, key, shared);
    if (found.state !== 'miss') return found;
  }
  const receiptId = store.actions.cacheGet(key);
  if (!receiptId) return { state: 'miss' };
  return verifyReceipt(store, receiptId, deep, key, shared);
}

/**
 * The receipt's bytes are always re-hashed against its id (a build's shared reader takes them from
 * the index's copy while the receipt's file keeps its recorded fingerprint; `deep` always reads the
 * file). Its shape is then checked in full with `deep`, and otherwise only in the fields a hit
 * relies on: bytes that hash to their id are the bytes vkit wrote.
 */
export function verifyReceipt(
  store: Store,
  receiptId: string,
  deep: boolean,
  key?: string,
  shared?: BuildChecks,
): Lookup {
  const read = shared && !deep ? shared.readReceipt(receiptId) : store.actions.readReceipt(receiptId);
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
  const broken = shared
    ? shared.chainBroken(receiptId, receipt)
    : store.lifecycle.receiptChainBroken(receiptId, receipt);
  if (broken)
    return {
      state: 'tampered',
      reason: `evidence tampered: receipt ${short(receiptId)} is not its run's own (${broken})`,
    };
  for (const a of receipt.artifacts) {
    if (shared?.intact.has(a.sha256)) continue;
    const state = store.cas.state(a.sha256, deep);
    if (state !== 'intact')
      return { state: 'tampered', reason: `evidence tampered: artifact ${a.name} (${short(a.sha256)}) is ${state}` };
    shared?.intact.add(a.sha256);
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
