/**
 * `vkit acceptance check-spec S`, `check-package P --spec S` and `coverage P --spec S`: read the
 * documents (relative to --root), run the pure checks, and say what was found. A document that
 * cannot be read or parsed, or a 0.3 document, is exit 2: nothing is judged from it.
 *
 * Exit codes: check-spec and check-package 0 valid, 1 invalid, 3 indeterminate; coverage 0 only
 * when acceptable, which also needs the package check to be valid (coverage of a package that is
 * not a valid answer to the specification is never acceptable), else 1. Both package verbs print
 * the one coverage the package check computed.
 */
import { isAbsolute, resolve } from 'node:path';
import { renderCoverage } from '../lib/coverage.js';
import type { CoverageResult, DecisionContext, PackageCheck, RequirementView, StackReport } from '../lib/model.js';
import { checkPackage } from '../lib/recursive-checks.js';
import { findingLine, type Finding, type Outcome } from '../lib/report.js';
import { checkSpecification } from '../lib/specification.js';
import { readDoc, str, table, type Doc } from '../lib/toml.js';

export interface PackageRequest {
  /** Absolute --root: file arguments and every path inside the documents are relative to it. */
  root: string;
  /** Acceptor name -> absolute directory (`--store NAME=DIR`). */
  stores?: Record<string, string>;
  /** Commit -> absolute directory holding its bytes (`--tree COMMIT=DIR`). */
  trees?: Record<string, string>;
}

type Status = 'valid' | 'invalid' | 'indeterminate';

export interface SpecJson {
  schema: 'vkit.acceptance-check-spec/1';
  file: string;
  status: Status;
  id?: string;
  binding: boolean;
  requirements: RequirementView[];
  findings: Finding[];
}

export interface PackageJson {
  schema: 'vkit.acceptance-check-package/1';
  file: string;
  spec: string;
  status: Status;
  format: string;
  binding: boolean;
  coverage: CoverageResult;
  stack?: StackReport;
  findings: Finding[];
}

export interface CoverageJson {
  schema: 'vkit.acceptance-coverage/1';
  file: string;
  spec: string;
  /** The package check's status: coverage is acceptable only over a valid package. */
  status: Status;
  coverage: CoverageResult;
  findings: Finding[];
}

const EXIT: Record<Status, number> = { valid: 0, invalid: 1, indeterminate: 3 };
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const read = (root: string, file: string): Promise<Doc> => readDoc(isAbsolute(file) ? file : resolve(root, file), file);

function statusOf(errors: number, indeterminate: number): Status {
  return errors > 0 ? 'invalid' : indeterminate > 0 ? 'indeterminate' : 'valid';
}

/** `INVALID acceptance.toml against spec.toml (2 errors, 1 warning)`: check-package's last line, render's headline. */
export function packageVerdictLine(r: PackageCheck, pkgFile: string, specFile: string): string {
  return verdictLine(r.status, `${pkgFile} against ${specFile}`, r.findings.errors, r.findings.warnings, '');
}

function verdictLine(status: Status, subject: string, errors: number, warnings: number, detail: string): string {
  const counts = errors || warnings ? ` (${plural(errors, 'error')}, ${plural(warnings, 'warning')})` : '';
  return `${status.toUpperCase()} ${subject}${counts}${detail ? `: ${detail}` : ''}`;
}

export async function checkSpecFile(file: string, req: PackageRequest): Promise<Outcome<SpecJson>> {
  const doc = await read(req.root, file);
  const check = checkSpecification(doc);
  const f = check.findings;
  const status = statusOf(f.errors, f.indeterminateReasons.length);
  const id = str(table(doc.data, 'document'), 'id');
  const mandatory = check.requirements.filter((r) => r.mandatory).length;
  const detail =
    status === 'valid'
      ? `specification '${id}', ${plural(check.requirements.length, 'requirement')} (${mandatory} mandatory), ${check.binding ? 'binding' : 'not binding'}`
      : '';
  const lines = [...f.list.map(findingLine), verdictLine(status, file, f.errors, f.warnings, detail)];
  return {
    exitCode: EXIT[status],
    lines,
    json: {
      schema: 'vkit.acceptance-check-spec/1',
      file,
      status,
      ...(id ? { id } : {}),
      binding: check.binding,
      requirements: check.requirements,
      findings: f.list,
    },
  };
}

async function runPackage(pkgFile: string, specFile: string, req: PackageRequest): Promise<PackageCheck> {
  const spec = await read(req.root, specFile);
  const pkg = await read(req.root, pkgFile);
  const ctx: DecisionContext = { root: req.root, stores: req.stores ?? {}, trees: req.trees ?? {} };
  return checkPackage(pkg, spec, ctx);
}

export async function checkPackageFiles(
  pkgFile: string,
  specFile: string,
  req: PackageRequest,
): Promise<Outcome<PackageJson>> {
  const r = await runPackage(pkgFile, specFile, req);
  const f = r.findings;
  const lines = [...f.list.map(findingLine), ...renderCoverage(r.coverage), packageVerdictLine(r, pkgFile, specFile)];
  return {
    exitCode: EXIT[r.status],
    lines,
    json: {
      schema: 'vkit.acceptance-check-package/1',
      file: pkgFile,
      spec: specFile,
      status: r.status,
      format: r.format.verdict,
      binding: r.spec.binding,
      coverage: r.coverage,
      ...(r.stack ? { stack: r.stack } : {}),
      findings: f.list,
    },
  };
}

export async function coverageFiles(
  pkgFile: string,
  specFile: string,
  req: PackageRequest,
): Promise<Outcome<CoverageJson>> {
  const r = await runPackage(pkgFile, specFile, req);
  // Coverage shows the errors and warnings that make it untrustworthy; notes stay with check-package.
  const shown = r.findings.list.filter((x) => x.level !== 'NOTE');
  const lines = [...shown.map(findingLine), ...renderCoverage(r.coverage)];
  return {
    exitCode: r.coverage.acceptable ? 0 : 1,
    lines,
    json: {
      schema: 'vkit.acceptance-coverage/1',
      file: pkgFile,
      spec: specFile,
      status: r.status,
      coverage: r.coverage,
      findings: r.findings.list,
    },
  };
}
