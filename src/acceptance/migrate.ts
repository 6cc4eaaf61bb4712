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
 * - an authority written `"Name / role"` becomes the party name, and the role fills that party's
 *   missing `role`; a deviation's `statement` becomes its `reason`.
 *
 * A retired bare `sha-512:` binding is refused, as 0.3.2 refuses it. Any other 0.3-only hash form
 * is reported, never guessed. Fields without a 0.4 meaning are not converted: they come back as
 * `attention` (see migrate-attention.ts). Decisions are never migrated: a decision is the
 * consumer's judgement of exact bytes, and the consumer must issue a new one.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { VkitError } from '../errors.js';
import { m11Digest } from '../hash/index.js';
import { Findings } from './report.js';
import { retiredFields, type Attention } from './migrate-attention.js';
import {
  findKey,
  findTable,
  removeKey,
  renameKey,
  renameTable,
  scanToml,
  setValue,
  SpliceError,
  tomlString,
} from './splice.js';
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
  if (
    table(doc.data, 'format') ||
    table(doc.data, 'contract') ||
    table(doc.data, 'specification') ||
    Array.isArray(doc.data.claim)
  )
    return 'package';
  return 'other';
}

export interface Migrated {
  text: string;
  /** Human lines: what changed and why. */
  changes: string[];
  findings: Findings;
  /** 0.3 fields with no 0.4 meaning (or none migrate can be sure of): left in place for a human. */
  attention: Attention[];
  /** A package's specification, once its binding verified: the file it now binds. */
  boundTo?: string;
}

/**
 * One edit, applied to the text by splicing and to a copy of the data (`expect`), so the result
 * can be checked: the re-parsed text must equal the edited data exactly.
 */
interface Edit {
  apply(text: string): string;
  expect(data: Table): void;
  describe: string;
}

/** `key = value` (a string) in the table at `tablePath`. */
function setString(tablePath: FieldPath, key: string, value: string, describe: string): Edit {
  return {
    apply: (text) => setValue(text, tablePath, key, tomlString(value)),
    expect: (data) => {
      (at(data, tablePath) as Table)[key] = value;
    },
    describe,
  };
}

const at = (data: Table, path: FieldPath): unknown =>
  path.reduce<unknown>((t, p) => (t as Record<string | number, unknown>)[p], data);

function applyEdits(doc: Doc, edits: Edit[]): { text: string; changes: string[] } {
  let text = doc.text;
  const expected = structuredClone(doc.data) as Table;
  try {
    for (const e of edits) {
      text = e.apply(text);
      e.expect(expected);
    }
  } catch (error) {
    if (error instanceof SpliceError) throw new SpliceError(`${doc.file}: ${error.message}`);
    throw error;
  }
  const after = parseDoc(Buffer.from(text, 'utf8'), doc.file, doc.abs).data;
  if (!isDeepStrictEqual(after, expected))
    throw new VkitError(
      'ERR_ACCEPTANCE_MIGRATE',
      4,
      `internal: migrating ${doc.file} changed more than intended; nothing written`,
    );
  return { text, changes: edits.map((e) => e.describe) };
}

/**
 * An edit that only applies when the text is written the way the splicer understands: tried on
 * the text as it stands, else left to a human (an attention item saying what 0.4 wants).
 */
function tryEdit(doc: Doc, edit: Edit, path: FieldPath, wants: string, attention: Attention[]): Edit | undefined {
  try {
    edit.apply(doc.text);
    return edit;
  } catch (error) {
    if (!(error instanceof SpliceError)) throw error;
    attention.push({ file: doc.file, path, wants: `${wants} (migrate cannot splice it: ${error.message})` });
    return undefined;
  }
}

