/**
 * Exploration of one model within the shared budgets: breadth-first from the initial states in
 * sorted order, each dequeued state's steps expanded in sorted (action, input, target) order, so the
 * first discovery of a state fixes a shortest, deterministic path.
 *
 * Everything here works on integer indices. Both models of a comparable pair share their alphabets,
 * sorted by code point, so an index's order is its token's order and one index space serves both.
 * A context (a, i) is the number `a * |inputs| + i`, which sorts as the pair does.
 */
import type { Model, Side } from './types.js';

/** A model over the shared, sorted alphabets, in flat integer arrays. */
export interface IndexedModel {
  nStates: number;
  nActions: number;
  nInputs: number;
  /** Sorted, distinct. */
  initial: Int32Array;
  /** 1 where the state is initial. */
  isInitial: Uint8Array;
  /** The permitted contexts, as a set and sorted. */
  permitted: Set<number>;
  permittedSorted: number[];
  /** Rules grouped by source: those of state s are `ruleStart[s] .. ruleStart[s + 1]`, sorted by action. */
  ruleStart: Int32Array;
  ruleAction: Int32Array;
  /** Inputs of rule r: `ruleInputs[inputStart[r] .. inputStart[r + 1]]`, sorted, distinct. */
  inputStart: Int32Array;
  ruleInputs: Int32Array;
  /** Targets of rule r: `ruleTargets[targetStart[r] .. targetStart[r + 1]]`, sorted, distinct. */
  targetStart: Int32Array;
  ruleTargets: Int32Array;
  observation: Int32Array;
}

/** The alphabets both models declare, each sorted by code point. */
export interface Alphabets {
  states: readonly string[];
  actions: readonly string[];
  inputs: readonly string[];
  observations: readonly string[];
}

export type BudgetName = 'max_contexts' | 'max_edges';

/** The budgets, shared by both explorations. Totals include the increment that exhausted them. */
export interface Budget {
  maxContexts: number;
  contextsUsed: number;
  maxEdges: number;
  edgesUsed: number;
  exhausted: { budget: BudgetName; side: Side } | null;
}

export interface Exploration {
  /** False when a budget ran out; nothing else here may then be trusted as complete. */
  complete: boolean;
  /** States discovered. */
  reached: number;
  /** Length of the fixed path to each state, or -1 when unreachable. */
  dist: Int32Array;
  /** The step that discovered each state (-1 for initial and unreachable states). */
  parent: Int32Array;
  parentAction: Int32Array;
  parentInput: Int32Array;
  /** Dequeue position of each reachable state, -1 otherwise; indexes the `ctx*` ranges below. */
  slot: Int32Array;
  /** Enabled contexts of slot k: `ctxStart[k] .. ctxStart[k + 1]`, sorted by (action, input). */
  ctxStart: number[];
  ctxAction: number[];
  ctxInput: number[];
  /** Targets of enabled context c: `targets[tgtStart[c] .. tgtStart[c + 1]]`, sorted, distinct, non-empty. */
  tgtStart: number[];
  targets: number[];
}

/**
 * Indexes a validated model over the shared alphabets. A model in normal form (`normaliseModel`)
 * already has sorted, distinct token lists, which become sorted index lists here; any other list is
 * sorted and deduplicated on the way.
 */
