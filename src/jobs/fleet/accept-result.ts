/**
 * The face's side of a fleet result: the signed envelope a worker put into the CAS, accepted only
 * when it hashes to the digest the worker named, its signature verifies under a key of this
 * project's trusted signers (`vkit.lock.json`), its statement is for this run's action key, and its
 * receipt names this very run and attempt; every blob it names is brought in and hashed. Then the
 * attempt ends `done` with the receipt through the store's compare-and-set, so a result arriving
 * after its attempt was declared lost (or cancelled) changes nothing. Anything else ends the attempt
 * `interrupted`, BLOCKED, saying why: never a pass without a verified receipt of this attempt.
 */
import { badSignature, openEnvelope, signatureVerifies } from '../../remote/dsse.js';
import { fetchBlob, type RemoteSource } from '../../remote/exchange.js';
import { readReceiptStatement } from '../../remote/statement.js';
import { parseReceipt } from '../../store/receipt.js';
import type { RunRow, Store } from '../../store/store.js';
import type { ResultRequest } from './protocol.js';

/** The largest envelope read from the CAS. */
const MAX_ENVELOPE = 8 * 1024 * 1024;

/** Whether the result was recorded as the attempt's, or why not. */
export type Accepted = { recorded: true } | { recorded: false; reason: string };

export async function acceptResult(
  store: Store,
  source: RemoteSource,
  run: RunRow,
  req: ResultRequest,
  signedBy?: (keyid: string) => void,
): Promise<Accepted> {
  const verified = await verifiedReceipt(store, source, run, req);
  if (typeof verified === 'string') {
    store.lifecycle.finishAttempt({
      run: run.id,
      attempt: req.attempt,
      state: 'interrupted',
      outcome: 'BLOCKED',
      reason: `the worker's result was refused: ${verified}`,
    });
    return { recorded: false, reason: verified };
  }
  signedBy?.(verified.keyid);
  const { receiptId, outcome, reason } = verified;
  // A cancel asked while the attempt ran on the worker makes it a cancelled attempt, as locally.
  const cancelled = store.lifecycle.cancelRequested(req.attempt);
  let finished = false;
  store.batch(() => {
    store.cas.recordInstalled();
    finished = store.lifecycle.finishAttempt({
      run: run.id,
      attempt: req.attempt,
      receipt: receiptId,
      ...(cancelled
        ? { state: 'interrupted', outcome: 'BLOCKED', reason: 'cancelled' }
        : { state: 'done', outcome, reason: reason ?? undefined }),
    });
    if (finished && !cancelled) {
      // Only PASS and FAIL are cached, as for a local attempt.
      if (outcome !== 'BLOCKED') store.actions.cachePut({ key: run.key, receipt: receiptId, label: run.label });
      store.actions.setLatest({ label: run.label, receipt: receiptId, key: run.key });
    }
  });
  return finished
    ? { recorded: true }
    : { recorded: false, reason: `attempt ${req.attempt} had already ended (declared lost or cancelled)` };
}

/** The verified receipt the result names, or why it is refused. */
async function verifiedReceipt(
  store: Store,
  { cache, trusted }: RemoteSource,
  run: RunRow,
  req: ResultRequest,
): Promise<{ receiptId: string; outcome: string; reason: string | null; keyid: string } | string> {
  if (req.envelope.size > MAX_ENVELOPE) return `the envelope is larger than ${MAX_ENVELOPE} bytes`;
  const got = await cache.getBlobBytes(req.envelope.sha256, req.envelope.size);
  if (!got.ok) return `the envelope ${req.envelope.sha256} could not be fetched: ${got.reason}`;
  let envelope: unknown;
  try {
    envelope = JSON.parse(got.value.toString('utf8'));
  } catch {
    return 'the envelope is not JSON';
  }
  const opened = openEnvelope(envelope, trusted);
  if (!opened.ok) return opened.reason;
  if (!(await signatureVerifies(opened))) return badSignature(opened.keyid);
  const statement = readReceiptStatement(opened.payload, run.key);
  if (!statement.ok) return statement.reason;
  const r = statement.receipt;
  // The attempt id decides: a receipt of any other run or attempt is not this attempt's result.
  if (r.run !== run.id || r.attempt !== req.attempt)
    return `the receipt is for run ${String(r.run)} attempt ${String(r.attempt)}, not run ${run.id} attempt ${req.attempt}`;
  if (r.label !== run.label) return `the receipt is for ${String(r.label)}, not ${run.label}`;
  const receipt = parseReceipt(r);
  if (!receipt) return 'the receipt is not a vkit.receipt/1';
  for (const b of statement.blobs) {
    const problem = await fetchBlob(store, cache, b);
    if (problem) return problem;
  }
  if ((await store.cas.putBytesAsync(statement.receiptJson)).sha256 !== statement.receiptId)
    return 'the receipt did not store under its digest';
  return { receiptId: statement.receiptId, outcome: receipt.outcome, reason: receipt.reason, keyid: opened.keyid };
}
