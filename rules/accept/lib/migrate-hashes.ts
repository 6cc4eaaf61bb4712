/**
 * The hash forms of 0.3: each is re-expressed only after it is verified against the bytes it
 * claims to bind, and one no rule can re-express is reported, never guessed.
 */
import { createHash } from 'node:crypto';
import type { Findings } from './report.js';
import { isTable, type Doc } from './toml.js';

const sha512 = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

const HEX = /^[0-9a-f]{128}$/;

/** Does a 0.3 contract hash (`contract:sha-512:`) bind these bytes? The bare form never does. */
export function contractHashMatches(value: string, bytes: Buffer): boolean {
  const m = /^contract:sha-512:([0-9a-f]{128})$/.exec(value);
  return !!m && m[1] === sha512('contract:', bytes);
}

export const BARE_BINDING = /^sha-512:/;

/** The construction a legacy record hash used, verified against the bytes; undefined when none matches. */
export function legacyRecordMatch(value: string, bytes: Buffer): 'bare' | 'evidence-record' | undefined {
  const typed = /^evidence-record:sha-512:(.+)$/.exec(value);
  if (typed)
    return HEX.test(typed[1]!) && typed[1] === sha512('evidence-record:', bytes) ? 'evidence-record' : undefined;
  const bare = /^sha-512:(.+)$/.exec(value);
  if (!bare || !HEX.test(bare[1]!)) return undefined;
  if (bare[1] === sha512(bytes)) return 'bare';
  if (bare[1] === sha512('evidence-record:', bytes)) return 'evidence-record';
  return undefined;
}

export const LEGACY_RECORD = /^(?:evidence-record:)?sha-512:/;

export const short = (v: string) => (v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** Values in 0.3-only hash forms that no rule above re-expresses: reported, never guessed. */
export function reportUnmigratableHashes(doc: Doc, findings: Findings, handled: Set<string>): void {
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === 'string') {
      if (
        /^(?:contract:|evidence-record:|bundle-root:|claim:)?sha-512:[0-9a-fA-F]+$/.test(v) &&
        !handled.has(path.join('.'))
      ) {
        findings.error(
          `${short(v)} at ${path.join('.')} is a 0.3 hash form migrate cannot re-express (its domain or bytes are unknown); fix it by hand with \`vkit acceptance digest\``,
          path,
        );
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isTable(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(doc.data, []);
}