export function indexModel(m: Model, alphabets: Alphabets): IndexedModel {
  const index = (tokens: readonly string[]) => new Map(tokens.map((t, k) => [t, k]));
  const S = index(alphabets.states);
  const A = index(alphabets.actions);
  const I = index(alphabets.inputs);
  const O = index(alphabets.observations);
  const at = (map: Map<string, number>, t: string): number => {
    const k = map.get(t);
    if (k === undefined) throw new Error(`internal: token ${JSON.stringify(t)} is not in the shared alphabet`);
    return k;
  };
  const nStates = alphabets.states.length;
  const nActions = alphabets.actions.length;
  const nInputs = alphabets.inputs.length;
  const initial = sortedDistinct(m.initial_states.map((s) => at(S, s)));
  const isInitial = new Uint8Array(nStates);
  for (const s of initial) isInitial[s] = 1;
  const permitted = new Set(m.assumptions.map((x) => at(A, x.action) * nInputs + at(I, x.input)));
  const permittedSorted = [...permitted].sort(numeric);

  // Order the rules by (source, action): a counting sort by action, then a stable one by source.
  const n = m.rules.length;
  const src = new Int32Array(n);
  const act = new Int32Array(n);
  m.rules.forEach((r, k) => {
    src[k] = at(S, r.source);
    act[k] = at(A, r.action);
  });
  const byAction = countingOrder(
    Int32Array.from({ length: n }, (_, k) => k),
    act,
    nActions,
  );
  const order = countingOrder(byAction, src, nStates);
  const ruleStart = new Int32Array(nStates + 1);
  for (let k = 0; k < n; k++) ruleStart[(src[k] as number) + 1]++;
  for (let s = 0; s < nStates; s++) ruleStart[s + 1] += ruleStart[s] as number;

  const ruleAction = new Int32Array(n);
  const inputStart = new Int32Array(n + 1);
  const targetStart = new Int32Array(n + 1);
  const ins: number[] = [];
  const tgs: number[] = [];
  order.forEach((r, k) => {
    const rule = m.rules[r] as Model['rules'][number];
    ruleAction[k] = act[r] as number;
    appendSorted(
      ins,
      rule.inputs.map((i) => at(I, i)),
    );
    inputStart[k + 1] = ins.length;
    appendSorted(
      tgs,
      rule.targets.map((t) => at(S, t)),
    );
    targetStart[k + 1] = tgs.length;
  });
  const observation = new Int32Array(nStates);
  alphabets.states.forEach((s, k) => (observation[k] = at(O, m.state_observations[s] as string)));
  return {
    nStates,
    nActions,
    nInputs,
    initial,
    isInitial,
    permitted,
    permittedSorted,
    ruleStart,
    ruleAction,
    inputStart,
    ruleInputs: Int32Array.from(ins),
    targetStart,
    ruleTargets: Int32Array.from(tgs),
    observation,
  };
}

/** `ids` reordered stably by `key[id]`, keys in `0 .. range - 1`. */
function countingOrder(ids: Int32Array, key: Int32Array, range: number): Int32Array {
  const start = new Int32Array(range + 1);
  for (const id of ids) start[(key[id] as number) + 1]++;
  for (let k = 0; k < range; k++) start[k + 1] += start[k] as number;
  const out = new Int32Array(ids.length);
  for (const id of ids) out[start[key[id] as number]++] = id;
  return out;
}

function sortedDistinct(xs: number[]): Int32Array {
  return Int32Array.from(new Set(xs)).sort();
}

/** Appends `xs` to `out` sorted and distinct (a no-op check when `xs` already is). */
function appendSorted(out: number[], xs: number[]): void {
  let sorted = true;
  for (let k = 1; k < xs.length; k++) if ((xs[k] as number) <= (xs[k - 1] as number)) sorted = false;
  for (const x of sorted ? xs : sortedDistinct(xs)) out.push(x);
}

const numeric = (x: number, y: number) => x - y;

/**
 * Explores `m`, charging `budget`. Each dequeued state first consumes |actions| x |inputs| contexts,
 * then each distinct step (s, a, i, t) leaving it one edge, in sorted order; the first increment
 * that takes a total past its limit stops the exploration with `complete: false`.
 */
