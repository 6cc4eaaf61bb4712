/**
 * `vkit acceptance migrate FILE... [--write]`: converts 0.3 specifications (contracts) and packages
 * to 0.4. Without --write it prints what would change (a unified-diff-like listing) and writes
 * nothing. All or nothing: when any file cannot be migrated safely, no file is written.
 *
 * Specifications are migrated first, so a package given with its specification is bound to the
 * specification's migrated bytes. A package whose specification is not among the FILEs is matched
 * through `[contract] path` or `[spec] path` (relative to --root, else to the package's
 * directory); a 0.3 specification found that way is migrated with it (and said so).
 */
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { invalid } from '../../errors.js';
import { classify, LEGACY_RECORD, migratePackage, migrateSpecification, type Migrated, type SpecCandidate } from '../../acceptance/migrate.js';
import { insideRoot } from '../../acceptance/paths.js';
import { findingLine, type Finding, type Outcome } from '../../acceptance/report.js';
import { lineDiff, SpliceError } from '../../acceptance/splice.js';
import { readDoc, str, table, tables, type Doc } from '../../acceptance/toml.js';
import { isVersion03 } from '../../acceptance/versions.js';

export interface MigrateRequest {
  root: string;
  files: string[];
  write: boolean;
}

export interface MigrateFileJson {
  file: string;
  kind: 'specification' | 'package';
  status: 'migrated' | 'unchanged' | 'error';
  /** Found through the package's path, not given on the command line. */
  implied: boolean;
  changes: string[];
  diff: { old_line: number; new_line: number; removed: string[]; added: string[] }[];
}

export interface MigrateJson {
  schema: 'vkit.acceptance-migrate/1';
  written: boolean;
  files: MigrateFileJson[];
  findings: Finding[];
}

interface Entry {
  doc: Doc;
  kind: 'specification' | 'package';
  implied: boolean;
  result?: Migrated;
}

export async function acceptanceMigrate(req: MigrateRequest): Promise<Outcome<MigrateJson>> {
  if (req.files.length === 0) throw invalid('ERR_USAGE', 'Expected at least one FILE', { path: 'FILE' });
  const entries = new Map<string, Entry>();
  for (const file of req.files) {
    const abs = resolve(req.root, file);
    if (entries.has(abs)) continue;
    const doc = await readDoc(abs, file);
    const kind = classify(doc);
    if (kind === 'decision') {
      throw invalid(
        'ERR_ACCEPTANCE_MIGRATE_DECISION',
        `${file} is ${isVersion03(doc) ? 'a 0.3' : 'a'} decision: migrate never rewrites a decision. A decision is the consumer's judgement of exact bytes; after migrating the specification and package, the consumer must issue a new decision (e.g. \`vkit acceptance decide\`).`,
        { file, path: 'document.kind', line: doc.line(['document', 'kind']) },
        'Leave decisions out of the FILEs; nothing was written.',
      );
    }
    if (kind === 'other') throw invalid('ERR_ACCEPTANCE_MIGRATE', `${file} is neither an acceptance specification (contract) nor a package`, { file, path: 'document.kind', line: doc.line(['document', 'kind']) });
    entries.set(abs, { doc, kind, implied: false });
  }

  try {
    // Specifications first: packages bind to their migrated bytes.
    for (const e of entries.values()) if (e.kind === 'specification' && isVersion03(e.doc)) e.result = migrateSpecification(e.doc);
    for (const e of [...entries.values()]) {
      if (e.kind !== 'package' || !isVersion03(e.doc)) continue;
      const specs = await specCandidates(req.root, e.doc, entries);
      const records = await readRecords(req.root, e.doc);
      e.result = migratePackage(e.doc, { specs, record: (p) => records.get(p) ?? [] });
    }
  } catch (error) {
    if (error instanceof SpliceError) throw invalid('ERR_ACCEPTANCE_MIGRATE', `cannot splice: ${error.message}`, {}, 'Edit that part by hand (the migration needs table headers it can find).');
    throw error;
  }

  const findings: Finding[] = [];
  const files: MigrateFileJson[] = [];
  const lines: string[] = [];
  for (const e of entries.values()) {
    const r = e.result;
    if (!r) {
      files.push({ file: e.doc.file, kind: e.kind, status: 'unchanged', implied: e.implied, changes: [], diff: [] });
      lines.push(`UNCHANGED ${e.doc.file}: already 0.4, unchanged`);
      continue;
    }
    findings.push(...r.findings.list);
    if (r.findings.errors > 0) {
      files.push({ file: e.doc.file, kind: e.kind, status: 'error', implied: e.implied, changes: [], diff: [] });
      lines.push(`CANNOT-MIGRATE ${e.doc.file}:`, ...r.findings.list.map((f) => '  ' + findingLine(f)));
      continue;
    }
    const hunks = lineDiff(e.doc.text.split('\n'), r.text.split('\n'));
    files.push({ file: e.doc.file, kind: e.kind, status: 'migrated', implied: e.implied, changes: r.changes, diff: hunks.map((h) => ({ old_line: h.oldLine, new_line: h.newLine, removed: h.removed, added: h.added })) });
    lines.push(`MIGRATE ${e.doc.file}: 0.3 ${e.kind === 'specification' ? 'contract' : 'package'} -> 0.4 ${e.kind}${e.implied ? ' (the package\'s specification, found through its path)' : ''}`);
    lines.push(...r.changes.map((c) => `  ${c}`), ...r.findings.list.map((f) => '  ' + findingLine(f)));
    lines.push(`--- ${e.doc.file} (0.3)`, `+++ ${e.doc.file} (0.4)`);
    for (const h of hunks) {
      lines.push(`@@ -${h.oldLine},${h.removed.length} +${h.newLine},${h.added.length} @@`, ...h.removed.map((l) => `-${l.replace(/\r$/, '')}`), ...h.added.map((l) => `+${l.replace(/\r$/, '')}`));
    }
  }

  const failed = files.some((f) => f.status === 'error');
  const toWrite = [...entries.values()].filter((e) => e.result && e.result.findings.errors === 0);
  let written = false;
  if (failed) lines.push(`nothing written: ${files.filter((f) => f.status === 'error').length} file(s) cannot be migrated safely`);
  else if (toWrite.length === 0) lines.push('nothing to migrate');
  else if (!req.write) lines.push(`preview only: nothing written; add --write to migrate ${toWrite.length} file(s)`);
  else {
    for (const e of toWrite) await ensureUnchanged(e.doc);
    for (const e of toWrite) await writeAtomically(e.doc.abs, e.result!.text);
    written = true;
    lines.push(`wrote ${toWrite.map((e) => e.doc.file).join(', ')}`);
    if (toWrite.some((e) => e.kind === 'package')) lines.push('decisions bound to the 0.3 documents are not migrated: the consumer must issue new ones');
  }
  return { exitCode: failed ? 1 : 0, lines, json: { schema: 'vkit.acceptance-migrate/1', written, files, findings } };
}

