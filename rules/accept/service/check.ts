/**
 * `vkit acceptance check FILE...`: validate each document with the format validator and fold the
 * verdicts (FAIL beats INDETERMINATE beats PASS). A file that cannot be read or parsed, or a 0.3
 * document, is exit 2 for the whole command: nothing is judged from a document that was not read.
 */
import { isAbsolute, resolve } from 'node:path';
import { validateFormat } from '../lib/format.js';
import { findingLine, verdictExit, worstVerdict, type Finding, type Outcome, type Verdict } from '../lib/report.js';
import { readDoc } from '../lib/toml.js';

export interface CheckOptions {
  /** Absolute root: FILEs and every path inside the documents are judged against it. */
  root: string;
  strict?: boolean;
  strictWeight?: boolean;
}

interface CheckFileJson {
  file: string;
  verdict: Verdict;
  errors: number;
  warnings: number;
  weighted: number;
  unweighted: number;
  findings: Finding[];
}

export interface CheckJson {
  schema: 'vkit.acceptance-check/1';
  verdict: Verdict;
  files: CheckFileJson[];
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The summary line: `<VERDICT> <file>[ (N errors, M warnings)] [weighted: W, unweighted: U]`. */
function summaryLine(r: CheckFileJson): string {
  const counts = r.errors || r.warnings ? ` (${count(r.errors, 'error')}, ${count(r.warnings, 'warning')})` : '';
  return `${r.verdict} ${r.file}${counts} [weighted: ${r.weighted}, unweighted: ${r.unweighted}]`;
}

export async function checkFiles(files: string[], opts: CheckOptions): Promise<Outcome<CheckJson>> {
  const results: CheckFileJson[] = [];
  for (const file of files) {
    const doc = await readDoc(isAbsolute(file) ? file : resolve(opts.root, file), file);
    const r = await validateFormat(doc, { root: opts.root, strict: opts.strict, strictWeight: opts.strictWeight });
    const weighted = r.claims.filter((c) => c.weightGranted).length;
    results.push({
      file,
      verdict: r.verdict,
      errors: r.findings.errors,
      warnings: r.findings.warnings,
      weighted,
      unweighted: r.claims.length - weighted,
      findings: r.findings.list,
    });
  }
  const verdict = worstVerdict(results.map((r) => r.verdict));
  const lines = results.flatMap((r) => [summaryLine(r), ...r.findings.map(findingLine)]);
  return {
    exitCode: verdictExit(verdict),
    lines,
    json: { schema: 'vkit.acceptance-check/1', verdict, files: results },
  };
}