export function explore(m: IndexedModel, budget: Budget, side: Side): Exploration {
  const { nStates, nInputs, ruleStart, ruleAction, inputStart, ruleInputs, targetStart, ruleTargets, permitted } = m;
  const perState = m.nActions * nInputs;
  const dist = new Int32Array(nStates).fill(-1);
  const parent = new Int32Array(nStates).fill(-1);
  const parentAction = new Int32Array(nStates).fill(-1);
  const parentInput = new Int32Array(nStates).fill(-1);
  const slot = new Int32Array(nStates).fill(-1);
  const queue = new Int32Array(nStates);
  const ctxStart: number[] = [];
  const ctxAction: number[] = [];
  const ctxInput: number[] = [];
  const tgtStart: number[] = [];
  const targets: number[] = [];
  let tail = 0;
  for (const s of m.initial) {
    if (dist[s] === -1) {
      dist[s] = 0;
      queue[tail++] = s;
    }
  }
  // Scratch space for merging the rules of one (state, action) group: a stamp per input marks the
  // inputs touched in this group, a linked list per input (nodeRule/nodeNext) holds its rules, and a
  // stamp per state dedupes the targets of one context.
  const inputStamp = new Int32Array(nInputs);
  const inputHead = new Int32Array(nInputs);
  const targetStamp = new Int32Array(nStates);
  let iStamp = 0;
  let tStamp = 0;
  const nodeRule: number[] = [];
  const nodeNext: number[] = [];
  const touched: number[] = [];
  const merged: number[] = [];

  const result = (complete: boolean): Exploration => {
    ctxStart.push(ctxAction.length);
    tgtStart.push(targets.length);
    return {
      complete,
      reached: tail,
      dist,
      parent,
      parentAction,
      parentInput,
      slot,
      ctxStart,
      ctxAction,
      ctxInput,
      tgtStart,
      targets,
    };
  };
  const exhausted = (name: 'max_contexts' | 'max_edges'): Exploration => {
    budget.exhausted = { budget: name, side };
    return result(false);
  };

  for (let head = 0; head < tail; head++) {
    const s = queue[head] as number;
    slot[s] = head;
    budget.contextsUsed += perState;
    if (budget.contextsUsed > budget.maxContexts) return exhausted('max_contexts');
    ctxStart.push(ctxAction.length);
    const d = (dist[s] as number) + 1;
    const rEnd = ruleStart[s + 1] as number;
    let r = ruleStart[s] as number;
    while (r < rEnd) {
      const a = ruleAction[r] as number;
      let gEnd = r + 1;
      while (gEnd < rEnd && ruleAction[gEnd] === a) gEnd++;
      const base = a * nInputs;
      if (gEnd === r + 1) {
        // One rule for this (state, action): its inputs and targets are already sorted and distinct.
        const tLo = targetStart[r] as number;
        const tHi = targetStart[r + 1] as number;
        for (let x = inputStart[r] as number, xEnd = inputStart[r + 1] as number; x < xEnd; x++) {
          const i = ruleInputs[x] as number;
          if (!permitted.has(base + i)) continue;
          ctxAction.push(a);
          ctxInput.push(i);
          tgtStart.push(targets.length);
          for (let y = tLo; y < tHi; y++) {
            const t = ruleTargets[y] as number;
            if (++budget.edgesUsed > budget.maxEdges) return exhausted('max_edges');
            targets.push(t);
            if (dist[t] === -1) {
              dist[t] = d;
              parent[t] = s;
              parentAction[t] = a;
              parentInput[t] = i;
              queue[tail++] = t;
            }
          }
        }
      } else {
        iStamp++;
        touched.length = 0;
        nodeRule.length = 0;
        nodeNext.length = 0;
        for (let q = r; q < gEnd; q++) {
          for (let x = inputStart[q] as number, xEnd = inputStart[q + 1] as number; x < xEnd; x++) {
            const i = ruleInputs[x] as number;
            if (!permitted.has(base + i)) continue;
            if (inputStamp[i] !== iStamp) {
              inputStamp[i] = iStamp;
              inputHead[i] = -1;
              touched.push(i);
            }
            nodeRule.push(q);
            nodeNext.push(inputHead[i] as number);
            inputHead[i] = nodeRule.length - 1;
          }
        }
        if (touched.length > 1) touched.sort(numeric);
        for (let x = 0; x < touched.length; x++) {
          const i = touched[x] as number;
          tStamp++;
          merged.length = 0;
          for (let n = inputHead[i] as number; n !== -1; n = nodeNext[n] as number) {
            const q = nodeRule[n] as number;
            for (let y = targetStart[q] as number, yEnd = targetStart[q + 1] as number; y < yEnd; y++) {
              const t = ruleTargets[y] as number;
              if (targetStamp[t] !== tStamp) {
                targetStamp[t] = tStamp;
                merged.push(t);
              }
            }
          }
          if (merged.length > 1) merged.sort(numeric);
          ctxAction.push(a);
          ctxInput.push(i);
          tgtStart.push(targets.length);
          for (let y = 0; y < merged.length; y++) {
            const t = merged[y] as number;
            if (++budget.edgesUsed > budget.maxEdges) return exhausted('max_edges');
            targets.push(t);
            if (dist[t] === -1) {
              dist[t] = d;
              parent[t] = s;
              parentAction[t] = a;
              parentInput[t] = i;
              queue[tail++] = t;
            }
          }
        }
      }
      r = gEnd;
    }
  }
  return result(true);
}
