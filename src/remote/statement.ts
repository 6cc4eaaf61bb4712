/**
 * The in-toto Statement vkit signs for one action result, pure. Its subjects are the receipt and
 * every artifact blob by digest; its predicate carries the action key the result is filed under and
 * the receipt itself. Reading one back checks everything that binds the result to the local action:
 * the action key, the receipt's bytes against its digest, and that each artifact the receipt names
 * is a subject (so every blob fetched is one the signer vouched for).
 *
 * Small artifacts (a check's log, mostly) also travel inside the predicate, as Bazel's action
 * results inline stdout: `inline` maps a blob's hex digest to its bytes in base64, so a reader
 * needs no request per log. Inline bytes are checked like a download (exact size, digest) and may
 * only stand for blobs the receipt names; the blobs still go to `/cas/` as well.
 */
import { canonicalJson, sha256Id } from '../hash/index.js';
import { fromBase64 } from './dsse.js';

const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
const RECEIPT_PREDICATE = 'https://vkit.dev/attestation/receipt/v1';

const hex = (id: string) => id.replace(/^sha256:/, '');
const HEX = /^[0-9a-f]{64}$/;

/**
 * Evidence of the protected gate: made by a protected run under one target authority (its config,
 * policy and lock digest) for one kind of candidate. Such an entry is filed at its own address and
 * signed with its scope, so a build never reads it and a protected gate never reads anything else.
 */
export interface ProtectedScope {
  authority: string;
  candidate: 'git_commit' | 'working_tree';
}

/** Where an action's entry lives under `/ac/`: its key, or for protected evidence a digest of key and scope. */
export function entryAddress(actionKey: string, scope?: ProtectedScope): string {
  return scope ? sha256Id(canonicalJson({ action_key: actionKey, protected: scope })) : actionKey;
}

interface Blob {
  sha256: string;
  size: number;
  /** The bytes, when the statement carried them inline (checked against size and digest). */
  bytes?: Buffer;
}

/** Artifacts up to this size travel inline, up to INLINE_TOTAL bytes per statement. */
export const INLINE_UP_TO = 16 * 1024;
const INLINE_TOTAL = 64 * 1024;

/**
 * The statement for a receipt (already in the store: `receiptId` is the digest of its canonical
 * JSON). `small` gives the bytes of artifacts to carry inline (those up to INLINE_UP_TO, while the
 * total stays within INLINE_TOTAL).
 */
export function receiptStatement(
  actionKey: string,
  receiptId: string,
  receipt: Record<string, unknown>,
  scope?: ProtectedScope,
  small?: (sha256: string) => Buffer | undefined,
): Buffer {
  const artifacts = (receipt.artifacts as { name: string; sha256: string; size: number }[]) ?? [];
  const inline: Record<string, string> = {};
  let total = 0;
  for (const a of artifacts) {
    if (a.size > INLINE_UP_TO || total + a.size > INLINE_TOTAL || hex(a.sha256) in inline) continue;
    const bytes = small?.(a.sha256);
    if (!bytes) continue;
    inline[hex(a.sha256)] = bytes.toString('base64');
    total += bytes.length;
  }
  const statement = {
    _type: STATEMENT_TYPE,
    subject: [
      { name: 'receipt', digest: { sha256: hex(receiptId) } },
      ...artifacts.map((a) => ({ name: `artifact:${a.name}`, digest: { sha256: hex(a.sha256) } })),
    ],
    predicateType: RECEIPT_PREDICATE,
    predicate: {
      action_key: actionKey,
      receipt,
      ...(scope ? { protected: scope } : {}),
      ...(Object.keys(inline).length ? { inline } : {}),
    },
  };
  return Buffer.from(canonicalJson(statement));
}

export type ReadStatement =
  | { ok: true; receiptId: string; receiptJson: string; receipt: Record<string, unknown>; blobs: Blob[] }
  | { ok: false; reason: string };

