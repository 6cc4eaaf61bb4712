/**
 * What a migration leaves to a human. Migrate converts every 0.3 field that has a 0.4 meaning; a
 * field without one is never dropped or guessed silently: it stays in the output, listed (file,
 * line, the 0.3 field, what 0.4 wants) and marked with a `# TODO(vkit migrate)` comment above its
 * line. Two sources: a table of 0.3 fields known to have no 0.4 meaning, and whatever the 0.4
 * validators still report on the migrated text (so nothing they would refuse goes unmarked).
 * Pure: the caller runs the validators and hands their findings in.
 */
import { isDeepStrictEqual } from 'node:util';
import { VkitError } from '../../../src/errors.js';
import { REASON_FIELD } from './format-claim.js';
import type { Finding } from './report.js';
import { insertComments } from './splice.js';
import { isTable, parseDoc, pathText, tables, type Doc, type FieldPath, type Table } from './toml.js';

export interface Attention {
  file: string;
  /** Where the field is (paths of the input document; `contract` is found as `specification` once renamed). */
  path: FieldPath;
  /** What 0.4 wants instead. */
  wants: string;
}

/** An attention item placed in the written text: the 1-based line of its field (or of its TODO when the field has none). */
export interface PlacedAttention extends Attention {
  field: string;
  line: number;
}

export const TODO = 'TODO(vkit migrate)';

/** 0.3 keys that mean nothing in 0.4, wherever they appear (a claim's `band` migrate removes itself). */
const RETIRED_KEYS: Readonly<Record<string, string>> = {
  band: "0.4 has no bands (A0-A4): a claim's strength is its tier and weight; remove `band`",
  semantics:
    '0.4 has no `semantics`: the profile ([format] profile, [acceptance] profiles_required) says what is meant; remove it',
  illustrative: '0.4 has no `illustrative` marker: a document either binds or is not presented; remove it',
};

/** `claim[i].band`: the one place a band is removed rather than listed. */
const isClaimBand = (path: FieldPath): boolean =>
  path.length === 3 && path[0] === 'claim' && typeof path[1] === 'number' && path[2] === 'band';

/** `[contract]` keys that 0.4's `[specification]` binding keeps. */
const BINDING_KEYS = ['id', 'hash', 'requirements_total'];

/** The 0.3 fields of a document that have no 0.4 meaning. */
export function retiredFields(doc: Doc, kind: 'specification' | 'package'): Attention[] {
  const out: Attention[] = [];
  const add = (path: FieldPath, wants: string) => out.push({ file: doc.file, path, wants });
  const contract = doc.data.contract;
  if (kind === 'package' && isTable(contract)) {
    for (const k of Object.keys(contract)) {
      if (!BINDING_KEYS.includes(k))
        add(
          ['contract', k],
          `0.4 [specification] binds only ${BINDING_KEYS.join(', ')} (its hash fixes the specification's bytes); \`${k}\` has no 0.4 meaning: remove it`,
        );
    }
  }
  for (const { path, key } of keysNamed(doc.data, Object.keys(RETIRED_KEYS))) {
    if (path[0] === 'contract' && kind === 'package') continue; // listed above
    if (isClaimBand(path)) continue; // removed by migrate (migrate.ts)
    add(path, RETIRED_KEYS[key]!);
  }
  add0_3Tables(doc, kind, add);
  if (kind === 'package') {
    if (doc.data.filler !== undefined)
      add(
        ['filler'],
        "0.4 has no [[filler]]: the producer is the specification's [parties].producer; remove the table",
      );
    tables(doc.data, 'deviation').forEach((d, i) => {
      if (d.waiver_requested !== undefined)
        add(
          ['deviation', i, 'waiver_requested'],
          "0.4 deviations carry requirement, kind, reason (and statement, cause, impact, remedy); a waiver is the consumer's to grant in the decision's disposition: remove it",
        );
    });
    tables(doc.data, 'claim').forEach((c, i) => {
      const field = typeof c.status === 'string' ? REASON_FIELD[c.status] : undefined;
      if (field !== undefined && (typeof c[field] !== 'string' || c[field].trim() === ''))
        add(
          ['claim', i, 'status'],
          `0.4 needs \`${field}\` on a '${c.status}' claim (0.3 did not): say why nothing checks it yet`,
        );
    });
  }
  return out;
}

/**
 * 0.3 fields of fixed places that 0.4 does not define: the document's `minor` version, a
 * specification's `[subject]`, `[acceptance] phase`, a party's `contact`, and a package's
 * `[coverage] clauses_total`. Each is listed, never dropped: a human decides where what it said
 * belongs now.
 */
