/**
 * Remote evidence in and out of a store. A remote entry is used only when its envelope's signature
 * verifies under a trusted key, the signed statement is for this very action key, every blob it
 * names downloads and hashes to its digest, and the receipt passes the checks a local hit passes;
 * anything else is a miss that says why. Publishing happens only for a result already committed
 * locally, and loses nothing locally when it fails.
 */
import { canonicalJson, sha256Id } from '../hash/index.js';
import { parseReceipt, type Receipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';
import { badSignature, type Envelope, openEnvelope, signatureVerifies, signEnvelope } from './dsse.js';
import type { RemoteCache } from './http.js';
import type { PublicKey, SigningKey } from './keys.js';
import { entryAddress, type ProtectedScope, readReceiptStatement, receiptStatement } from './statement.js';

/** What reading the remote takes: the cache, the keys whose entries count, and the protected scope if any. */
export interface RemoteSource {
  cache: RemoteCache;
  trusted: ReadonlyMap<string, PublicKey & { name?: string }>;
  scope?: ProtectedScope;
}

export type RemoteLookup =
  | { state: 'imported'; keyid: string; signer?: string; url: string; receiptId: string; receipt: Receipt }
  | { state: 'miss'; reason: string; refused: boolean };

/**
 * Fetches, verifies and imports the remote result for `key`. `refused` marks an entry that exists
 * but failed a check (an attack or corruption, worth a warning); a plain absence is not refused.
 * An imported result is a hit by the checks a local hit passes, made on the bytes as they arrived
 * (D45): the receipt's full shape and key, its run's own (written here, in the same transaction
 * as the cache row), every blob it names hashed to its digest before it was stored under it (or
 * already here intact). `intact` is the build's set of blobs already verified: those are not
 * looked at again, and the blobs brought in join it.
 */
export async function importRemote(
  store: Store,
  { cache, trusted, scope }: RemoteSource,
  key: string,
  label: string,
  intact?: Set<string>,
): Promise<RemoteLookup> {
  const refused = (reason: string): RemoteLookup => ({ state: 'miss', reason, refused: true });
  const entry = await cache.getAction(entryAddress(key, scope));
  if (!entry.ok) return { state: 'miss', reason: entry.reason, refused: !entry.missing };
  let envelope: unknown;
  try {
    envelope = JSON.parse(entry.value.toString('utf8'));
  } catch {
    return refused('the action entry is not a JSON envelope');
  }
  const verified = openEnvelope(envelope, trusted);
  if (!verified.ok) return refused(verified.reason);
  // The signature is checked in the thread pool while this thread reads the statement; nothing
  // read is used unless the signature verifies, and a bad one is the reason given first.
  const signed = signatureVerifies(verified);
  const statement = readReceiptStatement(verified.payload, key, scope);
  if (!(await signed)) return refused(badSignature(verified.keyid));
  if (!statement.ok) return refused(statement.reason);
  const r = statement.receipt;
  if (r.outcome !== 'PASS' && r.outcome !== 'FAIL') return refused(`a ${String(r.outcome)} result is never shared`);
  if (
    typeof r.run !== 'string' ||
    typeof r.attempt !== 'string' ||
    typeof r.label !== 'string' ||
    typeof r.kind !== 'string'
  )
    return refused('the receipt does not name its run, attempt, label and kind');
  // Its pointers are written under the receipt's label: it must be this action's.
  if (r.label !== label) return refused(`the receipt is for ${r.label}, not ${label}`);
  const receipt = parseReceipt(r);
  if (!receipt) return refused('the receipt is not a vkit.receipt/1');

  for (const b of statement.blobs) {
    if (intact?.has(b.sha256)) continue;
    const fetched = await fetchBlob(store, cache, b);
    if (fetched) return refused(fetched);
    intact?.add(b.sha256);
  }
  if ((await store.cas.putBytesAsync(statement.receiptJson)).sha256 !== statement.receiptId)
    return refused('the receipt did not store under its digest');
  const signer = trusted.get(verified.keyid)?.name;
  // One transaction: the run, its attempt, the cache row and the latest pointer appear together
  // (grouped with other imports finishing at the same time: one commit for many).
  const imported = await commitSoon(store, () => {
    const fresh = store.lifecycle.importRun(
      statement.receiptId,
      {
        run: r.run as string,
        attempt: r.attempt as string,
        key,
        label: r.label as string,
        kind: r.kind as string,
        outcome: r.outcome as string,
        reason: typeof r.reason === 'string' ? r.reason : null,
      },
      {
        host: `remote ${cache.url}`,
        reason: `remote hit from ${cache.url}, signed by ${verified.keyid}${signer ? ` (${signer})` : ''}`,
      },
    );
    if (!fresh) return false;
    store.actions.cachePut({ key, receipt: statement.receiptId, label: r.label as string });
    store.actions.setLatest({ label: r.label as string, receipt: statement.receiptId, key });
    return true;
  });
  if (!imported) return refused(`run ${r.run} is already in the local store with another result`);
  return {
    state: 'imported',
    keyid: verified.keyid,
    ...(signer ? { signer } : {}),
    url: cache.url,
    receiptId: statement.receiptId,
    receipt,
  };
}

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Writes waiting for the next grouped commit, per store. */
const waiting = new WeakMap<Store, Pending[]>();

/**
 * Runs `write` in a transaction of its own (a savepoint: a throw undoes only its writes) inside
 * one transaction shared with the other imports that reach this point before the event loop
 * turns: a fill commits once per group, not once per action. Settles once the group committed.
 */
export function commitSoon<T>(store: Store, write: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = waiting.get(store);
    if (!queue) {
      const group: Pending[] = [];
      waiting.set(store, (queue = group));
      setImmediate(() => flush(store, group));
    }
    queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
  });
}

