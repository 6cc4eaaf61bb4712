/**
 * The watched-fail witness, pure part: describe a perturbation, apply a text replacement, pick the
 * observed failing line, and splice `[claim.self_verify.watched_fail]` into the package text. The
 * spliced text is re-parsed and must equal the old document plus exactly the new table; anything
 * else is a bug in the splice and nothing is written.
 */
import { isDeepStrictEqual } from 'node:util';
import { invalid, VkitError } from '../../../src/errors.js';
import { jsonId, sha256Id } from '../../../src/hash/index.js';
import type { SelfVerifyRun } from './selfverify.js';
import { findKey, findTable, insertTable, scanToml, setValue, SpliceError, tomlString } from './splice.js';
import { isTable, parseDoc, type Doc, type Table } from './toml.js';

export interface WatchedFail {
  of_command: string;
  perturbed: string;
  observed: string;
  date: string;
}

export type Perturbation =
  | { kind: 'patch' /** as given on the command line */; file: string; bytes: Buffer }
  | { kind: 'replace' /** relative to --root */; path: string; old: string; new: string };

const short = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Files a unified diff touches (`+++ b/path`, or `--- a/path` for a deletion). */
function patchFiles(bytes: Buffer): string[] {
  const out = new Set<string>();
  for (const m of bytes.toString('utf8').matchAll(/^(?:\+\+\+|---) (?:[ab]\/)?([^\t\n]+)/gm))
    if (m[1] !== '/dev/null') out.add(m[1]!.trim());
  return [...out];
}

/** `replaced "x" with "y" in src/a.js (sha256:...)`: what was broken, with a digest of exactly what. */
export function describePerturbation(p: Perturbation): string {
  if (p.kind === 'patch') {
    const files = patchFiles(p.bytes);
    return `applied patch ${p.file}${files.length ? ` to ${files.join(', ')}` : ''} (${sha256Id(p.bytes)})`;
  }
  return `replaced ${JSON.stringify(short(p.old))} with ${JSON.stringify(short(p.new))} in ${p.path} (${jsonId({ path: p.path, old: p.old, new: p.new })})`;
}

/** OLD must occur exactly once (overlapping occurrences count), so the perturbation is unambiguous. */
export function applyReplace(content: string, path: string, oldText: string, newText: string): string {
  if (oldText === '') throw invalid('ERR_ACCEPTANCE_WITNESS', '--old must not be empty', { path: '--old' });
  if (oldText === newText)
    throw invalid('ERR_ACCEPTANCE_WITNESS', '--old and --new are equal: that perturbs nothing', { path: '--new' });
  let count = 0;
  for (let at = content.indexOf(oldText); at >= 0; at = content.indexOf(oldText, at + 1)) count++;
  if (count !== 1)
    throw invalid(
      'ERR_ACCEPTANCE_WITNESS',
      `--old must occur exactly once in ${path}; it occurs ${count} times`,
      { file: path, path: '--old' },
      count ? 'Give a longer --old that is unique.' : 'Check the text and the file.',
    );
  const at = content.indexOf(oldText);
  return content.slice(0, at) + newText + content.slice(at + oldText.length);
}

/** The observed failure as one line of more than one word (the format requires it). */
export function observedLine(run: SelfVerifyRun): string {
  const s = run.output_summary.replace(/\s+/g, ' ').trim();
  return s.split(' ').length > 1 ? s : `${s || 'no output'} (${run.status})`;
}

const entries = (wf: WatchedFail): [string, string][] => [
  ['of_command', tomlString(wf.of_command)],
  ['perturbed', tomlString(wf.perturbed)],
  ['observed', tomlString(wf.observed)],
  ['date', tomlString(wf.date)],
];

const cannot = (doc: Doc, path: (string | number)[], message: string) =>
  invalid(
    'ERR_ACCEPTANCE_SPLICE',
    `cannot record the witness: ${message}`,
    { file: doc.file, path: path.join('.'), line: doc.line(path) },
    'Write [claim.self_verify] (and any watched_fail) as table headers, then run witness again.',
  );

/**
 * The package text with `[claim.self_verify.watched_fail]` of claim `index` set to `wf`: the
 * values of an existing table are replaced in place (its other keys and comments stay), else the
 * table is added after the claim's self_verify table.
 */
export function spliceWatchedFail(doc: Doc, index: number, wf: WatchedFail): string {
  const tablePath = ['claim', index, 'self_verify', 'watched_fail'];
  const scan = scanToml(doc.text);
  if (!findTable(scan, ['claim', index, 'self_verify']))
    throw cannot(
      doc,
      ['claim', index, 'self_verify'],
      "the claim's self_verify is not written as a [claim.self_verify] table",
    );
  let text: string;
  try {
    if (findTable(scan, tablePath)) {
      text = doc.text;
      for (const [k, v] of entries(wf)) text = setValue(text, tablePath, k, v);
    } else if (findKey(scan, tablePath)) {
      throw cannot(doc, tablePath, 'watched_fail is written inline');
    } else text = insertTable(doc.text, tablePath, entries(wf));
  } catch (error) {
    if (error instanceof SpliceError) throw cannot(doc, tablePath, error.message);
    throw error;
  }
  verifySplice(doc, text, index, wf);
  return text;
}

/** The new text must parse to the old data with only the watched_fail values changed. */
function verifySplice(doc: Doc, text: string, index: number, wf: WatchedFail): void {
  const after = parseDoc(Buffer.from(text, 'utf8'), doc.file, doc.abs).data;
  const expected = structuredClone(doc.data) as Table;
  const sv = (expected.claim as Table[])[index]!.self_verify as Table;
  sv.watched_fail = { ...(isTable(sv.watched_fail) ? sv.watched_fail : {}), ...wf };
  if (!isDeepStrictEqual(after, expected))
    throw new VkitError(
      'ERR_ACCEPTANCE_SPLICE',
      4,
      `internal: splicing watched_fail into ${doc.file} changed more than the table; nothing written`,
    );
}
