/**
 * Migrating a 0.3 package to 0.4, table by table: `[format]` and protocol ids, `[[deviation]]`
 * wording, claim bands, the subject root, legacy record hashes and the binding to the
 * specification (`[contract]` -> `[specification]`), each hash verified before it is re-expressed.
 */
import { m11Digest } from '../../../src/hash/index.js';
import { retiredFields, type Attention } from './migrate-attention.js';
import { applyEdits, at, type Edit, type Migrated, setString, tryEdit } from './migrate-edits.js';
import {
  BARE_BINDING,
  contractHashMatches,
  LEGACY_RECORD,
  legacyRecordMatch,
  reportUnmigratableHashes,
  short,
} from './migrate-hashes.js';
import { Findings } from './report.js';
import { findTable, removeKey, renameKey, renameTable, scanToml } from './splice.js';
import { str, table, tables, type Doc, type Table } from './toml.js';
import { FORMAT_ID, PROTOCOL_ID } from './versions.js';

const OLD_FORMAT_IDS = ['acceptance/0', 'acceptance/0.3'];
const OLD_PROTOCOL = 'acceptance-protocol/0';

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
  /**
   * Where the evidence inputs of a package without `[subject] root` were found (relative to
   * --root), or why none could be told; undefined when there is nothing to infer.
   */
  subjectRoot?: { root: string; because: string } | { unresolved: string };
}

/** A 0.3 package -> 0.4. Binding and record problems are ERROR findings (the package is then not written). */
export function migratePackage(doc: Doc, ctx: PackageContext): Migrated {
  const findings = new Findings(doc.file, doc);
  const attention: Attention[] = [];
  const edits: Edit[] = [];
  const handled = new Set<string>();
  const format = table(doc.data, 'format');
  const formatId = str(format, 'id');
  if (formatId !== undefined && OLD_FORMAT_IDS.includes(formatId))
    edits.push(setString(['format'], 'id', FORMAT_ID, `[format] id "${formatId}" -> "${FORMAT_ID}"`));
  if (str(format, 'protocol') === OLD_PROTOCOL)
    edits.push(
      setString(['format'], 'protocol', PROTOCOL_ID, `[format] protocol "${OLD_PROTOCOL}" -> "${PROTOCOL_ID}"`),
    );
  if (str(table(doc.data, 'document'), 'protocol') === OLD_PROTOCOL)
    edits.push(
      setString(['document'], 'protocol', PROTOCOL_ID, `[document] protocol "${OLD_PROTOCOL}" -> "${PROTOCOL_ID}"`),
    );
  edits.push(...deviationEdits(doc, attention), ...bandEdits(doc, attention), ...subjectRootEdits(doc, ctx, attention));
  edits.push(...recordHashEdits(doc, ctx, findings, handled));
  const binding = bindingEdits(doc, ctx, findings, handled);
  edits.push(...binding.edits);
  const boundTo = binding.boundTo;
  reportUnmigratableHashes(doc, findings, handled);
  attention.push(...retiredFields(doc, 'package'));
  if (findings.errors > 0) return { text: doc.text, changes: [], findings, attention };
  const { text, changes } = applyEdits(doc, edits);
  return { text, changes, findings, attention, ...(boundTo ? { boundTo } : {}) };
}