function flush(store: Store, group: Pending[]): void {
  waiting.delete(store);
  const results: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
  try {
    store.batch(() => {
      store.cas.recordInstalled();
      for (const p of group) {
        try {
          results.push({ ok: true, value: store.batch(p.write) });
        } catch (error) {
          results.push({ ok: false, error });
        }
      }
    });
  } catch (error) {
    for (const p of group) p.reject(error);
    return;
  }
  group.forEach((p, i) => {
    const r = results[i]!;
    if (r.ok) p.resolve(r.value);
    else p.reject(r.error);
  });
}

/**
 * Blobs up to this size (logs, mostly) are downloaded into memory and written once; larger ones
 * are streamed to a file and adopted, so a big output never sits in memory.
 */
const IN_MEMORY_UP_TO = 1024 * 1024;

/** Downloads in flight per store: actions sharing a blob (an empty log) fetch it once. */
const inFlight = new WeakMap<Store, Map<string, Promise<string | undefined>>>();

/**
 * Brings one blob into the store unless it is there intact: from the statement's inline bytes
 * (already checked), or downloaded and checked while it arrives (into memory, or for a large one
 * into a file next to the store), then written or adopted (the store hashes it again itself before
 * the blob exists under its name). Resolves to why it could not, or undefined.
 */
export function fetchBlob(
  store: Store,
  cache: RemoteCache,
  b: { sha256: string; size: number; bytes?: Buffer },
): Promise<string | undefined> {
  let pending = inFlight.get(store);
  if (!pending) inFlight.set(store, (pending = new Map()));
  const running = pending.get(b.sha256);
  if (running) return running;
  const work = (async () => {
    // The standard of a local hit: an unchanged recorded fingerprint counts as intact (re-hashed
    // otherwise). Many actions name the same blob (every empty log): re-hashing it and recording
    // its fingerprint again for each was a file read and a commit per action.
    if (store.cas.state(b.sha256, false) === 'intact') return undefined;
    let put: { sha256: string };
    if (b.bytes) put = await store.cas.putBytesAsync(b.bytes);
    else if (b.size <= IN_MEMORY_UP_TO) {
      const got = await cache.getBlobBytes(b.sha256, b.size);
      if (!got.ok) return got.reason;
      put = await store.cas.putBytesAsync(got.value);
    } else {
      const temp = store.cas.tempPath();
      const got = await cache.getBlob(b.sha256, b.size, temp);
      if (!got.ok) return got.reason;
      put = await store.cas.adopt(temp);
    }
    return put.sha256 === b.sha256 ? undefined : `blob ${b.sha256} changed on its way into the store`;
  })().finally(() => pending.delete(b.sha256));
  pending.set(b.sha256, work);
  return work;
}

