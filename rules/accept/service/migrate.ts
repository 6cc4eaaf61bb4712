/**
 * `vkit acceptance migrate FILE... [--write]`: converts 0.3 specifications (contracts) and packages
 * to 0.4. Without --write it prints what would change (a unified-diff-like listing) and writes
 * nothing. All or nothing: when any file cannot be migrated safely, no file is written.
 *
 * Specifications are migrated first, so a package given with its specification is bound to the
 * specification's migrated bytes. A package whose specification is not among the FILEs is matched
 * through `[contract] path` or `[spec] path` (relative to --root, else to the package's
 * directory); a 0.3 specification found that way is migrated with it (and said so).
 *
 * Each migrated text is then checked by the 0.4 validators (check-spec; check-package against the
 * specification it binds), and every field left for a human is marked `# TODO(vkit migrate)` in it
 * (lib/migrate-attention.ts). A specification is marked before any package binds its
 * bytes. Exit 0 only when every output validates with nothing left to a human; items needing
 * attention are still written (with --write) and make the exit 1.
 */
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { invalid, VkitError } from '../../../src/errors.js';
import {
  classify,
  LEGACY_RECORD,
  migratePackage,
  migrateSpecification,
  type Migrated,
  type SpecCandidate,
} from '../lib/migrate.js';
import {
  markAttention,
  TODO,
  validatorAttention,
  type Attention,
  type PlacedAttention,
} from '../lib/migrate-attention.js';
import { inferSubjectRoot } from '../lib/migrate-root.js';
import { checkPackage } from '../lib/recursive-checks.js';
import { checkSpecification } from '../lib/specification.js';
import { insideRoot } from '../lib/paths.js';
import { findingLine, type Finding, type Outcome } from '../lib/report.js';
import { lineDiff, SpliceError } from '../lib/splice.js';
import { parseDoc, readDoc, str, table, tables, type Doc } from '../lib/toml.js';
import { isVersion03 } from '../lib/versions.js';

export interface MigrateRequest {
  root: string;
  files: string[];
  write: boolean;
}

interface MigrateFileJson {
  file: string;
  kind: 'specification' | 'package';
  status: 'migrated' | 'unchanged' | 'error';
  /** Found through the package's path, not given on the command line. */
  implied: boolean;
  changes: string[];
  diff: { old_line: number; new_line: number; removed: string[]; added: string[] }[];
}

type Status = 'valid' | 'invalid' | 'indeterminate';

/** The 0.4 validator's verdict on one migrated text. */
interface ValidationJson {
  file: string;
  /** `check-spec`, or `check-package` against the specification it binds. */
  check: string;
  status: Status;
  errors: string[];
}

export interface MigrateJson {
  schema: 'vkit.acceptance-migrate/1';
  written: boolean;
  files: MigrateFileJson[];
  findings: Finding[];
  /** Fields left for a human, each marked with a TODO comment above its line in the output. */
  attention: { file: string; line: number; field: string; wants: string }[];
  validation: ValidationJson[];
}

