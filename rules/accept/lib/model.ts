/**
 * The shapes the acceptance modules hand each other. The documents themselves stay TOML tables
 * (`Doc.data`); these are the derived views that coverage, decisions, stacks and render need.
 */
import type { IsoDate } from '../../../src/text/dates.js';
import type { FileReads } from './file-reads.js';
import type { Findings, Verdict } from './report.js';
import type { Doc } from './toml.js';

export const TIERS = ['T1', 'T2', 'T3', 'T4', 'T5'] as const;
export type Tier = (typeof TIERS)[number];

/** Tier a is at least as strong as b (T1 strongest). */
export const tierAtLeast = (a: Tier, b: Tier) => TIERS.indexOf(a) <= TIERS.indexOf(b);

export interface EvidenceView {
  index: number;
  kind?: string;
  family?: string;
  result?: string;
  /** The record's tier after capping by its family's ceiling. */
  tier?: Tier;
  author?: string;
  captured_at_commit?: string;
  /** An observed-red mutation/ablation control naming this claim. */
  witnessControl: boolean;
  /** Any control present. */
  control: boolean;
  /**
   * The first file this record names that does not exist or cannot be read (`record 'ev/run.txt'`,
   * `inputs 'src/a.js'`): such a record backs nothing, whatever it says (acceptance-details.md §2).
   */
  unreadable?: string;
}

export interface SelfVerify {
  command: string;
  expect: string;
  expect_stream: 'stdout' | 'stderr' | 'combined';
  positive_control?: string;
}

export interface ClaimView {
  index: number;
  id: string;
  clause?: string;
  status: string;
  grade?: string;
  weightRequested: boolean;
  /** Requested and every weight rule holds. */
  weightGranted: boolean;
  /**
   * Why a requested weight is not granted: the `WEIGHT REFUSED: ...` reasons (without the claim
   * prefix), then the claim's own first error when it has any (an error of its own refuses weight
   * too). Never empty when weight is requested and not granted.
   */
  weightRefusals: string[];
  /** Strongest passing record's tier, capped by the family ceiling; undefined without passing evidence. */
  tier?: Tier;
  evidence: EvidenceView[];
  /** A valid watched_fail table or a witness control. */
  witnessed: boolean;
  selfVerify?: SelfVerify;
}

export interface FormatOptions {
  /** Absolute root that every path in the document is relative to (never escaped). */
  root: string;
  strict?: boolean;
  strictWeight?: boolean;
  /** The command's reads, shared with the rest of the command (check-package); else the validation reads afresh. */
  files?: FileReads;
}

export interface FormatResult {
  doc: Doc;
  verdict: Verdict;
  findings: Findings;
  claims: ClaimView[];
  /** `mode = "prospective"` subject, or no evidenced claim. */
  prospective: boolean;
}

export interface EffectOptions {
  /** Today (UTC) unless given; never part of an action key. */
  now: IsoDate;
  allowConditions: boolean;
}

/** Where documents and bytes come from when checking a decision (and, recursively, a stack). */
export interface DecisionContext {
  /** Absolute --root: every path in the documents is relative to it. */
  root: string;
  /** Acceptor name -> absolute directory holding `<crate>/acceptance-{specification,package,decision}.toml`. */
  stores: Record<string, string>;
  /** Commit (40 hex or a prefix as given) -> absolute directory where that commit's bytes can be read. */
  trees: Record<string, string>;
  effect?: EffectOptions;
  /** Stack recursion state: crate names being checked (cycle detection) and the current depth. */
  visiting?: readonly string[];
  /** The reads of the one command this context belongs to (file-reads.ts); never kept past it. */
  files?: FileReads;
}

export interface DecisionPaths {
  /** Absolute paths plus the names shown in messages. */
  spec: { abs: string; file: string };
  package: { abs: string; file: string };
  decision: { abs: string; file: string };
}

export interface EffectJudgement {
  eligible: boolean;
  indeterminate: boolean;
  /** `EFFECT-ELIGIBLE: ...` / `EFFECT-INELIGIBLE: <reason>` without the prefix. */
  reason: string;
}