/** The signed statement's receipt, when it is for `actionKey` (and `scope`) and consistent in every digest. */
export function readReceiptStatement(payload: Buffer, actionKey: string, scope?: ProtectedScope): ReadStatement {
  let s: {
    _type?: unknown;
    subject?: { name?: unknown; digest?: { sha256?: unknown } }[];
    predicateType?: unknown;
    predicate?: { action_key?: unknown; receipt?: unknown; protected?: unknown; inline?: unknown };
  };
  try {
    s = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, reason: 'the signed payload is not JSON' };
  }
  if (s?._type !== STATEMENT_TYPE) return { ok: false, reason: 'not an in-toto Statement v1' };
  if (s.predicateType !== RECEIPT_PREDICATE) return { ok: false, reason: `predicate type ${String(s.predicateType)}` };
  if (s.predicate?.action_key !== actionKey)
    return { ok: false, reason: `signed for action key ${String(s.predicate?.action_key)}, not this action's` };
  const made = s.predicate.protected;
  if (canonicalJson(made ?? null) !== canonicalJson(scope ?? null))
    return {
      ok: false,
      reason: scope
        ? made === undefined
          ? 'made by a build, not by a protected gate run'
          : `made by a protected gate run under another target authority or candidate kind (${canonicalJson(made)})`
        : 'made by a protected gate run, not by a build',
    };
  const receipt = s.predicate.receipt as Record<string, unknown> | undefined;
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt))
    return { ok: false, reason: 'the statement carries no receipt' };
  if (receipt.key !== actionKey) return { ok: false, reason: 'the receipt inside belongs to another action' };
  if (!Array.isArray(s.subject)) return { ok: false, reason: 'the statement has no subjects' };
  const subjects = new Map<string, string>();
  for (const sub of s.subject) {
    const digest = sub?.digest?.sha256;
    if (typeof sub?.name !== 'string' || typeof digest !== 'string' || !HEX.test(digest))
      return { ok: false, reason: 'a subject without a sha256 digest' };
    subjects.set(sub.name, digest);
  }
  const receiptJson = canonicalJson(receipt);
  const receiptId = sha256Id(receiptJson);
  if (subjects.get('receipt') !== hex(receiptId))
    return { ok: false, reason: 'the receipt does not hash to the digest its subject names' };
  const artifacts = receipt.artifacts;
  if (!Array.isArray(artifacts)) return { ok: false, reason: 'the receipt lists no artifacts' };
  const inline = s.predicate.inline ?? {};
  if (typeof inline !== 'object' || inline === null || Array.isArray(inline))
    return { ok: false, reason: 'the inline bytes are not a map of digests' };
  const unclaimed = new Set(Object.keys(inline));
  const blobs: Blob[] = [];
  for (const a of artifacts as { name?: unknown; sha256?: unknown; size?: unknown }[]) {
    if (typeof a?.name !== 'string' || typeof a.sha256 !== 'string' || !HEX.test(hex(a.sha256)))
      return { ok: false, reason: 'an artifact without a digest' };
    if (subjects.get(`artifact:${a.name}`) !== hex(a.sha256))
      return { ok: false, reason: `artifact ${a.name} is not a subject of the statement` };
    if (typeof a.size !== 'number' || !Number.isInteger(a.size) || a.size < 0)
      return { ok: false, reason: `artifact ${a.name} has no size` };
    const b64 = (inline as Record<string, unknown>)[hex(a.sha256)];
    unclaimed.delete(hex(a.sha256));
    if (b64 === undefined) {
      blobs.push({ sha256: a.sha256, size: a.size });
      continue;
    }
    const bytes = typeof b64 === 'string' ? fromBase64(b64) : undefined;
    if (!bytes || bytes.length !== a.size || sha256Id(bytes) !== a.sha256)
      return { ok: false, reason: `the inline bytes of artifact ${a.name} are not the blob its digest names` };
    blobs.push({ sha256: a.sha256, size: a.size, bytes });
  }
  if (unclaimed.size > 0)
    return { ok: false, reason: `inline bytes for a blob the receipt does not name (${[...unclaimed][0]})` };
  return { ok: true, receiptId, receiptJson, receipt, blobs };
}
