/**
 * Weight: a claim that asks for it (`weight = "weighted"`) gets it only when the check has been
 * shown able to fail and the claim is honest about its reach (acceptance-details.md §2, rules 1-5).
 * Pure: the validator hands in the claim table and its evidence views and reports the reasons.
 * A refused claim stays in the file and counts as unweighted.
 */
import { isIsoDate } from '../../../src/text/dates.js';
import { didYouMean } from './keys.js';
import type { EvidenceView } from './model.js';
import { SYMBOLIC_FAMILIES } from './tiers.js';
import { isTable, str, table, type Table } from './toml.js';

export const GRADES = [
  'contract',
  'probe',
  'test-only',
  'mechanical',
  'not-covered',
  'out-of-scope',
  'inspection-argued',
  'unspecified',
  'ungraded',
] as const;
/** Rule 1: grades with deciding machinery. */
const WEIGHT_CAPABLE: readonly string[] = [
  'contract',
  'probe',
  'test-only',
  'mechanical',
  'not-covered',
  'out-of-scope',
];
export const CLAUSE_SOURCES = ['spec-document', 'external-standard', 'doc-comment', 'test-name', 'none'] as const;
/** Rule 3: a clause read off its own evidence, or off nothing, cannot be falsified. */
const UNWEIGHTABLE_SOURCES = ['test-name', 'none'];

const WATCHED_FAIL_KEYS = ['of_command', 'perturbed', 'observed', 'date'] as const;

/** Whitespace collapsed, nothing else: quoting stays literal because it can change a command. */
const collapse = (s: string) => s.trim().split(/\s+/).join(' ');

/**
 * More than one word: a single token says nothing about what was perturbed or seen. Stops at the
 * second word: an `observed` may hold a whole transcript, and every claim asks this more than once.
 */
function moreThanOneWord(s: string): boolean {
  let words = 0;
  for (const m of s.matchAll(/\S+/g)) if (/[\p{L}\p{N}]/u.test(m[0]) && ++words > 1) return true;
  return false;
}

/** `bounded` / `unbounded` as a whole token, then at least one word saying what the limit was. */
export function validBounds(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const m = /^\s*(unbounded|bounded)(?![A-Za-z0-9_-])(.*)$/s.exec(v);
  return !!m && /[\p{L}\p{N}]{2,}/u.test(m[2]!);
}

/** The problems of a `[claim.self_verify.watched_fail]` table; none means a valid witness. */
export function watchedFailProblems(selfVerify: Table): { key?: string; message: string }[] {
  const wf = selfVerify.watched_fail;
  if (wf === undefined) return [{ message: 'no watched_fail table' }];
  if (!isTable(wf))
    return [
      {
        message:
          'self_verify.watched_fail must be a [claim.self_verify.watched_fail] table with of_command, perturbed, observed and date, not a phrase',
      },
    ];
  const out: { key?: string; message: string }[] = [];
  for (const k of Object.keys(wf))
    if (!(WATCHED_FAIL_KEYS as readonly string[]).includes(k))
      out.push({
        key: k,
        message: `watched_fail has unknown key '${k}'${didYouMean(k, WATCHED_FAIL_KEYS)} (allowed: ${WATCHED_FAIL_KEYS.join(', ')})`,
      });
  for (const k of WATCHED_FAIL_KEYS) {
    if (wf[k] === undefined) out.push({ message: `watched_fail requires '${k}'` });
    else if (typeof wf[k] !== 'string') out.push({ key: k, message: `watched_fail.${k} must be a string` });
  }
  const cmd = str(selfVerify, 'command');
  const of = str(wf, 'of_command');
  if (of !== undefined) {
    if (cmd === undefined)
      out.push({
        key: 'of_command',
        message: 'watched_fail.of_command names a command, but self_verify has no command to bind it to',
      });
    else if (collapse(of) !== collapse(cmd))
      out.push({
        key: 'of_command',
        message: `watched_fail.of_command '${of}' is not this claim's self_verify.command '${cmd}': a failure watched on another command witnesses nothing about this one`,
      });
  }
  for (const k of ['perturbed', 'observed'] as const) {
    const v = str(wf, k);
    if (v !== undefined && !moreThanOneWord(v))
      out.push({ key: k, message: `watched_fail.${k} must say what was ${k} in more than one word, got '${v}'` });
  }
  const date = wf.date;
  if (typeof date === 'string' && !isIsoDate(date))
    out.push({ key: 'date', message: `watched_fail.date must be a date YYYY-MM-DD, got '${date}'` });
  return out;
}

/** A recipe: self_verify with a nonempty command and the output that means pass. */
function hasRecipe(claim: Table): boolean {
  const sv = table(claim, 'self_verify');
  return !!str(sv, 'command')?.trim() && !!str(sv, 'expect');
}

/**
 * The `WEIGHT REFUSED` reasons of a claim that asks for weight (empty when weight is granted or
 * not asked for). Rule 4's control witness is read off the evidence views (`witnessControl`).
 */
export function weightRefusals(claim: Table, evidence: readonly EvidenceView[]): string[] {
  if (claim.weight !== 'weighted') return [];
  const reasons: string[] = [];
  const grade = str(claim, 'grade');
  // 1. A weight-capable grade.
  if (grade === undefined) reasons.push('no grade: weight needs a weight-capable grade');
  else if (!WEIGHT_CAPABLE.includes(grade)) reasons.push(`grade '${grade}' is never weight-capable`);
  // 2. The grade's companions.
  const sv = table(claim, 'self_verify');
  if (
    grade === 'contract' ||
    grade === 'probe' ||
    grade === 'test-only' ||
    grade === 'mechanical' ||
    grade === 'not-covered'
  ) {
    if (!hasRecipe(claim)) reasons.push(`grade '${grade}' needs [claim.self_verify] with a command and its expect`);
  }
  if ((grade === 'contract' || grade === 'probe') && !validBounds(claim.bounds))
    reasons.push(`grade '${grade}' needs bounds ('bounded: ...' or 'unbounded: ...')`);
  if (grade === 'not-covered' && !str(sv, 'positive_control')?.trim())
    reasons.push(`grade 'not-covered' needs self_verify.positive_control`);
  if (grade === 'out-of-scope' && !str(claim, 'scope_ref')?.trim())
    reasons.push(`grade 'out-of-scope' needs scope_ref`);
  // 3. Where the clause came from.
  const source = claim.clause_source;
  if (source === undefined) reasons.push('clause_source not recorded');
  else if (typeof source === 'string' && UNWEIGHTABLE_SOURCES.includes(source))
    reasons.push(`clause_source '${source}' cannot carry weight: the clause cannot be falsified`);
  // 4. The check was watched to fail.
  const watched = sv !== undefined && watchedFailProblems(sv).length === 0;
  if (!watched && !evidence.some((e) => e.witnessControl)) reasons.push('no watched-fail witness');
  // 5. A contract settles every input: it needs reasoning over a symbolic domain.
  if (
    grade === 'contract' &&
    !evidence.some((e) => e.result === 'pass' && e.family !== undefined && SYMBOLIC_FAMILIES.includes(e.family))
  ) {
    reasons.push(
      `grade 'contract' needs a passing record from a family that reasons over a symbolic domain (${SYMBOLIC_FAMILIES.join(', ')})`,
    );
  }
  return reasons;
}
