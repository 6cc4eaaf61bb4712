/**
 * Receipts and what points at them: the action cache (action key -> receipt of its last PASS or
 * FAIL) and the latest receipt per label (what `--explain` and STALE compare against, whatever its
 * key). Receipts are CAS blobs; these rows only name them. The index also keeps a copy of each
 * receipt's bytes (`receipt_copies`), so a build's hit checks read them in one query instead of
 * opening a thousand files (see `latestReceipts`).
 */
import { canonicalJson, sha256Id } from '../hash/index.js';
import type { Fingerprint } from '../capture/files.js';
import type { BlobState, Cas } from './cas.js';
import { immediate, type IndexHandle } from './handle.js';

/** A receipt read and checked, or the state of its blob when it is not intact. */
export type ReceiptRead =
  | { state: 'intact'; receipt: Record<string, unknown> }
  | { state: Exclude<BlobState, 'intact'> };

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
      copyPut: db.prepare<[string, Buffer]>('INSERT OR REPLACE INTO receipt_copies (id, bytes) VALUES (?, ?)'),
      latestCopies: db.prepare<[], [string, Buffer, number | null, string, string, string]>(
        'SELECT l.receipt, c.bytes, b.size, b.mtime_ns, b.ctime_ns, b.ino FROM latest l JOIN receipt_copies c ON c.id = l.receipt LEFT JOIN blobs b ON b.id = l.receipt',
      ),
      copyGet: db.prepare<[string], [Buffer, number | null, string, string, string]>(
        'SELECT c.bytes, b.size, b.mtime_ns, b.ctime_ns, b.ino FROM receipt_copies c LEFT JOIN blobs b ON b.id = c.id WHERE c.id = ?',
      ),
    };
  }

  /** Writes a receipt blob. Callers must have put every artifact it names first (invariant 1). */
  putReceipt(receipt: object): string {
    const bytes = Buffer.from(canonicalJson(receipt));
    const id = this.cas.putBytes(bytes).sha256;
    this.stmts.copyPut.run(id, bytes);
    return id;
  }

  /**
   * Reads a receipt, re-hashing its bytes (receipts are small, and the gate trusts nothing it has
   * not checked). Returns the state when it is not intact.
   */
  readReceipt(id: string): ReceiptRead {
    return this.readFromCas(id).read;
  }

  private readFromCas(id: string): { read: ReceiptRead; bytes?: Buffer } {
    const read = this.cas.readVerified(id);
    if (read.state !== 'intact') return { read };
    const receipt = parseBytes(read.bytes);
    return receipt ? { read: { state: 'intact', receipt }, bytes: read.bytes } : { read: { state: 'altered' } };
  }

  /**
   * `readReceipt` for a build's many hits, with every label's latest receipt and its blob's recorded
   * fingerprint read in one query when called. A receipt is read from the index's copy when the
   * copy's bytes hash to the receipt's id (so they are the bytes vkit wrote, whatever the copy went
   * through) and the blob's file still has the fingerprint recorded when it was written or last
   * verified (the same shallow check every artifact gets: a file rewritten, replaced or removed has
   * another, or none). Anything else reads and re-hashes the file as `readReceipt` does, so what a
   * damaged blob reports is unchanged; a receipt read intact that way gets its copy for next time,
   * written with the others in one transaction by `flush` (the first build after a fill or an
   * upgrade reads a thousand files once).
   */
  latestReceipts(): { read(id: string): ReceiptRead; flush(): void } {
    const copies = new Map<string, { bytes: Buffer; fp?: Fingerprint }>();
    for (const [id, bytes, size, mtime_ns, ctime_ns, ino] of this.stmts.latestCopies.raw(true).all())
      copies.set(id, { bytes, ...(size === null ? {} : { fp: { size, mtime_ns, ctime_ns, ino } }) });
    let missing: Array<[string, Buffer]> = [];
    // A receipt that is no label's latest (an older result matching again) is asked for by itself,
    // so that its copy is used too, and never written again on every build.
    const copyOf = (id: string) => {
      const row = this.stmts.copyGet.raw(true).get(id);
      if (!row) return undefined;
      const [bytes, size, mtime_ns, ctime_ns, ino] = row;
      return { bytes, ...(size === null ? {} : { fp: { size, mtime_ns, ctime_ns, ino } }) };
    };
    return {
      read: (id) => {
        const copy = copies.get(id) ?? copyOf(id);
        const genuine = copy !== undefined && sha256Id(copy.bytes) === id;
        if (genuine && copy.fp && this.cas.hasFingerprint(id, copy.fp)) {
          const receipt = parseBytes(copy.bytes);
          if (receipt) return { state: 'intact', receipt };
        }
        const { read, bytes } = this.readFromCas(id);
        if (bytes && !genuine) missing.push([id, bytes]);
        return read;
      },
      flush: () => {
        const taken = missing;
        missing = [];
        if (taken.length)
          immediate(this.handle, () => taken.forEach(([id, bytes]) => this.stmts.copyPut.run(id, bytes)));
      },
    };
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

function parseBytes(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
