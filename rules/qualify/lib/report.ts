/**
 * `vkit.qualification/1`: what a package qualification found, and the pure rules that decide it.
 * A mutant is detected only when the checker itself rejected it (a failed obligation, a module that
 * does not match the module type, an observation that differs: the receipt's `rejected_by`); it
 * survives when its check passed; anything else (a timeout, a tool error, a cancel, no receipt) is
 * inconclusive and never counts as detected.
 */
import * as v from 'valibot';
import { OutcomeSchema } from '../../../src/config/evidence-terms.js';
import type { Mutant } from './catalogue.js';
import { PackageComparisonSchema, PackageSnapshotSchema } from './snapshot.js';

const MutantClassSchema = v.picklist(['detected', 'survivor', 'inconclusive']);
export type MutantClass = v.InferOutput<typeof MutantClassSchema>;

const MutantResultSchema = v.object({
  id: v.string(),
  binding: v.string(),
  /** The behaviour the edit breaks. */
  breaks: v.string(),
  /** `sha256:` of the edits (canonical JSON). */
  edit_sha256: v.string(),
  class: MutantClassSchema,
  /** What rejected it (`obligation reserve_spec (...)`, `observation release_amount`); null unless detected. */
  caught_by: v.nullable(v.string()),
  /** The check's own reason (why it passed, failed or decided nothing). */
  reason: v.string(),
  run: v.nullable(v.string()),
  receipt: v.nullable(v.string()),
  /** A human's mark that this survivor is equivalent to the reference, with the reason. */
  equivalent: v.optional(v.object({ reason: v.string() })),
});
export type MutantResult = v.InferOutput<typeof MutantResultSchema>;

const AdequacyResultSchema = v.object({
  id: v.string(),
  /** `File.theorem` in the catalogue's adequacy files. */
  theorem: v.string(),
  establishes: v.string(),
  witness: v.string(),
  /** holds: proved and closed under the global context; fails: coqc rejected its proof; unknown: not decided. */
  status: v.picklist(['holds', 'fails', 'unknown']),
  reason: v.string(),
  assumptions: v.array(v.string()),
});
export type AdequacyCheck = v.InferOutput<typeof AdequacyResultSchema>;

export const QualificationSchema = v.object({
  schema: v.literal('vkit.qualification/1'),
  /** PASS: every mutant detected (or marked equivalent) and the reference passes; FAIL: a survivor; BLOCKED otherwise. */
  status: OutcomeSchema,
  reason: v.string(),
  package: v.object({ id: v.string(), version: v.string(), sha256: v.string() }),
  profile: v.string(),
  catalogue: v.object({ sha256: v.string(), mutants: v.number() }),
  /** The checker every run used (the reference's receipt), when known. */
  checker_sha256: v.nullable(v.string()),
  /** The known-good candidate, checked first: detection means nothing if it does not pass. */
  reference: v.object({
    status: OutcomeSchema,
    reason: v.string(),
    run: v.nullable(v.string()),
    receipt: v.nullable(v.string()),
  }),
  mutants: v.array(MutantResultSchema),
  /** The package's adequacy checks (real proofs about its own definitions), when its catalogue has them. */
  adequacy: v.array(AdequacyResultSchema),
  totals: v.object({
    mutants: v.number(),
    detected: v.number(),
    survivors: v.number(),
    equivalent: v.number(),
    inconclusive: v.number(),
  }),
  /** What this qualification does not establish. */
  not_established: v.array(v.string()),
  /** The package as qualified: files, obligation statements, trust identities (what a later comparison reads). */
  package_snapshot: PackageSnapshotSchema,
  /** With `--compare-package`: what changed since the earlier report or package directory. */
  comparison: v.optional(PackageComparisonSchema),
  ms: v.number(),
});
export type Qualification = v.InferOutput<typeof QualificationSchema>;

