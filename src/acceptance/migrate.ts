/**
 * 0.3 -> 0.4 migration, pure part. A 0.3 specification was called a contract: `[document] kind =
 * "contract"`, protocol `acceptance-protocol/0`; a 0.3 package has `[format] id = "acceptance/0"`
 * (or `acceptance/0.3`) and binds its contract with `[contract] {id, hash = "contract:sha-512:..."}`.
 * Migration splices the text (comments and layout stay) and recomputes the hashes whose domain
 * changed:
 *
 * - the package's binding becomes `[specification]`, hashed in domain `specification` over the
 *   MIGRATED specification bytes; it is rebound only after the old hash is verified against the
 *   old specification bytes (a package bound to other bytes stays unbound: rebinding it would
 *   turn a stale binding into a current one);
 * - a legacy `record_hash` (bare `sha-512:` over the raw bytes or over `evidence-record:` + bytes,
 *   or `evidence-record:sha-512:`) becomes `record:sha-512:` after the same verification.
 *
 * Any other 0.3-only hash form is reported, never guessed. Decisions are never migrated: a
 * decision is the consumer's judgement of exact bytes, and the consumer must issue a new one.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { VkitError } from '../errors.js';
import { m11Digest } from '../hash/index.js';
import { Findings } from './report.js';
import { findTable, scanToml, renameTable, setValue, SpliceError, tomlString } from './splice.js';
import { isTable, parseDoc, str, table, tables, type Doc, type FieldPath, type Table } from './toml.js';
import { FORMAT_ID, PROTOCOL_ID } from './versions.js';

export type DocKind = 'specification' | 'package' | 'decision' | 'other';

const OLD_FORMAT_IDS = ['acceptance/0', 'acceptance/0.3'];
const OLD_PROTOCOL = 'acceptance-protocol/0';

export function classify(doc: Doc): DocKind {
  const kind = str(table(doc.data, 'document'), 'kind');
  if (kind === 'decision') return 'decision';
  if (kind === 'contract' || kind === 'specification') return 'specification';
  if (kind !== undefined) return 'other';
  if (table(doc.data, 'format') || table(doc.data, 'contract') || table(doc.data, 'specification') || Array.isArray(doc.data.claim)) return 'package';
  return 'other';
}

export interface Migrated {
  text: string;
  /** Human lines: what changed and why. */
  changes: string[];
  findings: Findings;
}

/** One edit, applied to the text by splicing and to a copy of the data, so the result can be checked. */
interface Edit {
  table: FieldPath;
  key: string;
  value: string;
  describe: string;
}

function applyEdits(doc: Doc, edits: Edit[], rename?: { from: string; to: string; describe: string }): { text: string; changes: string[] } {
  let text = doc.text;
  const expected = structuredClone(doc.data) as Table;
  try {
    for (const e of edits) {
      text = setValue(text, e.table, e.key, tomlString(e.value));
      let t = expected as Record<string | number, unknown>;
      for (const p of e.table) t = t[p] as Record<string | number, unknown>;
      t[e.key] = e.value;
    }
    if (rename) {
      text = renameTable(text, rename.from, rename.to);
      // Key order does not matter to deep equality; move the table under its new name.
      expected[rename.to] = expected[rename.from];
      delete expected[rename.from];
    }
  } catch (error) {
    if (error instanceof SpliceError) throw new SpliceError(`${doc.file}: ${error.message}`);
    throw error;
  }
  const after = parseDoc(Buffer.from(text, 'utf8'), doc.file, doc.abs).data;
  if (!isDeepStrictEqual(after, expected)) throw new VkitError('ERR_ACCEPTANCE_MIGRATE', 4, `internal: migrating ${doc.file} changed more than intended; nothing written`);
  return { text, changes: [...edits.map((e) => e.describe), ...(rename ? [rename.describe] : [])] };
}

/** A 0.3 contract -> a 0.4 specification. */
export function migrateSpecification(doc: Doc): Migrated {
  const findings = new Findings(doc.file, doc);
  const document = table(doc.data, 'document');
  const edits: Edit[] = [];
  if (str(document, 'kind') !== 'specification') edits.push({ table: ['document'], key: 'kind', value: 'specification', describe: `[document] kind ${JSON.stringify(document?.kind)} -> "specification"` });
  if (str(document, 'protocol') !== PROTOCOL_ID) edits.push({ table: ['document'], key: 'protocol', value: PROTOCOL_ID, describe: `[document] protocol ${JSON.stringify(document?.protocol ?? null)} -> "${PROTOCOL_ID}"` });
  reportUnmigratableHashes(doc, findings, new Set());
  const { text, changes } = applyEdits(doc, edits);
  return { text, changes, findings };
}

