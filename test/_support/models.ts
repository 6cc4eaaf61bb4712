/**
 * Builders for model-comparison tests. (Lives beside the suites it serves; the lead may move it to
 * test/_support/.)
 */
import type { Model } from '../../rules/compare/lib/index.js';

export interface ModelSpec {
  states: string[];
  actions?: string[];
  inputs?: string[];
  observations?: string[];
  initial?: string[];
  /** `[action, input]` pairs. */
  assumptions?: Array<[string, string]>;
  /** `[source, action, inputs, targets]`. */
  rules?: Array<[string, string, string[], string[]]>;
  /** Observation per state; states not named get the first observation. */
  obs?: Record<string, string>;
}

/** A model from a compact spec (defaults: action `go`, input `x`, observation `o`, first state initial). */
export function model(spec: ModelSpec): Model {
  const observations = spec.observations ?? ['o'];
  const so: Record<string, string> = {};
  for (const s of spec.states) setOwn(so, s, spec.obs?.[s] ?? (observations[0] as string));
  return {
    states: [...spec.states],
    actions: [...(spec.actions ?? ['go'])],
    inputs: [...(spec.inputs ?? ['x'])],
    observations: [...observations],
    initial_states: [...(spec.initial ?? [spec.states[0] as string])],
    assumptions: (spec.assumptions ?? []).map(([action, input]) => ({ action, input })),
    rules: (spec.rules ?? []).map(([source, action, inputs, targets]) => ({
      source,
      action,
      inputs: [...inputs],
      targets: [...targets],
    })),
    state_observations: so,
  };
}

/** The spec's toggle: closed --click/tap--> open --click/tap--> closed. */
export function toggle(): Model {
  return {
    states: ['closed', 'open'],
    actions: ['click'],
    inputs: ['tap'],
    observations: ['shut', 'ajar'],
    initial_states: ['closed'],
    assumptions: [{ action: 'click', input: 'tap' }],
    rules: [
      { source: 'closed', action: 'click', inputs: ['tap'], targets: ['open'] },
      { source: 'open', action: 'click', inputs: ['tap'], targets: ['closed'] },
    ],
    state_observations: { closed: 'shut', open: 'ajar' },
  };
}

/** The toggle whose second click leaves it open. */
export function stuckToggle(): Model {
  const m = toggle();
  (m.rules[1] as Model['rules'][number]).targets = ['open'];
  return m;
}

export function request(before: Model, after: Model, maxContexts?: number): Record<string, unknown> {
  return maxContexts === undefined
    ? { schema_version: 1, before, after }
    : { schema_version: 1, before, after, max_contexts: maxContexts };
}

const ZERO = { count: 0, witness: null } as const;

/** All six categories empty, with overrides. */
export function categories(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    initial_states: ZERO,
    states: ZERO,
    assumption_contexts: ZERO,
    enabled_contexts: ZERO,
    transitions: ZERO,
    observations: ZERO,
    ...over,
  };
}

/** A step `{from, action, input, to}`. */
export function step(from: string, action: string, input: string, to: string) {
  return { from, action, input, to };
}

export { prng } from './random.js';

/** A copy of `xs` in a random order. */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let k = out.length - 1; k > 0; k--) {
    const j = Math.floor(rand() * (k + 1));
    [out[k], out[j]] = [out[j] as T, out[k] as T];
  }
  return out;
}

/** Code-point order written independently of the library's comparator (for naive references). */
export function cpCompare(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let k = 0; k < Math.min(x.length, y.length); k++)
    if (x[k] !== y[k]) return (x[k] as number) < (y[k] as number) ? -1 : 1;
  return Math.sign(x.length - y.length);
}

/**
 * The same model with every array shuffled, repeats added to the set-valued arrays (initial states,
 * assumptions, rules, a rule's inputs and targets) and `state_observations` keys reordered.
 */
export function scrambled(m: Model, rand: () => number): Model {
  const dup = <T>(xs: readonly T[]): T[] =>
    xs.length && rand() < 0.5 ? [...xs, xs[Math.floor(rand() * xs.length)] as T] : [...xs];
  const so: Record<string, string> = {};
  for (const s of shuffled(Object.keys(m.state_observations), rand)) setOwn(so, s, m.state_observations[s] as string);
  return {
    state_observations: so,
    rules: shuffled(
      dup(m.rules).map((r) => ({
        targets: shuffled(dup(r.targets), rand),
        inputs: shuffled(dup(r.inputs), rand),
        action: r.action,
        source: r.source,
      })),
      rand,
    ),
    assumptions: shuffled(
      dup(m.assumptions).map((a) => ({ input: a.input, action: a.action })),
      rand,
    ),
    initial_states: shuffled(dup(m.initial_states), rand),
    observations: shuffled(m.observations, rand),
    inputs: shuffled(m.inputs, rand),
    actions: shuffled(m.actions, rand),
    states: shuffled(m.states, rand),
  };
}

/** `obj[key] = value` as an own data property, even for `__proto__` (as JSON.parse would make it). */
export function setOwn(obj: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy through JSON (keeps an own `__proto__` member, unlike object spread). */
export function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}