/** A 0.3 contract -> a 0.4 specification. */
export function migrateSpecification(doc: Doc): Migrated {
  const findings = new Findings(doc.file, doc);
  const attention: Attention[] = [];
  const document = table(doc.data, 'document');
  const edits: Edit[] = [];
  if (str(document, 'kind') !== 'specification')
    edits.push(
      setString(
        ['document'],
        'kind',
        'specification',
        `[document] kind ${JSON.stringify(document?.kind)} -> "specification"`,
      ),
    );
  if (str(document, 'protocol') !== PROTOCOL_ID)
    edits.push(
      setString(
        ['document'],
        'protocol',
        PROTOCOL_ID,
        `[document] protocol ${JSON.stringify(document?.protocol ?? null)} -> "${PROTOCOL_ID}"`,
      ),
    );
  edits.push(...partyEdits(doc, attention), ...floorDefaultEdits(doc, attention));
  reportUnmigratableHashes(doc, findings, new Set());
  attention.push(...retiredFields(doc, 'specification'));
  const { text, changes } = applyEdits(doc, edits);
  return { text, changes, findings, attention };
}

const ROLES = ['consumer', 'producer'] as const;

/**
 * 0.3 wrote the authority as `"Name / role"`; 0.4 names a party, whose `{name, role}` says the
 * role. The authority becomes the name when it names a party, and its role fills that party's
 * missing role. A role that disagrees, or a party with no role to take, is left to a human.
 */
function partyEdits(doc: Doc, attention: Attention[]): Edit[] {
  const parties = table(doc.data, 'parties');
  const authority = str(table(doc.data, 'acceptance'), 'authority');
  const split = authority === undefined ? undefined : /^(.+?)\s+\/\s+(.+)$/.exec(authority);
  const named = (role: (typeof ROLES)[number]) => {
    const p = parties?.[role];
    return typeof p === 'string' ? p : isTable(p) && typeof p.name === 'string' ? p.name : undefined;
  };
  const edits: Edit[] = [];
  const authorityParty = split ? ROLES.find((r) => named(r) === split[1]) : undefined;
  for (const role of ROLES) {
    const p = parties?.[role];
    const name = named(role);
    if (p === undefined || name === undefined) continue; // the 0.4 validator names what is missing
    const hasRole = isTable(p) && typeof p.role === 'string' && p.role.trim() !== '';
    const fromAuthority = authorityParty === role ? split![2]! : undefined;
    if (hasRole) {
      if (fromAuthority !== undefined && fromAuthority !== p.role)
        attention.push({
          file: doc.file,
          path: ['acceptance', 'authority'],
          wants: `0.4 names the deciding party by name only; the authority says role '${fromAuthority}' but [parties].${role} says '${String(p.role)}': decide which is right, then write authority = "${name}"`,
        });
      continue;
    }
    if (fromAuthority === undefined) {
      attention.push({
        file: doc.file,
        path: ['parties', role],
        wants: `0.4 wants [parties].${role} = { name, role }: add the ${role}'s role (0.3 did not require one)`,
      });
      continue;
    }
    const edit = partyRoleEdit(doc, role, name, fromAuthority);
    if (edit) {
      const accepted = tryEdit(
        doc,
        edit,
        ['parties', role],
        `0.4 wants [parties].${role} = { name, role }: add role = "${fromAuthority}"`,
        attention,
      );
      if (accepted) edits.push(accepted);
    } else
      attention.push({
        file: doc.file,
        path: ['parties', role],
        wants: `0.4 wants [parties].${role} = { name, role }: add role = "${fromAuthority}" (the authority's role)`,
      });
  }
  if (split && authorityParty !== undefined && !attention.some((a) => a.path.join('.') === 'acceptance.authority')) {
    edits.push(
      setString(
        ['acceptance'],
        'authority',
        split[1]!,
        `[acceptance] authority "${authority}" -> "${split[1]}" (0.4 names the party; its role is in [parties].${authorityParty})`,
      ),
    );
  } else if (split && authorityParty === undefined) {
    attention.push({
      file: doc.file,
      path: ['acceptance', 'authority'],
      wants: `0.4 wants the authority to be a party's name; "${split[1]}" (from "${authority}") names no party`,
    });
  }
  return edits;
}

