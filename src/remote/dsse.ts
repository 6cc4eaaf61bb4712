/**
 * DSSE (the in-toto / Sigstore signing envelope) with Ed25519, pure: the signature covers the
 * pre-authentication encoding of the payload type and the payload's exact bytes, so neither can be
 * swapped under a valid signature. Verification answers with the first trusted signature that
 * verifies, or why none did.
 */
import { sign, verify } from 'node:crypto';
import type { PublicKey, SigningKey } from './keys.js';

const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export interface Envelope {
  payloadType: string;
  /** Base64 of the payload's bytes. */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** `DSSEv1 <len(type)> <type> <len(body)> <body>`, lengths in bytes as decimal ASCII. */
export function pae(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
}

export function signEnvelope(payload: Buffer, key: SigningKey, payloadType = IN_TOTO_PAYLOAD_TYPE): Envelope {
  const sig = sign(null, pae(payloadType, payload), key.privateKey).toString('base64');
  return { payloadType, payload: payload.toString('base64'), signatures: [{ keyid: key.keyid, sig }] };
}

export type Verified = { ok: true; payload: Buffer; keyid: string } | { ok: false; reason: string };

/** Standard base64, padded (what DSSE payloads and signatures and inline blobs are written in). */
export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The envelope's payload, when a signature by one of `trusted` verifies over it. */
export function verifyEnvelope(data: unknown, trusted: ReadonlyMap<string, PublicKey>): Verified {
  const e = data as Partial<Envelope> | null;
  if (typeof e !== 'object' || e === null) return { ok: false, reason: 'not a DSSE envelope' };
  if (e.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return { ok: false, reason: `payload type ${JSON.stringify(e.payloadType)}, expected ${IN_TOTO_PAYLOAD_TYPE}` };
  if (typeof e.payload !== 'string' || !BASE64.test(e.payload)) return { ok: false, reason: 'payload is not base64' };
  if (!Array.isArray(e.signatures) || e.signatures.length === 0) return { ok: false, reason: 'unsigned envelope' };
  const payload = Buffer.from(e.payload, 'base64');
  const message = pae(e.payloadType, payload);
  const unknown: string[] = [];
  for (const s of e.signatures) {
    if (typeof s?.keyid !== 'string' || typeof s.sig !== 'string') continue;
    const key = trusted.get(s.keyid);
    if (!key) {
      unknown.push(s.keyid);
      continue;
    }
    if (verify(null, message, key.key, Buffer.from(s.sig, 'base64'))) return { ok: true, payload, keyid: s.keyid };
    return { ok: false, reason: `bad signature by trusted key ${s.keyid}` };
  }
  return {
    ok: false,
    reason: unknown.length ? `signed only by untrusted key(s) ${unknown.join(', ')}` : 'no well-formed signature',
  };
}
