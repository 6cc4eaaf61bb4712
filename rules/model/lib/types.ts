/**
 * The contracts of model checking (vkit-reference.md, finite-model and proof-assistant evidence): a
 * model profile runs a model's properties in restricted containers and says, per property, what it
 * established, what it refuted (only with a witness that replayed) and what stayed unknown.
 */
import type { Sandbox } from '../../../src/checkers/container.js';
import type { Diagnostic } from '../../../src/checkers/results.js';
import type { Claim } from '../../../src/config/evidence-terms.js';
import type { CheckerPlan, RunSetting } from '../../../src/formal/types.js';
import type { ModelProperty, ResolvedModel } from '../schema.js';

/** What the search covered: the finite scope a model-checking result speaks for. */
export interface ModelScope {
  /** Bounds the run was given (depth, memory, timeout), as the checker's arguments. */
  bounds: Record<string, number>;
  /** Macros the model was compiled with. */
  defines: string[];
  states: number | null;
  transitions: number | null;
  depth: number | null;
  /** `exhaustive` only for a complete, full (not bitstate, not hash-compact) search. */
  search: 'exhaustive' | 'bitstate' | 'hash-compact' | 'unknown';
  /** Whether the tool's own report says the search covered the whole state space. */
  complete: boolean;
  /** The tool's own completeness lines, verbatim (what it says it checked and what it did not). */
  tool_report: string[];
}

/** One step of a witness, as one replay saw it (process type, source location, statement). */
export interface WitnessStep {
  depth: number;
  process: string;
  file: string;
  line: number;
  statement: string;
}

/** The step-by-step comparison of two replays of one witness against the frozen model. */
export interface ReplayComparison {
  /** True only when both replays ran, saw the same violation and the same ordered steps and final values. */
  matched: boolean;
  /** The violation each replay ended in (normalised), e.g. `assertion violated: !(!(x<3))`. */
  violation: { expected: string; replayed: string | null };
  steps: { witness: number; replayed: number; compared: number };
  /** Final variable values compared (names present in both replays). */
  values_compared: number;
  /** The first difference, when there is one: where and what. */
  mismatch: string | null;
}

export interface Minimization {
  /** Seconds allowed (0: not attempted). */
  budget_s: number;
  attempted: boolean;
  /** The shorter search ran to its end within the budget. */
  completed: boolean;
  original_steps: number;
  /** The retained witness's length (the original when nothing shorter replayed). */
  steps: number;
  /** `shown minimal` only when the search completed and its witness replayed; else `not shown minimal`. */
  verdict: 'shown minimal' | 'not shown minimal';
  note: string;
}

export interface Witness {
  /** The retained native witness (artifact name, e.g. `witnesses/<property>.trail`). */
  artifact: string;
  format: string;
  steps: number;
  replay: ReplayComparison;
  minimization: Minimization;
}

export interface PropertyResult {
  name: string;
  kind: ModelProperty['kind'];
  required: boolean;
  /** established (complete search, no violation), refuted (a witness that replayed), unknown (anything else). */
  claim: Claim;
  reason: string;
  scope: ModelScope | null;
  witness: Witness | null;
  /** A witness that did not replay (kept, with the mismatch), or a search that stopped early: why the claim is unknown. */
  unreplayed?: Witness;
}

export interface ModelOutcome {
  properties: PropertyResult[];
  versions: Record<string, string>;
  diagnostics: Diagnostic[];
  /** What the results rest on and what they do not say. */
  logical_trust: { finite_scope: string[]; not_covered: string[]; trusted: string[] };
  notes: string[];
  /** Files under the output directory to retain (relative paths). */
  artifacts: string[];
}

export interface ModelContext extends RunSetting {
  model: ResolvedModel;
}

export interface ModelProfile {
  id: string;
  method: string;
  /** What the profile can check; any other property kind is refused at acceptance and BLOCKED at run. */
  propertyKinds: readonly ModelProperty['kind'][];
  assurance: 'finite_model' | 'kernel_proof';
  checker(sandbox: Sandbox | undefined, env: Record<string, string | undefined>): Promise<CheckerPlan>;
  /** Never throws for a problem of the model or the tool: each property says why it is unknown. */
  run(ctx: ModelContext): Promise<ModelOutcome>;
}
