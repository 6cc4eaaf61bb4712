/**
 * `vkit acceptance run P [--claim ID]... --yes-run-commands`: runs claims' self_verify commands in
 * the subject root and reports one status per claim. A document is text until someone agrees to
 * execute it: without --yes-run-commands nothing runs and the refusal lists what would.
 */
import { stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { invalid } from '../../../src/errors.js';
import { insideRoot } from '../lib/paths.js';
import type { Outcome } from '../lib/report.js';
import { readSelfVerify, runSelfVerify, type RunStatus } from '../lib/selfverify.js';
import { readDoc, str, table, tables, type Doc } from '../lib/toml.js';
import { refuseVersion03 } from '../lib/versions.js';
import type { SelfVerify } from '../lib/model.js';

export interface RunRequest {
  /** Absolute --root. */
  root: string;
  /** The package as given (relative to root). */
  file: string;
  /** Claim ids to run; empty = every claim. */
  claims?: string[];
  yes: boolean;
  timeoutMs?: number;
}

export interface RunResultJson {
  schema: 'vkit.acceptance-run/1';
  file: string;
  cwd: string;
  results: {
    claim: string;
    command: string | null;
    status: RunStatus;
    exit_code: number | null;
    output_summary: string;
    duration_ms: number;
    timed_out: boolean;
  }[];
  counts: Record<RunStatus, number>;
}

/** `[subject] root` (relative to --root, never escaping it), else the package file's directory. */
export async function subjectRoot(doc: Doc, root: string): Promise<string> {
  const rel = str(table(doc.data, 'subject'), 'root');
  let dir: string;
  if (table(doc.data, 'subject')?.root !== undefined && rel === undefined)
    throw invalid('ERR_ACCEPTANCE_SUBJECT', '[subject] root must be a string', {
      file: doc.file,
      path: 'subject.root',
      line: doc.line(['subject', 'root']),
    });
  if (rel !== undefined) {
    const abs = insideRoot(root, rel);
    if (!abs)
      throw invalid('ERR_ACCEPTANCE_PATH', `[subject] root \`${rel}\` is absolute or leaves --root`, {
        file: doc.file,
        path: 'subject.root',
        line: doc.line(['subject', 'root']),
      });
    dir = abs;
  } else dir = dirname(doc.abs);
  const s = await stat(dir).catch(() => undefined);
  if (!s?.isDirectory())
    throw invalid('ERR_ACCEPTANCE_SUBJECT', `subject root \`${relative(root, dir) || '.'}\` is not a directory`, {
      file: doc.file,
      path: 'subject.root',
      line: doc.line(['subject', 'root']),
    });
  return dir;
}

/** Reads a package for running: 0.3 refused, claims present, requested ids known. */
export async function readPackageClaims(
  root: string,
  file: string,
  wanted: string[] = [],
): Promise<{ doc: Doc; claims: { index: number; id: string; sv?: SelfVerify }[] }> {
  const doc = await readDoc(resolve(root, file), file);
  refuseVersion03(doc);
  const all = tables(doc.data, 'claim');
  if (all.length === 0)
    throw invalid('ERR_ACCEPTANCE_CLAIM', `${file} has no [[claim]] tables`, { file, path: 'claim' });
  const claims = all.map((c, index) => {
    if (typeof c.id !== 'string')
      throw invalid('ERR_ACCEPTANCE_CLAIM', 'claim id must be a string', {
        file,
        path: `claim[${index}].id`,
        line: doc.line(['claim', index, 'id']),
      });
    return { index, id: c.id };
  });
  for (const id of wanted) {
    if (!claims.some((c) => c.id === id))
      throw invalid(
        'ERR_ACCEPTANCE_CLAIM',
        `no claim \`${id}\` in ${file} (claims: ${claims.map((c) => c.id).join(', ')})`,
        { file, path: '--claim' },
      );
  }
  const chosen = wanted.length ? claims.filter((c) => wanted.includes(c.id)) : claims;
  return { doc, claims: chosen.map((c) => ({ ...c, sv: readSelfVerify(doc, c.index) })) };
}

export async function acceptanceRun(req: RunRequest): Promise<Outcome<RunResultJson>> {
  const { doc, claims } = await readPackageClaims(req.root, req.file, req.claims);
  const cwd = await subjectRoot(doc, req.root);
  const shownCwd = relative(req.root, cwd) || '.';
  if (!req.yes) {
    const listed = claims.map((c) => `  ${c.id}: ${c.sv ? c.sv.command : '(no self_verify command)'}`);
    throw invalid(
      'ERR_ACCEPTANCE_CONSENT',
      `Refusing to run commands from ${req.file} without --yes-run-commands. It would run, with sh -c in ${shownCwd}:\n${listed.join('\n')}`,
      { file: req.file, path: '--yes-run-commands' },
      'Read the commands, then add --yes-run-commands to run them.',
    );
  }
  const results: RunResultJson['results'] = [];
  const lines: string[] = [];
  for (const c of claims) {
    const r = await runSelfVerify(c.sv, cwd, { timeoutMs: req.timeoutMs });
    results.push({
      claim: c.id,
      command: c.sv?.command ?? null,
      status: r.status,
      exit_code: r.exit_code,
      output_summary: r.output_summary,
      duration_ms: r.duration_ms,
      timed_out: r.timed_out,
    });
    lines.push(`${r.status} ${c.id}: ${c.sv?.command ?? '(no self_verify command)'}`);
    if (r.status !== 'EXECUTED-PASS') lines.push(`  ${r.output_summary}`);
  }
  const counts = {
    'EXECUTED-PASS': 0,
    'EXECUTED-FAIL': 0,
    'EXPECT-MISMATCH': 0,
    'SELF-FULFILLING-SUSPECT': 0,
    'NOT-RUN': 0,
  } as Record<RunStatus, number>;
  for (const r of results) counts[r.status]++;
  const failed = counts['EXECUTED-FAIL'] + counts['EXPECT-MISMATCH'];
  const unsettled = counts['SELF-FULFILLING-SUSPECT'] + counts['NOT-RUN'];
  const exitCode = failed > 0 ? 1 : unsettled > 0 ? 3 : 0;
  const parts = (Object.entries(counts) as [RunStatus, number][]).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`);
  lines.push(
    `${exitCode === 0 ? 'PASS' : exitCode === 1 ? 'FAIL' : 'INDETERMINATE'} ${req.file}: ${results.length} claim${results.length === 1 ? '' : 's'} run in ${shownCwd}: ${parts.join(', ')}`,
  );
  return { exitCode, lines, json: { schema: 'vkit.acceptance-run/1', file: req.file, cwd: shownCwd, results, counts } };
}
