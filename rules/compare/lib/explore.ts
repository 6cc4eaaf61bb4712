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
  const bfs = new Search(m);
  const perState = m.nActions * m.nInputs;
  const exhausted = (name: BudgetName): Exploration => {
    budget.exhausted = { budget: name, side };
    return bfs.result(false);
  };
  for (let head = 0; head < bfs.tail; head++) {
    const s = bfs.queue[head] as number;
    bfs.slot[s] = head;
    budget.contextsUsed += perState;
    if (budget.contextsUsed > budget.maxContexts) return exhausted('max_contexts');
    bfs.ctxStart.push(bfs.ctxAction.length);
    if (!expandState(bfs, s, budget)) return exhausted('max_edges');
  }
  return bfs.result(true);
}

/** The breadth-first search of one model: what it discovered, its queue, and the enabled contexts so far. */
class Search {
  readonly dist: Int32Array;
  readonly parent: Int32Array;
  readonly parentAction: Int32Array;
  readonly parentInput: Int32Array;
  readonly slot: Int32Array;
  readonly queue: Int32Array;
  tail = 0;
  readonly ctxStart: number[] = [];
  readonly ctxAction: number[] = [];
  readonly ctxInput: number[] = [];
  readonly tgtStart: number[] = [];
  readonly targets: number[] = [];
  // Scratch space for merging the rules of one (state, action) group: a stamp per input marks the
  // inputs touched in this group, a linked list per input (nodeRule/nodeNext) holds its rules, and a
  // stamp per state dedupes the targets of one context.
  readonly inputStamp: Int32Array;
  readonly inputHead: Int32Array;
  readonly targetStamp: Int32Array;
  iStamp = 0;
  tStamp = 0;
  readonly nodeRule: number[] = [];
  readonly nodeNext: number[] = [];
  readonly touched: number[] = [];
  readonly merged: number[] = [];

  constructor(readonly m: IndexedModel) {
    const { nStates, nInputs } = m;
    this.dist = new Int32Array(nStates).fill(-1);
    this.parent = new Int32Array(nStates).fill(-1);
    this.parentAction = new Int32Array(nStates).fill(-1);
    this.parentInput = new Int32Array(nStates).fill(-1);
    this.slot = new Int32Array(nStates).fill(-1);
    this.queue = new Int32Array(nStates);
    this.inputStamp = new Int32Array(nInputs);
    this.inputHead = new Int32Array(nInputs);
    this.targetStamp = new Int32Array(nStates);
    for (const s of m.initial) {
      if (this.dist[s] === -1) {
        this.dist[s] = 0;
        this.queue[this.tail++] = s;
      }
    }
  }

  result(complete: boolean): Exploration {
    this.ctxStart.push(this.ctxAction.length);
    this.tgtStart.push(this.targets.length);
    return {
      complete,
      reached: this.tail,
      dist: this.dist,
      parent: this.parent,
      parentAction: this.parentAction,
      parentInput: this.parentInput,
      slot: this.slot,
      ctxStart: this.ctxStart,
      ctxAction: this.ctxAction,
      ctxInput: this.ctxInput,
      tgtStart: this.tgtStart,
      targets: this.targets,
    };
  }
}

/** Expands the rules of dequeued state `s`, one action's group at a time; false once the edge budget ran out. */
function expandState(bfs: Search, s: number, budget: Budget): boolean {
  const { ruleStart, ruleAction } = bfs.m;
  const d = (bfs.dist[s] as number) + 1;
  const rEnd = ruleStart[s + 1] as number;
  let r = ruleStart[s] as number;
  while (r < rEnd) {
    const a = ruleAction[r] as number;
    let gEnd = r + 1;
    while (gEnd < rEnd && ruleAction[gEnd] === a) gEnd++;
    const within = gEnd === r + 1 ? expandRule(bfs, s, d, a, r, budget) : expandGroup(bfs, s, d, a, r, gEnd, budget);
    if (!within) return false;
    r = gEnd;
  }
  return true;
}

/** One rule for this (state, action): its inputs and targets are already sorted and distinct. */
function expandRule(bfs: Search, s: number, d: number, a: number, r: number, budget: Budget): boolean {
  const { nInputs, inputStart, ruleInputs, targetStart, ruleTargets, permitted } = bfs.m;
  const { dist, ctxAction, ctxInput, tgtStart, targets } = bfs;
  const base = a * nInputs;
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
      if (++budget.edgesUsed > budget.maxEdges) return false;
      targets.push(t);
      if (dist[t] === -1) discover(bfs, t, d, s, a, i);
    }
  }
  return true;
}

/** A state seen for the first time: its distance, the context it was reached through, and its turn in the queue. */
function discover(bfs: Search, t: number, d: number, s: number, a: number, i: number): void {
  bfs.dist[t] = d;
  bfs.parent[t] = s;
  bfs.parentAction[t] = a;
  bfs.parentInput[t] = i;
  bfs.queue[bfs.tail++] = t;
}

/**
 * Several rules for this (state, action), rules `r .. gEnd - 1`: each permitted input's targets are
 * merged over the rules that take it, sorted and distinct, one context per input in sorted order.
 */
function expandGroup(bfs: Search, s: number, d: number, a: number, r: number, gEnd: number, budget: Budget): boolean {
  const { nInputs, inputStart, ruleInputs, targetStart, ruleTargets, permitted } = bfs.m;
  const { dist, ctxAction, ctxInput, tgtStart, targets } = bfs;
  const { inputStamp, inputHead, targetStamp, nodeRule, nodeNext, touched, merged } = bfs;
  const base = a * nInputs;
  const iStamp = ++bfs.iStamp;
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
    const tStamp = ++bfs.tStamp;
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
      if (++budget.edgesUsed > budget.maxEdges) return false;
      targets.push(t);
      if (dist[t] === -1) discover(bfs, t, d, s, a, i);
    }
  }
  return true;
}
