/**
 * Receipts and what points at them: the action cache (action key -> receipt of its last PASS or
 * FAIL) and the latest receipt per label (what `--explain` and STALE compare against, whatever its
 * key). Receipts are CAS blobs; these rows only name them.
 */
import { canonicalJson } from '../hash/index.js';
import type { BlobState, Cas } from './cas.js';
import type { IndexHandle } from './handle.js';

/** A receipt with the action key and label it was recorded under. */
export interface ReceiptPointer {
  key: string;
  receipt: string;
  label: string;
}

export class Actions {
  private readonly stmts;

  constructor(
    private readonly handle: IndexHandle,
    private readonly cas: Cas,
  ) {
    const { db } = handle;
    this.stmts = {
      cacheGet: db.prepare<[string], { receipt: string }>('SELECT receipt FROM action_cache WHERE key = ?'),
      cachePut: db.prepare('INSERT OR REPLACE INTO action_cache (key, receipt, label, created_ns) VALUES (?, ?, ?, ?)'),
      cacheDel: db.prepare('DELETE FROM action_cache WHERE key = ?'),
      latestGet: db.prepare<[string], { receipt: string; key: string }>(
        'SELECT receipt, key FROM latest WHERE label = ?',
      ),
      latestPut: db.prepare('INSERT OR REPLACE INTO latest (label, receipt, key) VALUES (?, ?, ?)'),
    };
  }

  /** Writes a receipt blob. Callers must have put every artifact it names first (invariant 1). */
  putReceipt(receipt: object): string {
    return this.cas.putBytes(canonicalJson(receipt)).sha256;
  }

  /**
   * Reads a receipt, re-hashing its bytes (receipts are small, and the gate trusts nothing it has
   * not checked). Returns the state when it is not intact.
   */
  readReceipt(
    id: string,
  ): { state: 'intact'; receipt: Record<string, unknown> } | { state: Exclude<BlobState, 'intact'> } {
    const read = this.cas.readVerified(id);
    if (read.state !== 'intact') return read;
    try {
      return { state: 'intact', receipt: JSON.parse(read.bytes.toString('utf8')) };
    } catch {
      return { state: 'altered' };
    }
  }

  /** What of a receipt's evidence is not intact in the CAS (the receipt, or an artifact it names), or undefined. */
  missingEvidence(receiptId: string): string | undefined {
    const read = this.readReceipt(receiptId);
    if (read.state !== 'intact') return `receipt ${receiptId} is ${read.state}`;
    const artifacts = (read.receipt as { artifacts?: unknown }).artifacts;
    if (!Array.isArray(artifacts)) return `receipt ${receiptId} names no artifacts`;
    for (const a of artifacts as Array<{ name?: unknown; sha256?: unknown }>) {
      const state =
        typeof a?.sha256 === 'string' && /^sha256:[0-9a-f]{64}$/.test(a.sha256)
          ? this.cas.state(a.sha256, false)
          : 'altered';
      if (state !== 'intact') return `artifact ${String(a?.name)} (${String(a?.sha256)}) is ${state}`;
    }
    return undefined;
  }

  /** The receipt cached for an action key. */
  cacheGet(key: string): string | undefined {
    return this.stmts.cacheGet.get(key)?.receipt;
  }

  cachePut({ key, receipt, label }: ReceiptPointer): void {
    this.stmts.cachePut.run(key, receipt, label, String(this.handle.now()));
  }

  cacheDelete(key: string): void {
    this.stmts.cacheDel.run(key);
  }

  /** The last receipt recorded for a label, whatever its key: what `--explain` and STALE compare against. */
  latest(label: string): { receipt: string; key: string } | undefined {
    return this.stmts.latestGet.get(label);
  }

  /** Every label's last receipt, in one query. */
  latestAll(): Map<string, { receipt: string; key: string }> {
    const rows = this.handle.db
      .prepare<[], { label: string; receipt: string; key: string }>('SELECT label, receipt, key FROM latest')
      .all();
    return new Map(rows.map((r) => [r.label, { receipt: r.receipt, key: r.key }]));
  }

  setLatest({ label, receipt, key }: ReceiptPointer): void {
    this.stmts.latestPut.run(label, receipt, key);
  }
}