/** Specifications the package may be bound to: the FILEs, then its `[contract] path` / `[spec] path`. */
async function specCandidates(root: string, pkg: Doc, entries: Map<string, Entry>): Promise<SpecCandidate[]> {
  const candidate = (e: Entry): SpecCandidate => ({ file: e.doc.file, oldBytes: e.doc.bytes, id: str(table(e.doc.data, 'document'), 'id'), newText: e.result?.text });
  const fromFiles = [...entries.values()].filter((e) => e.kind === 'specification').map(candidate);
  const out = [...fromFiles];
  const named = [str(table(pkg.data, 'contract'), 'path'), str(table(pkg.data, 'spec'), 'path')].filter((p): p is string => p !== undefined);
  for (const rel of named) {
    for (const abs of [insideRoot(root, rel), insideRoot(dirname(pkg.abs), rel)]) {
      if (!abs || entries.has(abs)) continue;
      if (!(await stat(abs).catch(() => undefined))?.isFile()) continue;
      let doc: Doc;
      try {
        doc = await readDoc(abs, relative(root, abs) || rel);
      } catch {
        continue; // a human spec (Markdown) or an unreadable file is not a specification document
      }
      if (classify(doc) !== 'specification') continue;
      const e: Entry = { doc, kind: 'specification', implied: true };
      if (isVersion03(doc)) e.result = migrateSpecification(doc);
      entries.set(abs, e);
      out.push(candidate(e));
    }
  }
  return out;
}

/** Bytes of each record the package names with a legacy hash, read relative to --root and to the package's directory. */
async function readRecords(root: string, pkg: Doc): Promise<Map<string, Buffer[]>> {
  const out = new Map<string, Buffer[]>();
  for (const claim of tables(pkg.data, 'claim')) {
    for (const ev of tables(claim, 'evidence')) {
      const rel = str(ev, 'record');
      if (rel === undefined || out.has(rel) || !LEGACY_RECORD.test(String(ev.record_hash ?? ''))) continue;
      const found: Buffer[] = [];
      for (const abs of new Set([insideRoot(root, rel), insideRoot(dirname(pkg.abs), rel)])) {
        const bytes = abs ? await readFile(abs).catch(() => undefined) : undefined;
        if (bytes) found.push(bytes);
      }
      out.set(rel, found);
    }
  }
  return out;
}

async function ensureUnchanged(doc: Doc): Promise<void> {
  const now = await readFile(doc.abs).catch(() => undefined);
  if (!now?.equals(doc.bytes)) throw invalid('ERR_ACCEPTANCE_MIGRATE', `${doc.file} changed while migrating; nothing written`, { file: doc.file }, 'Run migrate again.');
}

async function writeAtomically(abs: string, text: string): Promise<void> {
  const tmp = `${abs}.vkit-migrate-${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: (await stat(abs)).mode });
  await rename(tmp, abs);
}