function add0_3Tables(
  doc: Doc,
  kind: 'specification' | 'package',
  add: (path: FieldPath, wants: string) => void,
): void {
  const data = doc.data;
  const document = data.document;
  if (isTable(document) && document.minor !== undefined)
    add(
      ['document', 'minor'],
      '0.4 has no minor version: the protocol id (acceptance-protocol/0.4) says which rules apply; remove `minor`',
    );
  if (kind === 'specification') {
    if (data.subject !== undefined)
      add(
        ['subject'],
        "0.4 specifications carry no [subject]: the package names the subject it delivers ([subject] in acceptance.toml); move what it says into a requirement's statement if it matters, then remove the table",
      );
    const acceptance = data.acceptance;
    if (isTable(acceptance) && acceptance.phase !== undefined)
      add(
        ['acceptance', 'phase'],
        '0.4 has no iteration phases (a provisional decision under a non-final contract): every 0.4 decision is final; remove `phase`',
      );
    const parties = data.parties;
    if (isTable(parties))
      for (const [role, p] of Object.entries(parties))
        if (isTable(p) && p.contact !== undefined)
          add(
            ['parties', role, 'contact'],
            `0.4 parties are { name, role }: \`contact\` has no 0.4 meaning; keep it in a comment or elsewhere, and remove it`,
          );
  }
  const coverage = data.coverage;
  if (kind === 'package' && isTable(coverage) && coverage.clauses_total !== undefined)
    add(
      ['coverage', 'clauses_total'],
      '0.4 [coverage] counts claims only (claims_total); the requirement count is [specification] requirements_total: remove `clauses_total`',
    );
}

/** Every key named one of `names`, with its path; iterative, so any nesting is safe. */
function keysNamed(data: Table, names: readonly string[]): { path: FieldPath; key: string }[] {
  const out: { path: FieldPath; key: string }[] = [];
  const stack: { value: unknown; path: FieldPath }[] = [{ value: data, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (Array.isArray(value)) value.forEach((v, i) => stack.push({ value: v, path: [...path, i] }));
    else if (isTable(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (names.includes(k)) out.push({ path: [...path, k], key: k });
        else stack.push({ value: v, path: [...path, k] });
      }
    }
  }
  return out.sort((a, b) => pathText(a.path).localeCompare(pathText(b.path)));
}

/**
 * The validators' errors (and undecidable findings) on a migrated document that no attention item
 * already covers. `summaries` are the verb's own "see above" lines, which repeat other findings.
 */
export function validatorAttention(
  file: string,
  findings: readonly Finding[],
  known: readonly Attention[],
  summaries: (f: Finding) => boolean = () => false,
): Attention[] {
  const covered = new Set(
    known.filter((a) => a.file === file).flatMap((a) => [pathText(a.path), pathText(renamedPath(a.path))]),
  );
  const seen = new Set<string>();
  const out: Attention[] = [];
  for (const f of findings) {
    if (f.file !== file || summaries(f)) continue;
    if (f.level !== 'ERROR' && !f.message.startsWith('INDETERMINATE:')) continue;
    if (f.path !== undefined && covered.has(f.path)) continue;
    const key = `${f.path ?? ''}\u0000${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      file,
      path: f.path === undefined ? [] : parsePathText(f.path),
      wants: `the 0.4 validator says: ${f.message}`,
    });
  }
  return out;
}

/** `claim[2].self_verify` -> ['claim', 2, 'self_verify'] (the inverse of pathText for simple keys). */
function parsePathText(text: string): FieldPath {
  const out: (string | number)[] = [];
  for (const m of text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/** The `[contract]` table is `[specification]` in the migrated text. */
const renamedPath = (path: FieldPath): FieldPath =>
  path[0] === 'contract' ? ['specification', ...path.slice(1)] : path;

/**
 * Places every item in the migrated text and writes a TODO comment above each field's line (items
 * without a field go to the top). The comments must leave the data untouched: checked by parsing.
 */
export function markAttention(doc: Doc, items: readonly Attention[]): { text: string; placed: PlacedAttention[] } {
  if (items.length === 0) return { text: doc.text, placed: [] };
  const located = items.map((a) => {
    const path = doc.data.contract === undefined ? renamedPath(a.path) : a.path;
    // An array of tables is found by its first header (`[[filler]]` for `filler`).
    const line = a.path.length === 0 ? undefined : (doc.line(path) ?? doc.line([...path, 0]));
    return { item: a, line: line ?? 0 };
  });
  const above = new Map<number, string[]>();
  for (const { item, line } of located) {
    const comments = above.get(line - 1) ?? [];
    comments.push(`${TODO}: ${pathText(item.path) || '(document)'}: ${item.wants}`);
    above.set(line - 1, comments);
  }
  const text = insertComments(doc.text, above);
  const after = parseDoc(Buffer.from(text, 'utf8'), doc.file, doc.abs).data;
  if (!isDeepStrictEqual(after, doc.data))
    throw new VkitError(
      'ERR_ACCEPTANCE_MIGRATE',
      4,
      `internal: marking ${doc.file} for attention changed its data; nothing written`,
    );
  // A field's line moves down by the comments written at or above it.
  const shift = (line: number) => [...above].reduce((n, [at, c]) => n + (at < line ? c.length : 0), 0);
  const placed = located.map(({ item, line }) => ({
    ...item,
    field: pathText(item.path) || '(document)',
    line: line > 0 ? line + shift(line) : 1,
  }));
  placed.sort((a, b) => a.line - b.line);
  return { text, placed };
}