/** One element of a checked stack, in stack order. */
export interface StackElement {
  name: string;
  version?: string;
  source?: string;
  binding?: string;
  digest?: string;
  acceptor?: string;
  /** The library decision's issuer and time, when found. */
  issuer?: { name: string; role: string };
  issued_at?: string;
  status: 'accepted' | 'failed' | 'indeterminate' | 'gap' | 'boundary';
  reason?: string;
}

export interface StackReport {
  /** Rows of the relation table, all five relations in order. */
  relations: { relation: string; inventories: string; boundary: string[]; gaps: string[] }[];
  elements: StackElement[];
  status: 'pass' | 'fail' | 'indeterminate';
}

export interface DecisionCheck {
  /** valid: documents valid and bindings current. stale: a bound hash changed. */
  status: 'valid' | 'invalid' | 'stale' | 'indeterminate';
  verdict?: string;
  issued_at?: string;
  issuer?: { name: string; role: string };
  findings: Findings;
  effect?: EffectJudgement;
  stack?: StackReport;
}

/** A requirement of a specification, as coverage and decisions need it. */
export interface RequirementView {
  index: number;
  id: string;
  statement?: string;
  mandatory: boolean;
  waivable: boolean;
  kind: 'item' | 'cross-cutting' | 'chain';
  evidence: {
    min_tier?: Tier;
    weighted_required: boolean;
    control_required: boolean;
    freshness: 'delivered-revision' | 'any';
    independence: 'none' | 'author-not-producer' | 'consumer-run' | 'third-party';
    methods: string[];
    /** `recipe_required` (0.3.2 floor kept): the claim needs a self_verify command + expect. */
    recipe_required?: boolean;
  };
  /** Cross-cutting only: the item requirements whose claims it constrains (`all` = every evidenced claim). */
  over?: 'all' | string[];
  /** Cross-cutting only: what each constrained claim must show. */
  demands?: {
    min_tier?: Tier;
    weighted_required: boolean;
    control_required: boolean;
    /** Field -> required leading token (`bounds = "unbounded"`). */
    fields: Record<string, string>;
    /** Field -> required whole value. */
    fields_exact: Record<string, string>;
  };
  /**
   * What this vkit cannot evaluate of the requirement's floor (`evidence.coverage_min`,
   * `[acceptance].assurance_class 'iec-61508/3'`): coverage never computes such a requirement satisfied.
   */
  unevaluated: string[];
}

export interface SpecificationCheck {
  findings: Findings;
  requirements: RequirementView[];
  /** `[acceptance] authority`, `stale_after` (ISO-8601 duration), consumer_verification. */
  authority?: string;
  staleAfter?: string;
  consumerVerification?: 'package-trusted' | 'spot-check' | 're-execute-all';
  /** draft/issued/ratified...; a producer-issued spec binds only once ratified. */
  binding: boolean;
}

/** `indeterminate`: nothing the claims show fails, but part of the floor cannot be evaluated (or the stack check cannot decide). */
export type CoverageStatus = 'satisfied' | 'partial' | 'deviation-declared' | 'gap' | 'missing' | 'indeterminate';

export interface CoverageCount {
  met: number;
  total: number;
  /** Requirements whose coverage is indeterminate; present only when there are some. */
  indeterminate?: number;
}

export interface RequirementCoverage {
  requirement: string;
  mandatory: boolean;
  status: CoverageStatus;
  /** Claim ids that meet the floor. */
  basis: string[];
  /** The first failed floor reason of each claim that answers the requirement but fails. */
  failures: { claim: string; reason: string }[];
}

export interface CoverageResult {
  requirements: RequirementCoverage[];
  mandatory: CoverageCount;
  optional: CoverageCount;
  /** Every mandatory requirement satisfied, over a valid package. */
  acceptable: boolean;
  /** Why the record is not acceptable whatever the counts say: `the package check is indeterminate`. */
  blockedBy?: string;
}

export interface PackageCheck {
  findings: Findings;
  format: FormatResult;
  spec: SpecificationCheck;
  coverage: CoverageResult;
  stack?: StackReport;
  /** valid, invalid, or indeterminate (unresolvable reference, registry crate in a stack). */
  status: 'valid' | 'invalid' | 'indeterminate';
}