interface Entry {
  doc: Doc;
  kind: 'specification' | 'package';
  implied: boolean;
  result?: Migrated;
  placed?: PlacedAttention[];
  validation?: ValidationJson;
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
    if (kind === 'other')
      throw invalid(
        'ERR_ACCEPTANCE_MIGRATE',
        `${file} is neither an acceptance specification (contract) nor a package`,
        { file, path: 'document.kind', line: doc.line(['document', 'kind']) },
      );
    entries.set(abs, { doc, kind, implied: false });
  }

  try {
    // Specifications first, marked and final: packages bind to their migrated bytes.
    for (const e of entries.values())
      if (e.kind === 'specification' && isVersion03(e.doc)) await finishSpecification(e, migrateSpecification(e.doc));
    for (const e of [...entries.values()]) {
      if (e.kind !== 'package' || !isVersion03(e.doc)) continue;
      const specs = await specCandidates(req.root, e.doc, entries);
      const records = await readRecords(req.root, e.doc);
      const subjectRoot = await inferSubjectRoot(req.root, e.doc);
      const ctx = { specs, record: (p: string) => records.get(p) ?? [], ...(subjectRoot ? { subjectRoot } : {}) };
      await finishPackage(req.root, e, migratePackage(e.doc, ctx), entries);
    }
  } catch (error) {
    if (error instanceof SpliceError)
      throw invalid(
        'ERR_ACCEPTANCE_MIGRATE',
        `cannot splice: ${error.message}`,
        {},
        'Edit that part by hand (the migration needs table headers it can find).',
      );
    throw error;
  }

  const findings: Finding[] = [];
  const files: MigrateFileJson[] = [];
  const lines: string[] = [];
  const attention: PlacedAttention[] = [];
  const validation: ValidationJson[] = [];
  for (const e of entries.values()) {
    const r = e.result;
    if (!r) {
      files.push({ file: e.doc.file, kind: e.kind, status: 'unchanged', implied: e.implied, changes: [], diff: [] });
      lines.push(`UNCHANGED ${e.doc.file}: already 0.4, unchanged`);
      continue;
    }
    // One push per finding: a document may hold 100,000 (spreading them as arguments overflows).
    for (const f of r.findings.list) findings.push(f);
    attention.push(...(e.placed ?? []));
    if (e.validation) validation.push(e.validation);
    if (r.findings.errors > 0) {
      files.push({ file: e.doc.file, kind: e.kind, status: 'error', implied: e.implied, changes: [], diff: [] });
      lines.push(`CANNOT-MIGRATE ${e.doc.file}:`);
      for (const f of r.findings.list) lines.push(`  ${findingLine(f)}`);
      continue;
    }
    const hunks = lineDiff(e.doc.text.split('\n'), r.text.split('\n'));
    files.push({
      file: e.doc.file,
      kind: e.kind,
      status: 'migrated',
      implied: e.implied,
      changes: r.changes,
      diff: hunks.map((h) => ({ old_line: h.oldLine, new_line: h.newLine, removed: h.removed, added: h.added })),
    });
    lines.push(
      `MIGRATE ${e.doc.file}: 0.3 ${e.kind === 'specification' ? 'contract' : 'package'} -> 0.4 ${e.kind}${e.implied ? " (the package's specification, found through its path)" : ''}`,
    );
    lines.push(...r.changes.map((c) => `  ${c}`));
    for (const f of r.findings.list) lines.push(`  ${findingLine(f)}`);
    lines.push(...(e.placed ?? []).map((a) => `  NEEDS-ATTENTION ${a.file}:${a.line} ${a.field}: ${a.wants}`));
    lines.push(`--- ${e.doc.file} (0.3)`, `+++ ${e.doc.file} (0.4)`);
    for (const h of hunks) {
      lines.push(
        `@@ -${h.oldLine},${h.removed.length} +${h.newLine},${h.added.length} @@`,
        ...h.removed.map((l) => `-${l.replace(/\r$/, '')}`),
        ...h.added.map((l) => `+${l.replace(/\r$/, '')}`),
      );
    }
  }

  const failed = files.some((f) => f.status === 'error');
  const toWrite = [...entries.values()].filter((e) => e.result && e.result.findings.errors === 0);
  if (!failed) {
    for (const v of validation)
      lines.push(
        `VALIDATE ${v.file}: ${v.status.toUpperCase()} (0.4 ${v.check} on the migrated text)`,
        ...v.errors.slice(0, 10).map((m) => `  ${m}`),
        ...(v.errors.length > 10 ? [`  (and ${v.errors.length - 10} more)`] : []),
      );
    if (attention.length > 0) {
      lines.push(
        `migrated with ${attention.length} item${attention.length === 1 ? '' : 's'} needing attention: each is marked \`# ${TODO}\` above its line; fix them by hand, then check the documents with vkit acceptance check-spec / check-package`,
      );
      for (const e of entries.values()) {
        if (e.kind === 'specification' && e.placed?.length && boundBy(e, entries).length)
          lines.push(
            `after editing ${e.doc.file}, rebind ${boundBy(e, entries).join(', ')}: its [specification] hash covers the text migrate writes (\`vkit acceptance digest --domain specification ${e.doc.file}\` prints the new one)`,
          );
      }
    }
  }
  let written = false;
  if (failed)
    lines.push(
      `nothing written: ${files.filter((f) => f.status === 'error').length} file(s) cannot be migrated safely`,
    );
  else if (toWrite.length === 0) lines.push('nothing to migrate');
  else if (!req.write) lines.push(`preview only: nothing written; add --write to migrate ${toWrite.length} file(s)`);
  else {
    for (const e of toWrite) await ensureUnchanged(e.doc);
    for (const e of toWrite) await writeAtomically(e.doc.abs, e.result!.text);
    written = true;
    lines.push(`wrote ${toWrite.map((e) => e.doc.file).join(', ')}`);
    if (toWrite.some((e) => e.kind === 'package'))
      lines.push('decisions bound to the 0.3 documents are not migrated: the consumer must issue new ones');
  }
  const clean = !failed && attention.length === 0 && validation.every((v) => v.status === 'valid');
  const json: MigrateJson = {
    schema: 'vkit.acceptance-migrate/1',
    written,
    files,
    findings,
    attention: attention.map((a) => ({ file: a.file, line: a.line, field: a.field, wants: a.wants })),
    validation,
  };
  return { exitCode: clean ? 0 : 1, lines, json };
}

/** Packages in this run bound to the specification (they hash its migrated text). */
function boundBy(spec: Entry, entries: Map<string, Entry>): string[] {
  return [...entries.values()]
    .filter((e) => e.result?.boundTo === spec.doc.file && e.result.findings.errors === 0)
    .map((e) => e.doc.file);
}

const statusOf = (errors: number, indeterminate: number): Status =>
  errors > 0 ? 'invalid' : indeterminate > 0 ? 'indeterminate' : 'valid';

