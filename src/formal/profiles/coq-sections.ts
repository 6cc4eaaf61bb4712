/**
 * The receipt sections of a `coq-linux-x86_64-v1` run: every obligation starts unknown and is set
 * proved or failed only by what a step showed, and a BLOCKED outcome leaves the claim unknown.
 */
import type { FormalOutcome, FormalSections, Obligation, ProfileContext, Rejection } from '../types.js';
import { BINDINGS, boundNames, CONVERSION_CONTRACT, type CoqObligationSpec, moduleType } from './coq-plan.js';

export const COQ_PROFILE_ID = 'coq-linux-x86_64-v1';
export const COQ_CONTRACT = 'ledger.source.v1';
export const COQ_METHOD = 'coq_source';

/** After a failed candidate or driver step: the named binding's contract failed, the rest is unknown. */
export function markCandidateFailure(sections: FormalSections, binding: string | undefined): void {
  for (const item of sections.obligations.items) {
    if (item.id.startsWith('package:')) continue;
    item.status = item.id.startsWith('contract:') && item.binding === binding ? 'failed' : 'unknown';
  }
  countObligations(sections);
}

export function countObligations(sections: FormalSections): void {
  const items = sections.obligations.items;
  sections.obligations.total = items.length;
  sections.obligations.proved = items.filter((i) => i.status === 'proved').length;
  sections.obligations.failed = items.filter((i) => i.status === 'failed').length;
  sections.obligations.unknown = items.filter((i) => i.status === 'unknown').length;
}

export function baseSections(
  ctx: ProfileContext,
  spec: CoqObligationSpec | undefined,
  image: string | null,
  notes: string[],
): FormalSections {
  const items: Obligation[] = [];
  const behaviours: Record<string, string[]> = {};
  const representation = ctx.component.representation;
  const api = moduleType(ctx.component);
  if (representation !== undefined && spec)
    items.push({
      id: `contract:${CONVERSION_CONTRACT}`,
      binding: 'of_ledger',
      status: 'unknown',
      description: `the candidate's of_ledger proves ${api}.${CONVERSION_CONTRACT} exactly (module typing): viewing the state built from a ledger gives the ledger back`,
    });
  for (const b of BINDINGS) {
    const s = spec?.bindings[b];
    if (!s) continue;
    items.push({
      id: `contract:${s.contract}`,
      binding: b,
      status: 'unknown',
      description: `the candidate's ${b} proves ${api}.${s.contract} exactly (module typing)${representation === undefined ? '' : ', through the view'}`,
    });
    for (const t of s.client)
      items.push({ id: `client:${t}`, binding: b, status: 'unknown', description: `expected client theorem ${t}` });
    behaviours[b] = s.client;
  }
  for (const c of spec?.package_claims ?? [])
    for (const t of c.theorems)
      items.push({ id: `package:${t}`, status: 'unknown', description: `package claim: ${c.claim}` });
  const sections: FormalSections = {
    obligations: {
      total: spec ? items.length : null,
      proved: 0,
      failed: 0,
      unknown: spec ? items.length : null,
      items,
    },
    scope: {
      contract: COQ_CONTRACT,
      package: `${ctx.pkg.id}@${ctx.pkg.version} ${ctx.pkg.sha256}`,
      profile: COQ_PROFILE_ID,
      parameters: ctx.component.parameters,
      notes: [
        'source verification in Coq: the bound functions of the candidate against the owned model (naturals below 2^32 for u32)',
        'not a source-to-binary theorem: the compiled observations are empirical',
        ...(representation === undefined
          ? []
          : [
              `representation \`${representation}\`: the candidate's state is its own type, checked against LEDGER_REPR_API through its view and adapted to LEDGER_API (ReprAdapter) for the expected client and the observations`,
            ]),
        ...notes,
      ],
    },
    inventory: { image, tool_tree: null, versions: {} },
    coverage: {
      bindings: boundNames(ctx.component).map((b) => ({
        binding: b,
        symbol: ctx.component.bindings[b] ?? '(unbound)',
        established: false,
        behaviours: behaviours[b] ?? [],
      })),
      package_claims: [
        ...(spec?.package_claims ?? []).map((c) => ({ claim: c.claim, established: false })),
        ...(spec?.not_established ?? []).map((c) => ({ claim: c.claim, established: false, note: c.note })),
      ],
      unclaimed: [
        'definitions and exports of the candidate beyond the six bindings',
        'surrounding application code',
        'the compiled executable beyond the fixed observations',
      ],
    },
    provenance: {
      method: COQ_METHOD,
      logical_trust: {
        engine_reported_axioms: [],
        accepted_policy_assumptions: [],
        unchecked_dependencies: [],
        unreported: [
          'the soundness of coqc and its kernel themselves (trusted; Print Assumptions audits axioms, not the checker)',
        ],
      },
      notes: ['Print Assumptions ran on every expected-client theorem and package claim'],
    },
    compilation: null,
    diagnostics: [],
  };
  return sections;
}

export function blocked(reason: string, sections: FormalSections, rejectedBy?: Rejection): FormalOutcome {
  return {
    outcome: 'BLOCKED',
    claim: 'unknown',
    reason,
    assurance: 'kernel_proof',
    method: COQ_METHOD,
    sections,
    artifacts: [],
    ...(rejectedBy ? { rejectedBy } : {}),
  };
}