/** A specification the package may be bound to: its 0.3 bytes and (when it is 0.3) its migrated text. */
export interface SpecCandidate {
  file: string;
  oldBytes: Buffer;
  id?: string;
  /** Undefined when the file is already 0.4 (its 0.3 bytes are gone: the old binding cannot be verified). */
  newText?: string;
}

export interface PackageContext {
  specs: SpecCandidate[];
  /** Raw bytes of an evidence record named by the package: one entry per place it was found (none when unreadable). */
  record(path: string): Buffer[];
}

const sha512 = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

const HEX = /^[0-9a-f]{128}$/;

/** Does a 0.3 contract hash (`contract:sha-512:` or the pre-lock bare form) bind these bytes? */
export function contractHashMatches(value: string, bytes: Buffer): boolean {
  const m = /^(?:contract:)?sha-512:([0-9a-f]{128})$/.exec(value);
  return !!m && m[1] === sha512('contract:', bytes);
}

/** The construction a legacy record hash used, verified against the bytes; undefined when none matches. */
export function legacyRecordMatch(value: string, bytes: Buffer): 'bare' | 'evidence-record' | undefined {
  const typed = /^evidence-record:sha-512:(.+)$/.exec(value);
  if (typed) return HEX.test(typed[1]!) && typed[1] === sha512('evidence-record:', bytes) ? 'evidence-record' : undefined;
  const bare = /^sha-512:(.+)$/.exec(value);
  if (!bare || !HEX.test(bare[1]!)) return undefined;
  if (bare[1] === sha512(bytes)) return 'bare';
  if (bare[1] === sha512('evidence-record:', bytes)) return 'evidence-record';
  return undefined;
}

export const LEGACY_RECORD = /^(?:evidence-record:)?sha-512:/;

/** A 0.3 package -> 0.4. Binding and record problems are ERROR findings (the package is then not written). */
export function migratePackage(doc: Doc, ctx: PackageContext): Migrated {
  const findings = new Findings(doc.file, doc);
  const edits: Edit[] = [];
  const handled = new Set<string>();
  const format = table(doc.data, 'format');
  const formatId = str(format, 'id');
  if (formatId !== undefined && OLD_FORMAT_IDS.includes(formatId)) edits.push({ table: ['format'], key: 'id', value: FORMAT_ID, describe: `[format] id "${formatId}" -> "${FORMAT_ID}"` });
  if (str(format, 'protocol') === OLD_PROTOCOL) edits.push({ table: ['format'], key: 'protocol', value: PROTOCOL_ID, describe: `[format] protocol "${OLD_PROTOCOL}" -> "${PROTOCOL_ID}"` });
  if (str(table(doc.data, 'document'), 'protocol') === OLD_PROTOCOL) edits.push({ table: ['document'], key: 'protocol', value: PROTOCOL_ID, describe: `[document] protocol "${OLD_PROTOCOL}" -> "${PROTOCOL_ID}"` });

  // Legacy record hashes, each verified against the record's bytes before it is re-expressed.
  tables(doc.data, 'claim').forEach((claim, ci) => {
    tables(claim, 'evidence').forEach((ev, ei) => {
      const value = ev.record_hash;
      if (typeof value !== 'string' || !LEGACY_RECORD.test(value)) return;
      const path = ['claim', ci, 'evidence', ei, 'record_hash'];
      handled.add(path.join('.'));
      const record = str(ev, 'record');
      const found = record === undefined ? [] : ctx.record(record);
      if (found.length === 0) {
        findings.error(`claim '${claim.id}': legacy record_hash ${short(value)} cannot be re-expressed: record ${record === undefined ? 'is not named' : `\`${record}\` cannot be read`}`, path);
        return;
      }
      const bytes = found.find((b) => legacyRecordMatch(value, b)) ?? found[0]!;
      const how = legacyRecordMatch(value, bytes);
      if (!how) {
        findings.error(`claim '${claim.id}': legacy record_hash does not match \`${record}\` under either legacy construction; not re-expressed (the record changed since it was hashed)`, path);
        return;
      }
      edits.push({ table: ['claim', ci, 'evidence', ei], key: 'record_hash', value: m11Digest('record', bytes), describe: `claim '${claim.id}' evidence[${ei}] record_hash: legacy ${how} wire verified over ${record} -> record:sha-512` });
    });
  });

  // The binding to the specification.
  let rename: { from: string; to: string; describe: string } | undefined;
  const contract = table(doc.data, 'contract');
  if (doc.data.contract !== undefined && !contract) findings.error('`contract` must be a table', ['contract']);
  if (contract) {
    handled.add('contract.hash');
    if (doc.data.specification !== undefined) findings.error('both [contract] and [specification] are present; remove one by hand', ['specification']);
    else if (!findTable(scanToml(doc.text), ['contract'])) findings.error('[contract] is not written as a table header; edit it by hand', ['contract']);
    else {
      const bound = bindSpecification(doc, contract, ctx, findings);
      if (bound) {
        rename = { from: 'contract', to: 'specification', describe: `[contract] -> [specification] (${bound.describe})` };
        edits.push({ table: ['contract'], key: 'hash', value: bound.hash, describe: `[specification] hash: ${bound.hash.slice(0, 40)}… (domain specification over the migrated ${bound.file})` });
      }
    }
  }
  reportUnmigratableHashes(doc, findings, handled);
  if (findings.errors > 0) return { text: doc.text, changes: [], findings };
  const { text, changes } = applyEdits(doc, edits, rename);
  return { text, changes, findings };
}

