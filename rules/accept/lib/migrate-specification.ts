/**
 * Migrating a 0.3 contract to a 0.4 specification: kind and protocol, the parties' roles (from the
 * 0.3 `"Name / role"` authority) and the one floor whose 0.3 default was documented.
 */
import { Findings } from './report.js';
import { retiredFields, type Attention } from './migrate-attention.js';
import { applyEdits, at, type Edit, type Migrated, setString, tryEdit } from './migrate-edits.js';
import { reportUnmigratableHashes } from './migrate-hashes.js';
import { findKey, findTable, scanToml, setValue, tomlString } from './splice.js';
import { isTable, str, table, tables, type Doc, type Table } from './toml.js';
import { PROTOCOL_ID } from './versions.js';

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