/** Legacy record hashes, each verified against the record's bytes before it is re-expressed. */
function recordHashEdits(doc: Doc, ctx: PackageContext, findings: Findings, handled: Set<string>): Edit[] {
  const edits: Edit[] = [];
  tables(doc.data, 'claim').forEach((claim, ci) => {
    tables(claim, 'evidence').forEach((ev, ei) => {
      const value = ev.record_hash;
      if (typeof value !== 'string' || !LEGACY_RECORD.test(value)) return;
      const path = ['claim', ci, 'evidence', ei, 'record_hash'];
      handled.add(path.join('.'));
      const record = str(ev, 'record');
      const found = record === undefined ? [] : ctx.record(record);
      if (found.length === 0) {
        findings.error(
          `claim '${claim.id}': legacy record_hash ${short(value)} cannot be re-expressed: record ${record === undefined ? 'is not named' : `\`${record}\` cannot be read`}`,
          path,
        );
        return;
      }
      const bytes = found.find((b) => legacyRecordMatch(value, b)) ?? found[0]!;
      const how = legacyRecordMatch(value, bytes);
      if (!how) {
        findings.error(
          `claim '${claim.id}': legacy record_hash does not match \`${record}\` under either legacy construction; not re-expressed (the record changed since it was hashed)`,
          path,
        );
        return;
      }
      edits.push(
        setString(
          ['claim', ci, 'evidence', ei],
          'record_hash',
          m11Digest('record', bytes),
          `claim '${claim.id}' evidence[${ei}] record_hash: legacy ${how} wire verified over ${record} -> record:sha-512`,
        ),
      );
    });
  });
  return edits;
}

/** The binding to the specification: `[contract]` becomes `[specification]`, its hash verified and recomputed. */
function bindingEdits(
  doc: Doc,
  ctx: PackageContext,
  findings: Findings,
  handled: Set<string>,
): { edits: Edit[]; boundTo?: string } {
  const edits: Edit[] = [];
  let boundTo: string | undefined;
  const contract = table(doc.data, 'contract');
  if (doc.data.contract !== undefined && !contract) findings.error('`contract` must be a table', ['contract']);
  if (contract) {
    handled.add('contract.hash');
    if (doc.data.specification !== undefined)
      findings.error('both [contract] and [specification] are present; remove one by hand', ['specification']);
    else if (!findTable(scanToml(doc.text), ['contract']))
      findings.error('[contract] is not written as a table header; edit it by hand', ['contract']);
    else {
      const bound = bindSpecification(doc, contract, ctx, findings);
      if (bound) {
        boundTo = bound.file;
        edits.push(
          setString(
            ['contract'],
            'hash',
            bound.hash,
            `[specification] hash: ${bound.hash.slice(0, 40)}… (domain specification over the migrated ${bound.file})`,
          ),
        );
        edits.push({
          apply: (text) => renameTable(text, 'contract', 'specification'),
          expect: (data) => {
            // Key order does not matter to deep equality; move the table under its new name.
            data.specification = data.contract;
            delete data.contract;
          },
          describe: `[contract] -> [specification] (${bound.describe})`,
        });
      }
    }
  }
  return { edits, ...(boundTo ? { boundTo } : {}) };
}

/**
 * A claim's 0.3 band (A0-A4) has no 0.4 meaning and nothing in 0.4 reads it: a claim's strength
 * is its tier and weight. It is removed with the comment lines that explain it (listed as a
 * change, never silently), or left to a human when it is not written on a line of its own.
 */
function bandEdits(doc: Doc, attention: Attention[]): Edit[] {
  const edits: Edit[] = [];
  tables(doc.data, 'claim').forEach((c, i) => {
    if (c.band === undefined) return;
    const path = ['claim', i, 'band'];
    const edit: Edit = {
      apply: (text) => removeKey(text, path),
      expect: (data) => {
        delete (at(data, ['claim', i]) as Table).band;
      },
      describe: `claim '${String(c.id)}' band ${JSON.stringify(c.band)} removed, with its comment lines (0.4 has no bands: a claim's strength is its tier and weight)`,
    };
    const accepted = tryEdit(doc, edit, path, '0.4 has no bands (A0-A4): remove `band`', attention);
    if (accepted) edits.push(accepted);
  });
  return edits;
}

/**
 * 0.3 packages named no subject root, and their evidence `inputs` are relative to the crate's
 * directory; 0.4 reads them relative to `[subject] root` (default: the package's directory). The
 * caller found the one directory under which every input exists with its recorded digest
 * (`ctx.subjectRoot`); it is written as the root. None, or more than one, is left to a human.
 */
