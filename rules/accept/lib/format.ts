/**
 * The format validator (acceptance-details.md §2): is an `acceptance.toml` well formed, do its
 * records hold the bytes they name, and are its weights honestly granted? It reads files (records,
 * inputs, cited packages) but never runs anything. Findings carry field paths, so every message
 * points at a line. A validator PASS says the document is sound, never that anything is accepted.
 *
 * Paths: records, `[spec] path` and cited packages are relative to the package file's directory
 * (as in the reference tools); evidence `inputs` are relative to the subject root (`[subject] root`,
 * relative to --root, default the package file's directory). Every one must stay inside --root,
 * symbolic links included; absolute or escaping paths are errors.
 *
 * This module runs the checks in order; the checks of each table live in their own format-*.ts.
 */
import { dirname } from 'node:path';
import { m11Digest } from '../../../src/hash/index.js';
import { evidenceFiles, FileReads } from './file-reads.js';
import { checkClaim } from './format-claim.js';
import { type Ctx, unknownKeys } from './format-context.js';
import { checkCoverage, checkFormat, checkSpec } from './format-document.js';
import { KEYS } from './format-keys.js';
import { checkSubject } from './format-subject.js';
import { datesOutside } from './keys.js';
import type { ClaimView, FormatOptions, FormatResult } from './model.js';
import { Findings, type Verdict } from './report.js';
import { isTable, tables, type Doc } from './toml.js';
import { refuseVersion03 } from './versions.js';

/** Fields (paths without array indices) that take a TOML date or time as well as its text. */
const DATE_FIELDS = ['format.generated_at', 'claim.self_verify.watched_fail.date'];

/** `opts.files` shares the reads of the command this validation is part of; else it reads afresh. */
export async function validateFormat(doc: Doc, opts: FormatOptions): Promise<FormatResult> {
  return validateAt(doc, opts, opts.files ?? new FileReads(), [m11Digest('manifest', doc.bytes)]);
}

async function validateAt(
  doc: Doc,
  opts: FormatOptions,
  files: FileReads,
  stack: readonly string[],
): Promise<FormatResult> {
  refuseVersion03(doc);
  const f = new Findings(doc.file, doc);
  const ctx: Ctx = {
    doc,
    opts,
    f,
    pkgDir: dirname(doc.abs),
    stack,
    files,
    placed: new Map(),
    validateCited: (cited, citedStack) => validateAt(cited, opts, files, citedStack),
  };
  const d = doc.data;
  unknownKeys(ctx, d, [], KEYS.top, 'the document');
  datesOutside(doc, f, DATE_FIELDS);
  if (isTable(d.specification))
    unknownKeys(ctx, d.specification, ['specification'], KEYS.specification, '[specification]');
  tables(d, 'inventory').forEach((inv, i) => {
    unknownKeys(ctx, inv, ['inventory', i], KEYS.inventory, `[[inventory]] ${i}`);
    tables(inv, 'element').forEach((el, j) =>
      unknownKeys(
        ctx,
        el,
        ['inventory', i, 'element', j],
        KEYS.inventory_element,
        `[[inventory.element]] ${j} of [[inventory]] ${i}`,
      ),
    );
  });
  checkFormat(ctx);
  const prospectiveMode = checkSubject(ctx);
  files.prefetch(evidenceFiles(d, ctx.pkgDir, ctx.subjectRoot, opts.root));
  await checkSpec(ctx);

  const rawClaims = d.claim;
  if (rawClaims !== undefined && !Array.isArray(rawClaims))
    f.error('claim must be an array of [[claim]] tables', ['claim']);
  const list = Array.isArray(rawClaims) ? rawClaims : [];
  const seen = new Set<string>();
  const claims: ClaimView[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (!isTable(c)) {
      f.error(`claim[${i}] must be a table`, ['claim', i]);
      continue;
    }
    claims.push(await checkClaim(ctx, c, i, seen));
  }

  if (list.length === 0)
    f.error(
      'no [[claim]] tables: a document must make at least one claim',
      rawClaims === undefined ? undefined : ['claim'],
    );
  checkCoverage(ctx, list.length);
  ctx.profile?.rules.check?.(doc, f);

  const evidenced = claims.some((c) => c.status === 'evidenced' || c.status === 'partial');
  const prospective = prospectiveMode || !evidenced;
  let verdict: Verdict;
  if (f.errors > 0) verdict = 'FAIL';
  else if (f.indeterminateReasons.length > 0) verdict = 'INDETERMINATE';
  else if (claims.length > 0 && claims.every((c) => c.status === 'not-applicable')) {
    f.indeterminate('every claim is not-applicable: the document claims nothing that could be checked');
    verdict = 'INDETERMINATE';
  } else verdict = prospective ? 'PASS-PROSPECTIVE' : 'PASS';
  return { doc, verdict, findings: f, claims, prospective };
}
