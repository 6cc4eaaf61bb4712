/**
 * The request and model shapes of `vkit model compare` (see `spec/model-comparison.md`). A request
 * is what the user writes; `CompareRequest` is the validated value with `max_contexts` resolved.
 */

/** An environment context the model allows: the pair (action, input). */
export interface Assumption {
  action: string;
  input: string;
}

/** From `source`, under `action` with any input in `inputs` (the guard), go to any of `targets`. */
export interface Rule {
  source: string;
  action: string;
  inputs: string[];
  targets: string[];
}

/** One explicit finite model. Every key is required; tokens are non-empty strings. */
export interface Model {
  states: string[];
  actions: string[];
  inputs: string[];
  observations: string[];
  initial_states: string[];
  /** The allow-list of contexts that may occur; empty means nothing can fire. */
  assumptions: Assumption[];
  rules: Rule[];
  /** Exactly the declared states as keys (a null-prototype object), each mapped to a declared observation. */
  state_observations: Record<string, string>;
}

/** The default of `max_contexts`. */
export const DEFAULT_MAX_CONTEXTS = 32_768;
/** The fixed limit on expanded rule edges, across both models. */
export const MAX_EDGES = 65_536;

export interface CompareRequest {
  schema_version: 1;
  before: Model;
  after: Model;
  /**
   * Contexts budget across both models, 1 to 2^53-1.
   * @default 32768
   */
  max_contexts: number;
}

export type Side = 'before' | 'after';

/** The four alphabets, in the order comparability reasons name them. */
export const ALPHABETS = ['states', 'actions', 'inputs', 'observations'] as const;
export type AlphabetName = (typeof ALPHABETS)[number];
