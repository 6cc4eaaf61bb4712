/**
 * Which writers' remote evidence counts: the `trusted_signers` of `vkit.lock.json`, so trusting a
 * key is a reviewed, committed change. Each entry's public key must hash to its key id; a lock that
 * says otherwise is invalid input (exit 2), never a silently shorter list.
 */
import { emptyLock, LOCK_FILE, type Lock, readLock, writeLock } from '../formal/lock.js';
import { invalid } from '../errors.js';
import { type PublicKey, parsePublicKey, readPublicKey } from './keys.js';

/** The trusted keys by key id. */
export function trustedSigners(lock: Lock | undefined): Map<string, PublicKey & { name?: string }> {
  const out = new Map<string, PublicKey & { name?: string }>();
  for (const [i, s] of (lock?.trusted_signers ?? []).entries()) {
    const where = { file: LOCK_FILE, path: `trusted_signers[${i}].public_key` };
    const key = parsePublicKey(s.public_key, where);
    if (key.keyid !== s.keyid)
      throw invalid(
        'ERR_LOCK_INVALID',
        `The public key's id is ${key.keyid}, not the recorded ${s.keyid}`,
        { file: LOCK_FILE, path: `trusted_signers[${i}].keyid` },
        'Restore vkit.lock.json from version control, or trust the key again with `vkit policy trust-signer`.',
      );
    out.set(key.keyid, { ...key, ...(s.name ? { name: s.name } : {}) });
  }
  return out;
}

export interface TrustChange {
  schema: 'vkit.trust-signer/1';
  lock: string;
  action: 'added' | 'unchanged' | 'removed';
  keyid: string;
  trusted: string[];
}

/** Adds the public key in `file` (SPKI, or the public half of a private key) to the trusted signers. */
export function trustSigner(root: string, file: string, name?: string, now = new Date()): TrustChange {
  const key = readPublicKey(file);
  const lock = readLock(root) ?? emptyLock();
  trustedSigners(lock);
  const signers = lock.trusted_signers ?? [];
  const known = signers.some((s) => s.keyid === key.keyid);
  if (!known) {
    signers.push({ keyid: key.keyid, public_key: key.pem, ...(name ? { name } : {}), added_at: now.toISOString() });
    writeLock(root, { ...lock, trusted_signers: signers.sort((a, b) => (a.keyid < b.keyid ? -1 : 1)) });
  }
  return {
    schema: 'vkit.trust-signer/1',
    lock: LOCK_FILE,
    action: known ? 'unchanged' : 'added',
    keyid: key.keyid,
    trusted: signers.map((s) => s.keyid),
  };
}

/** Removes a trusted signer by key id; evidence it signed stops counting at once. */
export function distrustSigner(root: string, keyid: string): TrustChange {
  const lock = readLock(root) ?? emptyLock();
  const signers = lock.trusted_signers ?? [];
  if (!signers.some((s) => s.keyid === keyid))
    throw invalid('ERR_USAGE', `No trusted signer has key id ${keyid}`, { path: '--remove', file: LOCK_FILE });
  const rest = signers.filter((s) => s.keyid !== keyid);
  const { trusted_signers: _, ...withoutSigners } = lock;
  writeLock(root, rest.length ? { ...lock, trusted_signers: rest } : withoutSigners);
  return {
    schema: 'vkit.trust-signer/1',
    lock: LOCK_FILE,
    action: 'removed',
    keyid,
    trusted: rest.map((s) => s.keyid),
  };
}