/** Adds `role` to a party written as a `[parties.X]` table, an inline table, or a bare name string. */
function partyRoleEdit(doc: Doc, role: string, name: string, value: string): Edit | undefined {
  const p = (table(doc.data, 'parties') as Table)[role];
  const describe = `[parties] ${role} role "${value}" (from the 0.3 authority)`;
  const scan = scanToml(doc.text);
  if (findTable(scan, ['parties', role])) return setString(['parties', role], 'role', value, describe);
  const key = findKey(scan, ['parties', role]);
  if (!key) return undefined;
  const expect = (data: Table) => {
    const parties = data.parties as Table;
    parties[role] = typeof p === 'string' ? { name, role: value } : { ...(parties[role] as Table), role: value };
  };
  if (typeof p === 'string')
    return {
      apply: (text) => setValue(text, ['parties'], role, `{ name = ${tomlString(name)}, role = ${tomlString(value)} }`),
      expect,
      describe,
    };
  // An inline table keeps what it says: `, role = "..."` goes before its closing brace.
  const inline = /^(\{[\s\S]*?)\s*\}$/.exec(doc.text.slice(key.valueStart, key.valueEnd));
  if (!inline) return undefined;
  const literal = `${inline[1]}, role = ${tomlString(value)} }`;
  return { apply: (text) => setValue(text, ['parties'], role, literal), expect, describe };
}

/**
 * 0.3 documented `control_required` as false when absent; 0.4 wants every floor stated. Only that
 * default is written out: freshness and independence had no documented default, so an absent one
 * is left to the 0.4 validator (and a human).
 */
function floorDefaultEdits(doc: Doc, attention: Attention[]): Edit[] {
  const edits: Edit[] = [];
  tables(doc.data, 'requirement').forEach((r, i) => {
    const ev = r.evidence;
    if (!isTable(ev) || ev.control_required !== undefined) return;
    const path = ['requirement', i, 'evidence'];
    const edit: Edit = {
      apply: (text) => setValue(text, path, 'control_required', 'false'),
      expect: (data) => {
        (at(data, path) as Table).control_required = false;
      },
      describe: `requirement '${String(r.id)}' evidence.control_required = false (0.3's documented default, written out: 0.4 requires it)`,
    };
    const accepted = tryEdit(
      doc,
      edit,
      [...path, 'control_required'],
      "0.4 requires evidence.control_required: write `control_required = false` (0.3's default) or true",
      attention,
    );
    if (accepted) edits.push(accepted);
  });
  return edits;
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
  /**
   * Where the evidence inputs of a package without `[subject] root` were found (relative to
   * --root), or why none could be told; undefined when there is nothing to infer.
   */
  subjectRoot?: { root: string; because: string } | { unresolved: string };
}

const sha512 = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

const HEX = /^[0-9a-f]{128}$/;

/** Does a 0.3 contract hash (`contract:sha-512:`) bind these bytes? The bare form never does. */
function contractHashMatches(value: string, bytes: Buffer): boolean {
  const m = /^contract:sha-512:([0-9a-f]{128})$/.exec(value);
  return !!m && m[1] === sha512('contract:', bytes);
}

const BARE_BINDING = /^sha-512:/;

/** The construction a legacy record hash used, verified against the bytes; undefined when none matches. */
function legacyRecordMatch(value: string, bytes: Buffer): 'bare' | 'evidence-record' | undefined {
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

  // The binding to the specification.
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
  reportUnmigratableHashes(doc, findings, handled);
  attention.push(...retiredFields(doc, 'package'));
  if (findings.errors > 0) return { text: doc.text, changes: [], findings, attention };
  const { text, changes } = applyEdits(doc, edits);
  return { text, changes, findings, attention, ...(boundTo ? { boundTo } : {}) };
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

const short = (v: string) => (v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** Values in 0.3-only hash forms that no rule above re-expresses: reported, never guessed. */
function reportUnmigratableHashes(doc: Doc, findings: Findings, handled: Set<string>): void {
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