/** A mutant's check: its outcome and what the checker said rejected it. */
export interface MutantRun {
  outcome: 'PASS' | 'FAIL' | 'BLOCKED' | null;
  reason: string | null;
  /** Its own run and receipt (`vkit formal qualify`); null inside a `qualify:<id>` job. */
  run: string | null;
  receipt: string | null;
  /** Whether the result stands on intact evidence: an intact receipt, or the profile run of this very job. */
  intact: boolean;
  /** The checker's own rejection (`subject.formal.rejected_by`, `FormalOutcome.rejectedBy`). */
  rejectedBy: { kind: string; name: string } | null;
}

/** Detected only on the checker's own rejection; PASS survives; everything else decided nothing. */
export function classify(r: MutantRun): { class: MutantClass; caught_by: string | null } {
  if (r.outcome === 'PASS') return { class: 'survivor', caught_by: null };
  if (r.intact && r.outcome !== null && r.rejectedBy) {
    return { class: 'detected', caught_by: `${r.rejectedBy.kind} ${r.rejectedBy.name}` };
  }
  return { class: 'inconclusive', caught_by: null };
}

export const NOT_ESTABLISHED = [
  'specification completeness: a package that detects every mutant of this catalogue may still accept a wrong candidate the catalogue does not describe',
  "that a detected mutant has no proof at all: a proof can fail because the candidate's proof script does not carry over, and the report names the obligation that failed, not why",
  'anything about profiles other than the one run',
];

/** The report's verdict, from its parts (pure). */
export function foldQualification(
  reference: Qualification['reference'],
  mutants: readonly MutantResult[],
  adequacy: readonly AdequacyCheck[] = [],
): Pick<Qualification, 'status' | 'reason' | 'totals'> {
  const survivors = mutants.filter((m) => m.class === 'survivor' && !m.equivalent);
  const equivalent = mutants.filter((m) => m.class === 'survivor' && m.equivalent);
  const inconclusive = mutants.filter((m) => m.class === 'inconclusive');
  const totals = {
    mutants: mutants.length,
    detected: mutants.filter((m) => m.class === 'detected').length,
    survivors: survivors.length,
    equivalent: equivalent.length,
    inconclusive: inconclusive.length,
  };
  const ids = (ms: readonly MutantResult[]) => ms.map((m) => m.id).join(', ');
  if (reference.status !== 'PASS')
    return {
      status: 'BLOCKED',
      reason: `the reference candidate does not pass (${reference.reason}): no mutant result means anything`,
      totals,
    };
  const failing = adequacy.filter((a) => a.status === 'fails');
  const undecided = adequacy.filter((a) => a.status === 'unknown');
  const names = (as: readonly AdequacyCheck[]) => as.map((a) => a.id).join(', ');
  if (survivors.length || failing.length)
    return {
      status: 'FAIL',
      reason: [
        survivors.length
          ? `${survivors.length} mutant(s) survived: the package cannot tell them from a correct candidate: ${ids(survivors)}`
          : '',
        failing.length ? `adequacy check(s) refuted by coqc: ${names(failing)}` : '',
      ]
        .filter(Boolean)
        .join('; '),
      totals,
    };
  if (inconclusive.length || undecided.length)
    return {
      status: 'BLOCKED',
      reason: [
        inconclusive.length
          ? `${inconclusive.length} mutant(s) inconclusive (never counted as detected): ${ids(inconclusive)}`
          : '',
        undecided.length ? `adequacy check(s) not decided: ${names(undecided)}` : '',
      ]
        .filter(Boolean)
        .join('; '),
      totals,
    };
  return {
    status: 'PASS',
    reason: `all ${mutants.length} mutants detected${equivalent.length ? ` (${equivalent.length} survivor(s) marked equivalent)` : ''}${adequacy.length ? `; all ${adequacy.length} adequacy checks hold` : ''}`,
    totals,
  };
}

/** One mutant's line of the report. */
export function mutantResult(m: Mutant, editSha256: string, r: MutantRun): MutantResult {
  const { class: klass, caught_by } = classify(r);
  return {
    id: m.id,
    binding: m.binding,
    breaks: m.breaks,
    edit_sha256: editSha256,
    class: klass,
    caught_by,
    reason: r.reason ?? (r.outcome === null ? 'no result' : r.outcome),
    run: r.run,
    receipt: r.receipt,
    ...(m.equivalent ? { equivalent: m.equivalent } : {}),
  };
}
