/**
 * The certification report (`vkit.change-certification/1`): the obligations in the spec's order, the
 * shadow result apart, and the acceptance folded fail-closed: `accepted` only when every non-shadow
 * obligation holds, `refuted` when one is refuted, else `unknown`.
 */
import type { Value } from './evaluate.js';
import type { Obligation } from './logic.js';
import type { Observation } from './request.js';
import type { SolverIdentity } from './z3.js';

export type Acceptance = 'accepted' | 'refuted' | 'unknown';

export interface CertificationReport {
  schema: 'vkit.change-certification/1';
  acceptance: Acceptance;
  target: string;
  candidate: string;
  basis: string;
  function: string;
  obligations: JsonObligation[];
  shadow: { obligations: JsonObligation[] };
  samples?: JsonObservation[];
  run: { started: string; seconds: number; solver?: SolverIdentity };
}

type JsonValue = number | string | boolean;
type JsonObligation = Omit<Obligation, 'counterexample'> & { counterexample?: Record<string, JsonValue> };
type JsonObservation = { inputs: Record<string, JsonValue>; result: JsonValue };

/** A value as JSON writes it: integers beyond ±2^53 as decimal strings (the request's own convention). */
function jsonValue(v: Value): JsonValue {
  if (typeof v === 'boolean') return v;
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

const jsonObligation = (o: Obligation): JsonObligation =>
  o.counterexample
    ? { ...o, counterexample: Object.fromEntries(Object.entries(o.counterexample).map(([k, v]) => [k, jsonValue(v)])) }
    : (o as JsonObligation);

function foldAcceptance(obligations: readonly Obligation[]): Acceptance {
  if (obligations.length === 0) return 'unknown';
  if (obligations.some((o) => o.status === 'refuted')) return 'refuted';
  return obligations.every((o) => o.status === 'holds') ? 'accepted' : 'unknown';
}

export function buildReport(parts: {
  target: string;
  candidate: string;
  basis: string;
  function: string;
  obligations: Obligation[];
  shadow: Obligation[];
  samples: Observation[];
  started: Date;
  solver?: SolverIdentity;
}): CertificationReport {
  const report: CertificationReport = {
    schema: 'vkit.change-certification/1',
    acceptance: foldAcceptance(parts.obligations),
    target: parts.target,
    candidate: parts.candidate,
    basis: parts.basis,
    function: parts.function,
    obligations: parts.obligations.map(jsonObligation),
    shadow: { obligations: parts.shadow.map(jsonObligation) },
    run: {
      started: parts.started.toISOString(),
      seconds: (Date.now() - parts.started.getTime()) / 1000,
      ...(parts.solver ? { solver: parts.solver } : {}),
    },
  };
  if (parts.samples.length)
    report.samples = parts.samples.map((s) => ({
      inputs: Object.fromEntries([...s.inputs].map(([k, v]) => [k, jsonValue(v)])),
      result: jsonValue(s.result),
    }));
  return report;
}

export const exitCodeOf = (a: Acceptance): number => (a === 'accepted' ? 0 : a === 'refuted' ? 1 : 3);

const MARK = { holds: 'HOLDS  ', refuted: 'REFUTED', unknown: 'UNKNOWN' } as const;

function line(o: JsonObligation): string {
  const head = `  ${MARK[o.status]} ${o.id}: ${o.statement}`;
  const cex = o.counterexample
    ? `\n           counterexample: ${Object.entries(o.counterexample)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ')}`
    : '';
  const why = o.reason && o.status !== 'holds' ? `\n           ${o.reason}` : '';
  return head + cex + why;
}

/** The text report: the delegated claim's obligations, then the shadow change result apart. */
export function renderReport(r: CertificationReport): string {
  const out = [
    `change certify ${r.function}: ${r.acceptance.toUpperCase()}`,
    `  target ${r.target}, candidate ${r.candidate}, basis ${r.basis}`,
    r.run.solver ? `  solver ${r.run.solver.version} (${r.run.solver.path}, ${r.run.solver.sha256})` : '  solver: none',
    'Delegated claim (decides acceptance):',
    ...r.obligations.map(line),
    'Shadow change result (reported apart, never part of acceptance):',
    ...r.shadow.obligations.map(line),
  ];
  if (r.samples) out.push(`Samples: ${r.samples.length} native observation(s) recorded; they never grant acceptance.`);
  if (r.acceptance === 'unknown') out.push('Acceptance is unknown: every obligation above must hold (exit 3).');
  if (r.acceptance === 'refuted') out.push('Refuted: an obligation above fails, with its counterexample (exit 1).');
  return `${out.join('\n')}\n`;
}
