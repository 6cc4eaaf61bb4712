/**
 * All of vkit's hashing goes through this module: `sha256:<hex>` identities over raw bytes or
 * canonical JSON (RFC 8785 JCS), the small validators for fields that hold them, and the acceptance
 * documents' M11 scheme (`<domain>:sha-512:<hex>`), so both schemes live side by side.
 */
import { createHash } from 'node:crypto';
import canonicalizeJson from 'canonicalize';

export type Sha256Id = `sha256:${string}`;

const SHA256_ID = /^sha256:[0-9a-f]{64}$/;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function sha256Id(data: string | Uint8Array): Sha256Id {
  return `sha256:${sha256Hex(data)}`;
}

/** RFC 8785 canonical JSON text. `undefined` members are dropped, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  const text = (canonicalizeJson as unknown as (v: unknown) => string | undefined)(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** Identity of a JSON value: sha256 over its canonical text. */
export function jsonId(value: unknown): Sha256Id {
  return sha256Id(canonicalJson(value));
}

export function isSha256Id(value: unknown): value is Sha256Id {
  return typeof value === 'string' && SHA256_ID.test(value);
}

/** Hex part of an identity, for file names in the CAS. */
export function hexOf(id: Sha256Id): string {
  return id.slice('sha256:'.length);
}

/** A streaming hasher for files too large to hold in memory. */
export function sha256Stream(): { update(chunk: Uint8Array): void; digest(): Sha256Id } {
  const h = createHash('sha256');
  return {
    update: (chunk) => void h.update(chunk),
    digest: () => `sha256:${h.digest('hex')}`,
  };
}

/** The M11 domains of the acceptance format (acceptance-details.md section 1). */
export const M11_DOMAINS = ['specification', 'manifest', 'decision', 'record', 'subject', 'artifact', 'inventory', 'normative-reference'] as const;
export type M11Domain = (typeof M11_DOMAINS)[number];

/** M11: SHA-512 over the ASCII bytes `<domain>:` followed by the raw bytes (no normalisation). */
export function m11Digest(domain: M11Domain, bytes: Uint8Array | string): string {
  return `${domain}:sha-512:${createHash('sha512').update(`${domain}:`, 'ascii').update(bytes).digest('hex')}`;
}

const M11 = /^([a-z-]+):sha-512:([0-9a-f]{128})$/;

/** `{domain, hex}` of a well-formed M11 digest, else undefined (a bare `sha-512:` is not one). */
export function parseM11(value: unknown): { domain: M11Domain; hex: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const m = M11.exec(value);
  if (!m || !(M11_DOMAINS as readonly string[]).includes(m[1]!)) return undefined;
  return { domain: m[1] as M11Domain, hex: m[2]! };
}
