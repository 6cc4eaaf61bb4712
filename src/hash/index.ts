/**
 * All of vkit's hashing goes through this module: `sha256:<hex>` identities over raw bytes or
 * canonical JSON (RFC 8785 JCS), and the small validators for fields that hold them. The acceptance
 * issue adds M11 here so both schemes live side by side.
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
