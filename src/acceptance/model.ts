/**
 * The shapes the acceptance modules hand each other. The documents themselves stay TOML tables
 * (`Doc.data`); these are the derived views that coverage, decisions, stacks and render need.
 */
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
  /** `WEIGHT REFUSED: ...` reasons (without the claim prefix). */
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
}

export interface FormatResult {
  doc: Doc;
  verdict: Verdict;
  findings: Findings;
  claims: ClaimView[];
  /** `mode = "prospective"` subject, or no evidenced claim. */
  prospective: boolean;
}
