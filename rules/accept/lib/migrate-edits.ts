/**
 * How a migration changes a document: each change is an `Edit`, spliced into the text (comments
 * and layout stay) and applied to a copy of the data, so the re-parsed result can be checked to
 * have changed exactly what was intended. Also `Migrated`, what a migration returns.
 */
import { isDeepStrictEqual } from 'node:util';
import { VkitError } from '../../../src/errors.js';
import type { Attention } from './migrate-attention.js';
import type { Findings } from './report.js';
import { setValue, SpliceError, tomlString } from './splice.js';
import { parseDoc, type Doc, type FieldPath, type Table } from './toml.js';

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
export interface Edit {
  apply(text: string): string;
  expect(data: Table): void;
  describe: string;
}

/** `key = value` (a string) in the table at `tablePath`. */
export function setString(tablePath: FieldPath, key: string, value: string, describe: string): Edit {
  return {
    apply: (text) => setValue(text, tablePath, key, tomlString(value)),
    expect: (data) => {
      (at(data, tablePath) as Table)[key] = value;
    },
    describe,
  };
}

export const at = (data: Table, path: FieldPath): unknown =>
  path.reduce<unknown>((t, p) => (t as Record<string | number, unknown>)[p], data);

export function applyEdits(doc: Doc, edits: Edit[]): { text: string; changes: string[] } {
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
export function tryEdit(
  doc: Doc,
  edit: Edit,
  path: FieldPath,
  wants: string,
  attention: Attention[],
): Edit | undefined {
  try {
    edit.apply(doc.text);
    return edit;
  } catch (error) {
    if (!(error instanceof SpliceError)) throw error;
    attention.push({ file: doc.file, path, wants: `${wants} (migrate cannot splice it: ${error.message})` });
    return undefined;
  }
}
