/**
 * `decide`: a draft decision written from the computed coverage, for the consumer to complete.
 * Pure: the service reads the documents, checks the package and writes the text this returns.
 *
 * The draft never claims more than the documents show: every run is `not-run` (nobody has re-run
 * anything yet), a requirement is `satisfied` only when coverage (or, for a chain requirement, the
 * stack check) says so, anything else is `unsatisfied` (an `indeterminate` requirement too: what
 * vkit cannot evaluate is never drafted satisfied; the decide verb refuses an indeterminate package
 * before drafting), the verdict comes from the verdict table,
 * and the binds carry the current hashes. Under `re-execute-all` such a draft is refused by
 * check-decision until the consumer records a passing run per basis claim (said in a NOTE).
 */
import { m11Digest } from '../../../src/hash/index.js';
import { durationDays } from './durations.js';
import { addDays, utcDateOf } from '../../../src/text/dates.js';
import type { PackageCheck } from './model.js';
import { str, table, type Doc } from './toml.js';
import { tableVerdict, type DispositionStatus } from './verdict.js';
import { PROTOCOL_ID } from './versions.js';

export interface DraftInput {
  specDoc: Doc;
  pkgDoc: Doc;
  pkg: PackageCheck;
  issuer: { name: string; role: string };
  /** The producer's party name (self-acceptance when it equals the issuer). */
  producer?: string;
  id: string;
  /** RFC 3339 `Z` date-time the draft is issued at. */
  issuedAt: string;
}

export interface Draft {
  text: string;
  verdict: string;
  dispositions: { requirement: string; status: DispositionStatus; basis: string[] }[];
  notes: string[];
}

/** A TOML basic string: JSON's escapes (\" \\ \n \uXXXX ...) are all valid TOML escapes. */
const s = (v: string) => JSON.stringify(v);
const list = (xs: string[]) => `[${xs.map(s).join(', ')}]`;

export function draftDecision(x: DraftInput): Draft {
  const { pkg } = x;
  const spec = pkg.spec;
  const notes: string[] = [];
  const selfAccepted = x.producer !== undefined && x.producer === x.issuer.name;
  if (selfAccepted)
    notes.push(
      `self-acceptance: the issuer '${x.issuer.name}' is also the producer; requirements demanding more independence than none are drafted unsatisfied`,
    );
  const coverage = new Map(pkg.coverage.requirements.map((c) => [c.requirement, c]));
  const claims = new Map(pkg.format.claims.map((c) => [c.id, c]));

  const dispositions: Draft['dispositions'] = [];
  const explain = new Map<string, string[]>();
  for (const r of spec.requirements) {
    const cov = coverage.get(r.id);
    const why: string[] = [];
    let ok: boolean;
    if (r.kind === 'chain') {
      ok = cov !== undefined ? cov.status === 'satisfied' : pkg.stack?.status === 'pass';
      why.push(`stack check: ${ok ? 'pass' : `not passed (coverage ${cov?.status ?? 'none'})`}`);
    } else {
      ok = cov?.status === 'satisfied';
      why.push(`coverage: ${cov?.status ?? 'none'}`);
      for (const fail of cov?.failures ?? []) why.push(`  ${fail.claim}: ${fail.reason}`);
      if (ok && selfAccepted && r.evidence.independence !== 'none') {
        ok = false;
        why.push(`independence '${r.evidence.independence}' cannot be met by a self-acceptance`);
      }
    }
    dispositions.push({
      requirement: r.id,
      status: ok ? 'satisfied' : 'unsatisfied',
      basis: r.kind === 'chain' ? [] : (cov?.basis ?? []),
    });
    explain.set(r.id, why);
  }
  const mandatory = new Set(spec.requirements.filter((r) => r.mandatory).map((r) => r.id));
  const verdict = tableVerdict(
    dispositions.filter((d) => mandatory.has(d.requirement)).map((d) => d.status),
    [],
  ).verdict!;

  const mode = spec.consumerVerification ?? 'package-trusted';
  const runClaims = [...new Set(dispositions.flatMap((d) => d.basis))];
  if (mode === 're-execute-all' && runClaims.length)
    notes.push(
      `draft: every run is not-run; under re-execute-all check-decision refuses a satisfied requirement until each basis claim has a passing [[verification.run]] with its observed output`,
    );

  const subject = table(x.pkgDoc.data, 'subject');
  const commit = str(subject, 'commit');
  const subjectBind =
    commit !== undefined ? `{ commit = ${s(commit)} }` : `{ digest = ${s(str(subject, 'digest') ?? '')} }`;
  const specId = str(table(x.specDoc.data, 'document'), 'id') ?? '';

  const days = spec.staleAfter !== undefined ? durationDays(spec.staleAfter) : undefined;
  const issuedDate = utcDateOf(x.issuedAt)!;
  const validity =
    days !== undefined
      ? `[validity]\nstale_after = ${s(addDays(issuedDate, days))}   # issued_at + the specification's stale_after ${spec.staleAfter}\n`
      : `# [validity]\n# stale_after = "YYYY-MM-DD"   # the specification sets no stale_after; without a date the decision can never have effect\n`;
  if (days === undefined)
    notes.push(
      'draft: no [validity] stale_after written (the specification sets no stale_after duration); check-decision --effect refuses a decision without one',
    );

  const out: string[] = [];
  out.push(
    `# Draft decision written by \`vkit acceptance decide\` from the computed coverage of ${x.pkgDoc.file}.`,
    '# Every run below is `not-run`: re-run each command, record what you observed and the result,',
    '# then revise the dispositions and the verdict. `vkit acceptance check-decision` checks it.',
    '',
    '[document]',
    `protocol = ${s(PROTOCOL_ID)}`,
    'kind = "decision"',
    `id = ${s(x.id)}`,
    `issued_at = ${s(x.issuedAt)}`,
    `issuer = { name = ${s(x.issuer.name)}, role = ${s(x.issuer.role)} }`,
    `verdict = ${s(verdict)}`,
    '',
    '[binds]',
    `specification = { id = ${s(specId)}, hash = ${s(m11Digest('specification', x.specDoc.bytes))} }`,
    `package = { hash = ${s(m11Digest('manifest', x.pkgDoc.bytes))} }`,
    `subject = ${subjectBind}`,
    '',
    '[verification]',
    `mode = ${s(mode)}`,
  );
  for (const id of runClaims) {
    const command = claims.get(id)?.selfVerify?.command;
    out.push('');
    if (!command) {
      out.push(`# claim ${id} has no self_verify command in the package: record the run you made yourself.`);
      continue;
    }
    out.push(
      '[[verification.run]]',
      `claim = ${s(id)}`,
      `command = ${s(command)}`,
      'observed = ""',
      'result = "not-run"',
      `at = ${s(x.issuedAt)}`,
    );
  }
  for (const d of dispositions) {
    out.push(
      '',
      '[[disposition]]',
      `requirement = ${s(d.requirement)}`,
      `status = ${s(d.status)}`,
      `basis = ${list(d.basis)}`,
    );
    for (const line of explain.get(d.requirement) ?? []) out.push(`# ${line.replace(/[\r\n]+/g, ' ')}`);
  }
  out.push('', validity.trimEnd());
  return { text: `${out.join('\n')}\n`, verdict, dispositions, notes };
}