function subjectRootEdits(doc: Doc, ctx: PackageContext, attention: Attention[]): Edit[] {
  const subject = table(doc.data, 'subject');
  const found = ctx.subjectRoot;
  if (!subject || subject.root !== undefined || found === undefined) return [];
  if ('unresolved' in found) {
    attention.push({ file: doc.file, path: ['subject'], wants: found.unresolved });
    return [];
  }
  const edit = setString(
    ['subject'],
    'root',
    found.root,
    `[subject] root = "${found.root}" (every evidence input was found there, with its recorded digest: ${found.because})`,
  );
  const accepted = tryEdit(
    doc,
    edit,
    ['subject'],
    `0.4 wants [subject] root = "${found.root}": the directory the evidence inputs are relative to`,
    attention,
  );
  return accepted ? [accepted] : [];
}

/** 0.3 described a deviation with `statement`; 0.4 calls that text its `reason`. */
function deviationEdits(doc: Doc, attention: Attention[]): Edit[] {
  const edits: Edit[] = [];
  tables(doc.data, 'deviation').forEach((d, i) => {
    if (d.reason !== undefined || typeof d.statement !== 'string') return;
    const path = ['deviation', i, 'statement'];
    const edit: Edit = {
      apply: (text) => renameKey(text, path, 'reason'),
      expect: (data) => {
        const t = at(data, ['deviation', i]) as Table;
        t.reason = t.statement;
        delete t.statement;
      },
      describe: `deviation[${i}] statement -> reason (0.4's name for what is not met)`,
    };
    const accepted = tryEdit(
      doc,
      edit,
      path,
      "0.4 wants the deviation's text as `reason`: rename `statement` to `reason`",
      attention,
    );
    if (accepted) edits.push(accepted);
  });
  return edits;
}

function bindSpecification(
  doc: Doc,
  contract: Table,
  ctx: PackageContext,
  findings: Findings,
): { hash: string; file: string; describe: string } | undefined {
  const hash = contract.hash;
  if (typeof hash !== 'string') {
    findings.error('[contract] hash is missing or not a string: nothing to rebind', ['contract', 'hash']);
    return undefined;
  }
  if (BARE_BINDING.test(hash)) {
    findings.error(
      '[contract] hash uses the retired bare `sha-512:` form, which 0.3.2 already refuses: migrate does not rebind it (a bare digest does not say what it was computed over); check the package against its specification by hand, then bind it with `vkit acceptance digest --domain specification SPEC`',
      ['contract', 'hash'],
    );
    return undefined;
  }
  const match = ctx.specs.find((s) => contractHashMatches(hash, s.oldBytes));
  if (!match) {
    const sameId = ctx.specs.find((s) => s.id !== undefined && s.id === contract.id);
    if (sameId?.newText === undefined && sameId) {
      findings.error(
        `the package's specification ${sameId.file} is already 0.4: the [contract] hash binds its 0.3 bytes, which are gone, so the binding cannot be verified; migrate the 0.3 specification and the package together`,
        ['contract', 'hash'],
      );
    } else if (sameId) {
      findings.error(
        `[contract] hash does not match ${sameId.file} (id ${JSON.stringify(contract.id)}): the package was bound to other bytes; not rebound`,
        ['contract', 'hash'],
      );
    } else {
      findings.error(
        `the package's specification was not found: give it with the package (\`vkit acceptance migrate SPEC ${doc.file}\`) or name it in [spec] path`,
        ['contract', 'hash'],
      );
    }
    return undefined;
  }
  if (match.newText === undefined) {
    findings.error(
      `the package's specification ${match.file} is already 0.4; migrate the 0.3 specification and the package together`,
      ['contract', 'hash'],
    );
    return undefined;
  }
  if (contract.id !== undefined && contract.id !== match.id) {
    findings.error(
      `[contract] id ${JSON.stringify(contract.id)} differs from ${match.file}'s [document] id ${JSON.stringify(match.id)}`,
      ['contract', 'id'],
    );
    return undefined;
  }
  return {
    hash: m11Digest('specification', Buffer.from(match.newText, 'utf8')),
    file: match.file,
    describe: `old binding verified against ${match.file}`,
  };
}
