/**
 * The state `judgeDecision` (decision.ts) carries through its steps: the documents judged, the
 * findings, and what each step reads off the decision for the steps after it. Also the few text
 * helpers every step's messages use.
 */
import type { PackageCheck, RequirementView, SpecificationCheck } from './model.js';
import type { Findings } from './report.js';
import { tables, type Doc, type Table } from './toml.js';

/** A `[[disposition]]` table and its index in the document. */
export interface Disposition {
  t: Table;
  i: number;
}

export interface DecisionState {
  readonly f: Findings;
  /** The decision document's data. */
  readonly d: Table;
  readonly specDoc: Doc;
  readonly pkgDoc: Doc;
  readonly pkg: PackageCheck;
  readonly spec: SpecificationCheck;
  /** A bound hash is well formed but no longer matches: the decision is stale, whatever else holds. */
  stale: boolean;
  /** The issuer, once `[document].issuer` is well formed. */
  issuer?: { name: string; role: string };
  /** The issuer is also the producer: the decision's independence is none. */
  selfAccepted: boolean;
  reExecuteAll: boolean;
  /** Claim id -> the worst result among its `[[verification.run]]`s. */
  readonly worstRun: Map<string, string>;
  readonly conditions: Table[];
  readonly conditionIds: Map<string, Table>;
  /** The specification's requirements by id. */
  readonly requirements: Map<string, RequirementView>;
  /** Requirement id -> its one `[[disposition]]`. */
  readonly dispositions: Map<string, Disposition>;
}

/** The state before any step: nothing judged yet, nothing stale. */
export function newDecisionState(
  f: Findings,
  decisionDoc: Doc,
  specDoc: Doc,
  pkgDoc: Doc,
  pkg: PackageCheck,
): DecisionState {
  return {
    f,
    d: decisionDoc.data,
    specDoc,
    pkgDoc,
    pkg,
    spec: pkg.spec,
    stale: false,
    selfAccepted: false,
    reExecuteAll: false,
    worstRun: new Map(),
    conditions: tables(decisionDoc.data, 'condition'),
    conditionIds: new Map(),
    requirements: new Map(pkg.spec.requirements.map((r) => [r.id, r])),
    dispositions: new Map(),
  };
}

export const q = (v: unknown) => (v === undefined ? 'nothing' : typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
export const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
export const oneOf = (values: readonly string[]) => values.join(', ');