/** The migrated text as the document it will be on disk. */
const migratedDoc = (e: Entry, text: string): Doc => parseDoc(Buffer.from(text, 'utf8'), e.doc.file, e.doc.abs);

/** A validator's verdict on one text, and the findings it reported about that file. */
interface Checked {
  validation: ValidationJson;
  findings: Finding[];
}

/** What a validator's refusal to judge at all (a thrown usage or version error) means for the migration. */
function refused(file: string, check: string, error: unknown): Checked {
  if (!(error instanceof VkitError)) throw error;
  const message = `the 0.4 validator cannot check the migrated text: ${error.message}`;
  return {
    validation: { file, check, status: 'invalid', errors: [message] },
    findings: [{ level: 'ERROR', file, message }],
  };
}

function checkSpecText(e: Entry, text: string): Checked {
  try {
    const f = checkSpecification(migratedDoc(e, text)).findings;
    return {
      validation: {
        file: e.doc.file,
        check: 'check-spec',
        status: statusOf(f.errors, f.indeterminateReasons.length),
        errors: f.list.filter((x) => x.level === 'ERROR').map(findingLine),
      },
      findings: f.list,
    };
  } catch (error) {
    return refused(e.doc.file, 'check-spec', error);
  }
}

async function checkPackageText(root: string, e: Entry, text: string, spec: Entry | undefined): Promise<Checked> {
  const check = spec ? `check-package against ${spec.doc.file}` : 'check-package';
  try {
    if (!spec?.result)
      throw invalid('ERR_ACCEPTANCE_MIGRATE', 'the package binds no specification migrated in this run');
    const r = await checkPackage(migratedDoc(e, text), migratedDoc(spec, spec.result.text), {
      root,
      stores: {},
      trees: {},
    });
    const own = r.findings.list.filter((f) => f.file === e.doc.file);
    return {
      validation: {
        file: e.doc.file,
        check,
        status: r.status,
        errors: own.filter((f) => f.level === 'ERROR').map(findingLine),
      },
      findings: own,
    };
  } catch (error) {
    return refused(e.doc.file, check, error);
  }
}

/**
 * Marks what the validators still report on the migrated text (beside the known 0.3 fields), then
 * validates the marked text again: the verdict printed is the one on the exact bytes written.
 */
async function finish(
  e: Entry,
  result: Migrated,
  validate: (text: string) => Checked | Promise<Checked>,
  summaries?: (f: Finding) => boolean,
): Promise<void> {
  e.result = result;
  if (result.findings.errors > 0) return;
  const first = await validate(result.text);
  const items: Attention[] = [
    ...result.attention,
    ...validatorAttention(e.doc.file, first.findings, result.attention, summaries),
  ];
  const marked = markAttention(migratedDoc(e, result.text), items);
  result.text = marked.text;
  e.placed = marked.placed;
  e.validation = marked.placed.length === 0 ? first.validation : (await validate(marked.text)).validation;
}

function finishSpecification(e: Entry, result: Migrated): Promise<void> {
  return finish(e, result, (text) => checkSpecText(e, text));
}

function finishPackage(root: string, e: Entry, result: Migrated, entries: Map<string, Entry>): Promise<void> {
  const spec = [...entries.values()].find((s) => s.kind === 'specification' && s.doc.file === result.boundTo);
  // "The format validator fails (N errors above)" and "the specification is invalid" repeat
  // findings listed on their own; a problem of the specification is marked in the specification.
  const summary = (f: Finding) =>
    f.path === undefined && /^the (format validator fails|specification .* is invalid) \(/.test(f.message);
  return finish(e, result, (text) => checkPackageText(root, e, text, spec), summary);
}

/** Specifications the package may be bound to: the FILEs, then its `[contract] path` / `[spec] path`. */
async function specCandidates(root: string, pkg: Doc, entries: Map<string, Entry>): Promise<SpecCandidate[]> {
  const candidate = (e: Entry): SpecCandidate => ({
    file: e.doc.file,
    oldBytes: e.doc.bytes,
    id: str(table(e.doc.data, 'document'), 'id'),
    newText: e.result?.text,
  });
  const fromFiles = [...entries.values()].filter((e) => e.kind === 'specification').map(candidate);
  const out = [...fromFiles];
  const named = [str(table(pkg.data, 'contract'), 'path'), str(table(pkg.data, 'spec'), 'path')].filter(
    (p): p is string => p !== undefined,
  );
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
      if (isVersion03(doc)) await finishSpecification(e, migrateSpecification(doc));
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
  if (!now?.equals(doc.bytes))
    throw invalid(
      'ERR_ACCEPTANCE_MIGRATE',
      `${doc.file} changed while migrating; nothing written`,
      { file: doc.file },
      'Run migrate again.',
    );
}

async function writeAtomically(abs: string, text: string): Promise<void> {
  const tmp = `${abs}.vkit-migrate-${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: (await stat(abs)).mode });
  await rename(tmp, abs);
}
