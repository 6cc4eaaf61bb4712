/**
 * All of vkit's hashing goes through this module: `sha256:<hex>` identities over raw bytes or
 * canonical JSON (RFC 8785 JCS), the small validators for fields that hold them, and the acceptance
 * documents' M11 scheme (`<domain>:sha-512:<hex>`), so both schemes live side by side.
 */
import { createHash, hash } from 'node:crypto';

export type Sha256Id = `sha256:${string}`;

const SHA256_ID = /^sha256:[0-9a-f]{64}$/;

// Node's one-shot digest: no Hash object per call (a build digests thousands of small texts).
function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

export function sha256Id(data: string | Uint8Array): Sha256Id {
  return `sha256:${sha256Hex(data)}`;
}

/**
 * RFC 8785 canonical JSON text: members sorted by UTF-16 code units, primitives as JSON.stringify
 * writes them (ECMAScript number form), `undefined` and symbol members dropped and array holes as
 * `null` as JSON.stringify does. NaN, infinities, lone surrogates and cycles are refused. Written
 * here rather than taken from a library because action keys canonicalise thousands of small objects
 * per build; a test checks it against the `canonicalize` package on random values.
 */
export function canonicalJson(value: unknown): string {
  const text = canonical(value, []);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A string as JSON text, refusing a lone surrogate. JSON.stringify writes one as a `\udXXX`
 * escape, so a text without `\ud` has none and the exact test is asked only when it might (an
 * action key is dozens of strings; the test on each was most of canonicalising them, D59).
 */
function quoted(s: string): string {
  const text = JSON.stringify(s);
  if (text.includes('\\ud') && LONE_SURROGATE.test(s)) throw new Error('Lone surrogate is not allowed');
  return text;
}

function canonical(v: unknown, path: object[]): string | undefined {
  switch (typeof v) {
    case 'string':
      return quoted(v);
    case 'number':
      if (Number.isNaN(v)) throw new Error('NaN is not allowed');
      if (!Number.isFinite(v)) throw new Error('Infinity is not allowed');
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(v); // undefined, functions, symbols: no JSON form; bigint throws
  }
  if (v === null) return 'null';
  if (path.includes(v)) throw new Error('Circular reference detected');
  path.push(v);
  let out: string;
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') out = canonical(toJSON.call(v), path) as string;
  else if (Array.isArray(v)) {
    out = '[';
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      out += (i ? ',' : '') + (x === undefined || typeof x === 'symbol' ? 'null' : (canonical(x, path) ?? ''));
    }
    out += ']';
  } else {
    const obj = v as Record<string, unknown>;
    out = '{';
    let first = true;
    for (const key of Object.keys(obj).sort()) {
      const x = obj[key];
      if (x === undefined || typeof x === 'symbol') continue;
      out += `${(first ? '' : ',') + quoted(key)}:${canonical(x, path)}`;
      first = false;
    }
    out += '}';
  }
  path.pop();
  return out;
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
export const M11_DOMAINS = [
  'specification',
  'manifest',
  'decision',
  'record',
  'subject',
  'artifact',
  'inventory',
  'normative-reference',
] as const;
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

/** SHA-512 hex of raw bytes (the per-file hash inside acceptance listings). */
export function sha512Hex(data: string | Uint8Array): string {
  return createHash('sha512').update(data).digest('hex');
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * The acceptance file listing (acceptance-details.md section 4): one line per file,
 * `<relative path>` NUL `<sha-512 hex of the raw bytes>` `\n`, sorted bytewise (UTF-8) by path.
 * Hashed in domain `subject` it is a crate digest. Paths must be unique and hold no NUL or newline
 * (callers refuse such names: the listing would become ambiguous).
 */
export function fileListing(files: readonly { path: string; sha512: string }[]): Buffer {
  const sorted = [...files].sort((a, b) => byteOrder(a.path, b.path));
  return Buffer.from(sorted.map((f) => `${f.path}\0${f.sha512}\n`).join(''), 'utf8');
}

/**
 * Multi-part subject identity (section 1): one line per component, `name=git-revision:<40hex>` or
 * `name=content-digest:<subject digest>`, sorted bytewise by name, joined with `\n` plus a final
 * `\n`, hashed in domain `subject`.
 */
export function componentsDigest(components: readonly { name: string; locator: string }[]): string {
  const lines = [...components].sort((a, b) => byteOrder(a.name, b.name)).map((c) => `${c.name}=${c.locator}\n`);
  return m11Digest('subject', lines.join(''));
}
