/**
 * The canonical form of a validated model and its digest. Every token array loses its repeats and is
 * sorted by code point; `rules` and `assumptions` lose their repeats and are sorted by their own
 * canonical text (RFC 8785), after their inner arrays were normalised, so two rules that differ only in
 * the order of their inputs are one rule. The digest is sha256 over the RFC 8785 text of that form
 * (object keys in RFC 8785's own order, `state_observations` included), so reordering any array of a
 * model never changes it.
 */
import { jsonId, type Sha256Id } from '../../../src/hash/index.js';
import { sortByCodePoint, uniqueSorted } from './order.js';
import type { Assumption, Model, Rule } from './types.js';

export function normaliseModel(m: Model): Model {
  const states = uniqueSorted(m.states);
  const actions = uniqueSorted(m.actions);
  const inputs = uniqueSorted(m.inputs);
  const stateObservations = Object.create(null) as Record<string, string>;
  for (const s of states) stateObservations[s] = m.state_observations[s] as string;
  // Rules and assumptions name declared tokens only, so their lists are normalised through each
  // token's rank in its sorted alphabet (rank order is code-point order), and each token's JSON text
  // is computed once.
  const stateRank = ranks(states);
  const inputRank = ranks(inputs);
  const quoted = new Map<string, string>();
  for (const t of [...states, ...actions, ...inputs]) quoted.set(t, JSON.stringify(t));
  const q = (t: string) => quoted.get(t) ?? JSON.stringify(t);
  return {
    states,
    actions,
    inputs,
    observations: uniqueSorted(m.observations),
    initial_states: uniqueSorted(m.initial_states),
    assumptions: uniqueByText(
      m.assumptions.map((a): Assumption => ({ action: a.action, input: a.input })),
      (a) => assumptionText(a, q),
    ),
    rules: uniqueByText(
      m.rules.map(
        (r): Rule => ({
          source: r.source,
          action: r.action,
          inputs: byRank(r.inputs, inputRank, inputs),
          targets: byRank(r.targets, stateRank, states),
        }),
      ),
      (r) => ruleText(r, q),
    ),
    state_observations: stateObservations,
  };
}

function ranks(sorted: readonly string[]): Map<string, number> {
  return new Map(sorted.map((t, k) => [t, k]));
}

/** The distinct tokens of `list`, sorted by their rank in `alphabet` (a list naming only declared tokens). */
function byRank(list: readonly string[], rank: Map<string, number>, alphabet: readonly string[]): string[] {
  if (list.length < 2) return [...list];
  const rs: number[] = [];
  for (const t of list) {
    const r = rank.get(t);
    if (r === undefined) return uniqueSorted(list); // not a declared token: validation should have refused it
    rs.push(r);
  }
  if (rs.length > 16) rs.sort((x, y) => x - y);
  else {
    // Insertion sort: most lists are a handful of tokens, where it beats a comparator call per pair.
    for (let k = 1; k < rs.length; k++) {
      const x = rs[k] as number;
      let j = k - 1;
      for (; j >= 0 && (rs[j] as number) > x; j--) rs[j + 1] = rs[j] as number;
      rs[j + 1] = x;
    }
  }
  const out: string[] = [];
  for (let k = 0; k < rs.length; k++) if (k === 0 || rs[k] !== rs[k - 1]) out.push(alphabet[rs[k] as number] as string);
  return out;
}

/** `sha256:<hex>` of a model: over the canonical text of its normal form. */
export function modelDigest(m: Model): Sha256Id {
  return jsonId(normaliseModel(m));
}

/** The same digest for a model already in normal form (skips normalising twice). */
export function normalDigest(normal: Model): Sha256Id {
  return jsonId(normal);
}

/*
 * The sort keys below are the RFC 8785 texts of an assumption and of a rule whose arrays are already
 * normalised. These two shapes are fixed (string members only, keys already in RFC 8785 order, and
 * RFC 8785 serialises strings exactly as JSON.stringify does), so the text is assembled directly rather
 * than by running the canonicalizer on each of thousands of small objects; a test checks them against
 * `canonicalJson` on tricky tokens. The digest itself always goes through `jsonId`.
 */
const quote = (t: string) => JSON.stringify(t);

/** RFC 8785 text of `{action, input}`. */
export function assumptionText(a: Assumption, q: (t: string) => string = quote): string {
  return `{"action":${q(a.action)},"input":${q(a.input)}}`;
}

/** RFC 8785 text of a rule (its `inputs` and `targets` as given). */
export function ruleText(r: Rule, q: (t: string) => string = quote): string {
  let ins = '';
  for (const i of r.inputs) ins += (ins ? ',' : '') + q(i);
  let tgs = '';
  for (const t of r.targets) tgs += (tgs ? ',' : '') + q(t);
  return `{"action":${q(r.action)},"inputs":[${ins}],"source":${q(r.source)},"targets":[${tgs}]}`;
}

function uniqueByText<T>(items: readonly T[], text: (item: T) => string): T[] {
  const byText = new Map<string, T>();
  for (const item of items) {
    const t = text(item);
    if (!byText.has(t)) byText.set(t, item);
  }
  return sortByCodePoint([...byText.keys()]).map((t) => byText.get(t) as T);
}