export type Published = { ok: true; blobs: number } | { ok: false; reason: string };

/** Why a receipt is never shared through the action cache, or undefined when it may be. */
function notShared(receipt: Record<string, unknown>): string | undefined {
  if (receipt.outcome !== 'PASS' && receipt.outcome !== 'FAIL') return 'only PASS and FAIL are shared';
  // Formal evidence from a working-tree capture is provisional: it never leaves the machine.
  const formal = (receipt.subject as { formal?: { provisional?: unknown } } | undefined)?.formal;
  if (formal && formal.provisional !== false) return 'provisional formal evidence is not shared';
  return undefined;
}

/** Uploads the receipt's artifacts the server lacks: how many, or why not. */
async function uploadArtifacts(store: Store, cache: RemoteCache, receipt: Record<string, unknown>): Promise<Published> {
  let uploaded = 0;
  for (const a of receipt.artifacts as { sha256: string }[]) {
    if (store.cas.state(a.sha256, true) !== 'intact') return { ok: false, reason: `blob ${a.sha256} is not intact` };
    const has = await cache.hasBlob(a.sha256);
    if (has.ok && has.value) continue;
    const put = await cache.putBlobFile(a.sha256, store.cas.pathOf(a.sha256));
    if (!put.ok) return { ok: false, reason: put.reason };
    uploaded++;
  }
  return { ok: true, blobs: uploaded };
}

/** The signed envelope of a receipt's statement, as the bytes stored remotely. */
function envelopeBytes(
  store: Store,
  key: SigningKey,
  actionKey: string,
  receiptId: string,
  receipt: Record<string, unknown>,
  scope?: ProtectedScope,
): Buffer {
  const small = (id: string) => {
    const read = store.cas.readVerified(id);
    return read.state === 'intact' ? read.bytes : undefined;
  };
  const envelope: Envelope = signEnvelope(receiptStatement(actionKey, receiptId, receipt, scope, small), key);
  return Buffer.from(canonicalJson(envelope));
}

/**
 * Uploads a committed local result: the blobs the server lacks, then the signed envelope under its
 * key (a protected run's under the address of key and scope, the scope signed with it).
 */
export async function publishEvidence(
  store: Store,
  cache: RemoteCache,
  key: SigningKey,
  actionKey: string,
  receiptId: string,
  scope?: ProtectedScope,
): Promise<Published> {
  const read = store.actions.readReceipt(receiptId);
  if (read.state !== 'intact') return { ok: false, reason: `receipt ${receiptId} is ${read.state}` };
  const receipt = read.receipt;
  const refused = notShared(receipt);
  if (refused) return { ok: false, reason: refused };
  const uploaded = await uploadArtifacts(store, cache, receipt);
  if (!uploaded.ok) return uploaded;
  const put = await cache.putAction(
    entryAddress(actionKey, scope),
    envelopeBytes(store, key, actionKey, receiptId, receipt, scope),
  );
  return put.ok ? uploaded : { ok: false, reason: put.reason };
}

export type HandedIn = { ok: true; envelope: { sha256: string; size: number } } | { ok: false; reason: string };

/**
 * A fleet worker's result (any outcome, BLOCKED too): its artifacts and its signed envelope put
 * into the CAS, the envelope under its own digest, so that each attempt's result has an address of
 * its own that no other attempt's upload can overwrite. A PASS or FAIL is also shared as an
 * action-cache entry, as `publishEvidence` would.
 */
export async function handInResult(
  store: Store,
  cache: RemoteCache,
  key: SigningKey,
  actionKey: string,
  receiptId: string,
): Promise<HandedIn> {
  const read = store.actions.readReceipt(receiptId);
  if (read.state !== 'intact') return { ok: false, reason: `receipt ${receiptId} is ${read.state}` };
  const uploaded = await uploadArtifacts(store, cache, read.receipt);
  if (!uploaded.ok) return uploaded;
  const bytes = envelopeBytes(store, key, actionKey, receiptId, read.receipt);
  const sha256 = sha256Id(bytes);
  const put = await cache.putBlobBytes(sha256, bytes);
  if (!put.ok) return { ok: false, reason: put.reason };
  if (!notShared(read.receipt)) await cache.putAction(entryAddress(actionKey), bytes);
  return { ok: true, envelope: { sha256, size: bytes.length } };
}