function bindSpecification(doc: Doc, contract: Table, ctx: PackageContext, findings: Findings): { hash: string; file: string; describe: string } | undefined {
  const hash = contract.hash;
  if (typeof hash !== 'string') {
    findings.error('[contract] hash is missing or not a string: nothing to rebind', ['contract', 'hash']);
    return undefined;
  }
  const match = ctx.specs.find((s) => contractHashMatches(hash, s.oldBytes));
  if (!match) {
    const sameId = ctx.specs.find((s) => s.id !== undefined && s.id === contract.id);
    if (sameId?.newText === undefined && sameId) {
      findings.error(`the package's specification ${sameId.file} is already 0.4: the [contract] hash binds its 0.3 bytes, which are gone, so the binding cannot be verified; migrate the 0.3 specification and the package together`, ['contract', 'hash']);
    } else if (sameId) {
      findings.error(`[contract] hash does not match ${sameId.file} (id ${JSON.stringify(contract.id)}): the package was bound to other bytes; not rebound`, ['contract', 'hash']);
    } else {
      findings.error(`the package's specification was not found: give it with the package (\`vkit acceptance migrate SPEC ${doc.file}\`) or name it in [spec] path`, ['contract', 'hash']);
    }
    return undefined;
  }
  if (match.newText === undefined) {
    findings.error(`the package's specification ${match.file} is already 0.4; migrate the 0.3 specification and the package together`, ['contract', 'hash']);
    return undefined;
  }
  if (contract.id !== undefined && contract.id !== match.id) {
    findings.error(`[contract] id ${JSON.stringify(contract.id)} differs from ${match.file}'s [document] id ${JSON.stringify(match.id)}`, ['contract', 'id']);
    return undefined;
  }
  return { hash: m11Digest('specification', Buffer.from(match.newText, 'utf8')), file: match.file, describe: `old binding verified against ${match.file}` };
}

const short = (v: string) => (v.length > 40 ? v.slice(0, 40) + '…' : v);

/** Values in 0.3-only hash forms that no rule above re-expresses: reported, never guessed. */
function reportUnmigratableHashes(doc: Doc, findings: Findings, handled: Set<string>): void {
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === 'string') {
      if (/^(?:contract:|evidence-record:|bundle-root:|claim:)?sha-512:[0-9a-fA-F]+$/.test(v) && !handled.has(path.join('.'))) {
        findings.error(`${short(v)} at ${path.join('.')} is a 0.3 hash form migrate cannot re-express (its domain or bytes are unknown); fix it by hand with \`vkit acceptance digest\``, path);
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isTable(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(doc.data, []);
}
