/**
 * The profile table: what `[format] profile` may name and the rules each profile adds to the core
 * format. The core validator never names a profile; it asks this table. Only
 * `acceptance/verification` (optionally `/code/<lang>`) is implemented; conformance and
 * troubleshooting are added here, as new rows, when they are asked for (acceptance-details.md §5).
 */
import type { Findings } from './report.js';
import type { Doc } from './toml.js';

interface ProfileRules {
  /** The meaning half of the id: `verification`. */
  meaning: string;
  /** What may follow the meaning (`code/rust`); the empty list is always allowed. */
  binding(parts: readonly string[]): boolean;
  /** Human form of the allowed suffixes, for the error message. */
  bindingHelp: string;
  /**
   * The evidence kind registry: kind -> the family a record of that kind must declare. A kind
   * outside the registry is accepted with a warning and judged by its declared family (the kind
   * list of acceptance-details.md is open, the family list is closed).
   */
  kinds: Readonly<Record<string, string>>;
  /** Profile-specific document rules, run after the core rules. */
  check?(doc: Doc, findings: Findings): void;
}

const LANG = /^[a-z0-9][a-z0-9+-]*$/;

const PROFILES: Readonly<Record<string, ProfileRules>> = {
  verification: {
    meaning: 'verification',
    binding: (parts) => parts.length === 0 || (parts.length === 2 && parts[0] === 'code' && LANG.test(parts[1]!)),
    bindingHelp: 'acceptance/verification or acceptance/verification/code/<lang>',
    kinds: {
      'unit-test': 'dynamic',
      'property-test': 'dynamic',
      'integration-test': 'dynamic',
      fuzz: 'dynamic',
      'mutation-test': 'dynamic',
      'kani-harness': 'bmc',
      'cbmc-harness': 'bmc',
      'verus-proof': 'smt-refinement',
      'smt-query': 'smt-refinement',
      'tlc-model': 'finite-model',
      'alloy-model': 'finite-model',
      'spin-model': 'finite-model',
      'lean-theorem': 'kernel',
      'coq-theorem': 'kernel',
      'isabelle-theorem': 'kernel',
      lint: 'mechanical',
      'type-check': 'mechanical',
      'schema-check': 'mechanical',
      'human-review': 'judgment',
      'llm-review': 'judgment',
      'acceptance-claim': 'reference',
    },
  },
};

export interface ResolvedProfile {
  id: string;
  rules: ProfileRules;
  binding: string[];
}

const PROFILE_ID = /^acceptance\/[a-z0-9][a-z0-9-]*(?:\/[a-z0-9][a-z0-9+-]*)*$/;

/** The profile a `[format] profile` value names, or the reason it names none. */
export function resolveProfile(value: unknown): ResolvedProfile | { error: string } {
  const known = Object.values(PROFILES)
    .map((p) => p.bindingHelp)
    .join('; ');
  if (value === undefined) return { error: `[format].profile is required (one of: ${known})` };
  if (typeof value !== 'string' || !PROFILE_ID.test(value))
    return {
      error: `[format].profile must be a profile id such as 'acceptance/verification', got ${JSON.stringify(value)}`,
    };
  const [, meaning, ...binding] = value.split('/');
  const rules = PROFILES[meaning!];
  if (!rules) return { error: `[format].profile '${value}' is not a profile this vkit implements (known: ${known})` };
  if (!rules.binding(binding))
    return { error: `[format].profile '${value}' has an unknown suffix (allowed: ${rules.bindingHelp})` };
  return { id: value, rules, binding };
}
