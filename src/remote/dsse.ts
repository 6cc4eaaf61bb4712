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

/**
 * Standard base64, padded, in its one canonical spelling (what DSSE payloads, signatures and inline
 * blobs are written in): the bytes, or undefined for anything else (other alphabets, whitespace,
 * missing padding, stray bits). Decoding and encoding again costs a fifth of a regular expression
 * over the text.
 */
export function fromBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** An envelope whose shape is right and whose signature to check is by a trusted key. */
export interface Opened {
  ok: true;
  payload: Buffer;
  keyid: string;
  /** What the signature covers (the PAE), the key and the signature. */
  check: { message: Buffer; key: PublicKey['key']; sig: Buffer };
}

/** The envelope's payload and the first signature by one of `trusted`, or why there is none to check. */
export function openEnvelope(
  data: unknown,
  trusted: ReadonlyMap<string, PublicKey>,
): Opened | { ok: false; reason: string } {
  const e = data as Partial<Envelope> | null;
  if (typeof e !== 'object' || e === null) return { ok: false, reason: 'not a DSSE envelope' };
  if (e.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return { ok: false, reason: `payload type ${JSON.stringify(e.payloadType)}, expected ${IN_TOTO_PAYLOAD_TYPE}` };
  const payload = typeof e.payload === 'string' ? fromBase64(e.payload) : undefined;
  if (!payload) return { ok: false, reason: 'payload is not base64' };
  if (!Array.isArray(e.signatures) || e.signatures.length === 0) return { ok: false, reason: 'unsigned envelope' };
  const unknown: string[] = [];
  for (const s of e.signatures) {
    if (typeof s?.keyid !== 'string' || typeof s.sig !== 'string') continue;
    const key = trusted.get(s.keyid);
    if (!key) {
      unknown.push(s.keyid);
      continue;
    }
    // A signature that is not base64 verifies nothing: checked as the empty signature, it fails.
    const sig = fromBase64(s.sig) ?? Buffer.alloc(0);
    return { ok: true, payload, keyid: s.keyid, check: { message: pae(e.payloadType, payload), key: key.key, sig } };
  }
  return {
    ok: false,
    reason: unknown.length ? `signed only by untrusted key(s) ${unknown.join(', ')}` : 'no well-formed signature',
  };
}

/**
 * Whether an opened envelope's signature verifies, checked in libuv's thread pool (node's
 * `crypto.verify` with a callback): the caller goes on reading the payload meanwhile, and uses
 * nothing from it before this says yes (a false is `badSignature`).
 */
export function signatureVerifies({ check: { message, key, sig } }: Opened): Promise<boolean> {
  return new Promise((resolve) => verify(null, message, key, sig, (error, ok) => resolve(!error && ok)));
}

export const badSignature = (keyid: string): string => `bad signature by trusted key ${keyid}`;
