/**
 * Naming what a rejected candidate or driver step failed: the obligation coqc's first error falls in
 * (located in the candidate's own source, where its author must look), as a BLOCKED outcome.
 */
import {
  blankCommentsAndStrings,
  type CoqError,
  coqLocation,
  declarationIndex,
  firstCoqError,
  indexToLineColumn,
  lineStart,
  mismatchedField,
} from '../../checkers/coq.js';
import type { ContainerResult, FormalOutcome, FormalSections } from '../types.js';
import { boundNames, type CoqComponentPlan, type CoqObligationSpec, contractOf, moduleType } from './coq-plan.js';
import { blocked, markCandidateFailure } from './coq-sections.js';
import { rejectedByChecker } from './coq-steps.js';

/** What a failed step leaves to explain: its result, why it failed, and the candidate's entry file. */
interface FailedStep {
  result: ContainerResult;
  stop: string;
  plan: CoqComponentPlan;
  spec: CoqObligationSpec;
  entryBytes: Buffer;
  entryText: string;
  sections: FormalSections;
}

/** The candidate step failed: the obligation its first error falls in failed, the rest is unknown. */
export function candidateRejection(failed: FailedStep): FormalOutcome {
  const { result, stop, plan, spec, entryBytes, sections } = failed;
  // Only coqc's own rejection names a failed obligation: a step that timed out, was cancelled or
  // never started decided nothing (qualification counts a failed obligation as a detected mutant).
  const err = rejectedByChecker(result) ? firstCoqError(`${result.stderr}\n${result.stdout}`) : undefined;
  const located = err ? locateInEntry(err, entryBytes, plan.entry) : undefined;
  const failing = located && err ? obligationAt(err, entryBytes, plan, spec) : undefined;
  markCandidateFailure(sections, failing?.binding);
  sections.diagnostics.push({
    severity: 'error',
    message: err?.message ?? stop,
    ...(located ? { file: plan.entry, line: located.line, column: located.column } : {}),
  });
  const named = failing
    ? `obligation \`${failing.name}\`${failing.binding ? ` (${failing.binding} contract)` : ''}`
    : 'the candidate';
  return blocked(
    `${named} failed${located ? ` at ${plan.entry}:${located.line}:${located.column}` : ''}: ${err?.message ?? stop}`,
    sections,
    failing?.proof ? { kind: 'obligation', name: failing.name } : undefined,
  );
}

/**
 * The driver step failed: a module-typing mismatch names its field, any other error the binding of
 * its driver line; failing neither, the expected client failed.
 */
export function driverRejection(failed: FailedStep & { driverLines: Record<number, string> }): FormalOutcome {
  const { result, stop, plan, spec, entryText, sections, driverLines } = failed;
  const err = rejectedByChecker(result) ? firstCoqError(`${result.stderr}\n${result.stdout}`) : undefined;
  const field = err ? mismatchedField(err.message) : undefined;
  const api = moduleType(plan);
  const binding = field
    ? boundNames(plan).find((b) => b === field.field || contractOf(spec, b) === field.field)
    : err
      ? driverLines[err.line]
      : undefined;
  const contract = binding ? contractOf(spec, binding) : undefined;
  const isContract = field !== undefined && binding !== undefined && contract === field.field;
  const obligationName = binding
    ? (isContract || !field) && contract
      ? `${binding} contract (${api}.${contract})`
      : `${binding} (${api}.${binding})`
    : 'the expected client';
  markCandidateFailure(sections, binding);
  // The candidate's own declaration is where the author must look.
  const symbol = binding ? (isContract ? `${plan.symbols[binding]}_spec` : plan.symbols[binding]!) : undefined;
  const idx = symbol ? declarationIndex(entryText, symbol) : undefined;
  const loc = idx !== undefined ? indexToLineColumn(entryText, idx) : undefined;
  sections.diagnostics.push({
    severity: 'error',
    message: `${obligationName}: ${err?.message ?? stop}`,
    ...(loc ? { file: plan.entry, ...loc } : {}),
  });
  return blocked(
    `obligation ${obligationName} failed${loc ? ` at ${plan.entry}:${loc.line}:${loc.column}` : ''}: ${err?.message ?? stop}`,
    sections,
    binding ? { kind: 'obligation', name: obligationName } : undefined,
  );
}

export function where(entry: string, text: string, index: number): string {
  const { line, column } = indexToLineColumn(text, index);
  return `${entry}:${line}:${column}`;
}

function locateInEntry(err: CoqError, bytes: Buffer, entry: string) {
  if (!err.file.endsWith(`/src/${entry}`) && err.file !== `/src/${entry}`) return undefined;
  return coqLocation(bytes, err.line, err.startByte);
}

/** The candidate declaration (lemma, definition) enclosing a located error, and its binding. */
function obligationAt(
  err: CoqError,
  bytes: Buffer,
  plan: CoqComponentPlan,
  spec: CoqObligationSpec,
): { name: string; binding?: string; proof: boolean } | undefined {
  const start = lineStart(bytes, err.line);
  if (start === undefined) return undefined;
  // The error's place as a string index: decode the bytes before it.
  const index = bytes.subarray(0, Math.min(bytes.length, start + err.startByte)).toString('utf8').length;
  const code = blankCommentsAndStrings(bytes.toString('utf8')).slice(0, index);
  let name: string | undefined;
  let keyword: string | undefined;
  for (const m of code.matchAll(
    /\b(Lemma|Theorem|Definition|Fact|Remark|Corollary|Proposition|Example|Fixpoint)\s+([A-Za-z_][A-Za-z0-9_']*)/g,
  )) {
    keyword = m[1];
    name = m[2];
  }
  if (!name) return undefined;
  const binding = boundNames(plan).find(
    (b) => (contractOf(spec, b) && `${plan.symbols[b]}_spec` === name) || plan.symbols[b] === name,
  );
  const contract = binding ? contractOf(spec, binding) : undefined;
  const isContract = binding !== undefined && contract !== undefined && `${plan.symbols[binding]}_spec` === name;
  return {
    name: isContract ? `${name} (${moduleType(plan)}.${contract})` : name,
    binding,
    // A statement with a proof, as opposed to a definition that does not typecheck.
    proof: keyword !== 'Definition' && keyword !== 'Fixpoint',
  };
}
