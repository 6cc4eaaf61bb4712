/**
 * The comparison, in the spec's order of judgement after validation: comparability, exploration
 * within the budgets (before completely, then after), then the six categories as symmetric
 * differences over the complete declared space, each with its shortest deterministic witness.
 *
 * Only states reachable in at least one model can hold a difference (an unreachable state has no
 * permitted or enabled context, no targets and no observation in either model), so the categories
 * walk those states, in witness order: by (dist, side, state) where (dist, side) is the smallest
 * (dist_M(s), M) over the models reaching s. The first state with a difference in a category, at its
 * smallest (action, input), is that category's witness.
 */
import { normalDigest, normaliseModel } from './normalise.js';
import { byCodePoint } from './order.js';
import { explore, indexModel, type Alphabets, type Budget, type Exploration, type IndexedModel } from './explore.js';
import type {
  Categories,
  Category,
  CompareReport,
  CompareResult,
  ModelSummary,
  ObservationWitness,
  PathStep,
  ProbeWitness,
  StateWitness,
  TransitionEntry,
  TransitionWitness,
} from './report.js';
import { ALPHABETS, MAX_EDGES, type CompareRequest, type Model, type Side } from './types.js';

export function compareModels(request: CompareRequest): CompareReport {
  const before = normaliseModel(request.before);
  const after = normaliseModel(request.after);
  const summary = (m: Model): ModelSummary => ({ sha256: normalDigest(m), reachable_states: null });
  const models = { before: summary(before), after: summary(after) };
  const budget: Budget = {
    maxContexts: request.max_contexts,
    contextsUsed: 0,
    maxEdges: MAX_EDGES,
    edgesUsed: 0,
    exhausted: null,
  };
  const report = (result: CompareResult, categories: Categories | null, reason: string | null): CompareReport => ({
    schema: 'vkit.model-compare/1',
    result,
    models,
    budget: {
      max_contexts: budget.maxContexts,
      contexts_used: budget.contextsUsed,
      max_edges: budget.maxEdges,
      edges_used: budget.edgesUsed,
    },
    categories,
    reason,
  });

  const differing = alphabetDifferences(before, after);
  if (differing) return report('incomparable', null, differing);

  // Comparable: both models declare the same sorted alphabets, so one index space serves both.
  const alphabets: Alphabets = {
    states: before.states,
    actions: before.actions,
    inputs: before.inputs,
    observations: before.observations,
  };
  const mb = indexModel(before, alphabets);
  const ma = indexModel(after, alphabets);
  const eb = explore(mb, budget, 'before');
  if (eb.complete) models.before.reachable_states = eb.reached;
  const ea = eb.complete ? explore(ma, budget, 'after') : undefined;
  if (ea?.complete) models.after.reachable_states = ea.reached;
  if (!ea?.complete || budget.exhausted) {
    // A model explored to the end keeps its exact count; one cut short reports null, never a partial count.
    if (!budget.exhausted) throw new Error('internal: exploration stopped without an exhausted budget');
    return report('unknown', null, exhaustedReason(budget));
  }
  const categories = judge(alphabets, mb, ma, eb, ea);
  const different = Object.values(categories).some((c: Category<unknown>) => c.count > 0);
  return report(different ? 'different' : 'equivalent', categories, null);
}

/** The reason two models are incomparable, or null when every alphabet is the same set. */
export function alphabetDifferences(before: Model, after: Model): string | null {
  const parts: string[] = [];
  for (const name of ALPHABETS) {
    const b = new Set(before[name]);
    const a = new Set(after[name]);
    const onlyBefore = [...b].filter((t) => !a.has(t)).sort(byCodePoint);
    const onlyAfter = [...a].filter((t) => !b.has(t)).sort(byCodePoint);
    if (onlyBefore.length === 0 && onlyAfter.length === 0) continue;
    const sides = [
      onlyBefore.length ? `only in before ${JSON.stringify(onlyBefore)}` : '',
      onlyAfter.length ? `only in after ${JSON.stringify(onlyAfter)}` : '',
    ].filter(Boolean);
    parts.push(`${name}: ${sides.join(', ')}`);
  }
  return parts.length
    ? `alphabets differ, so the models are incomparable (never equivalent up to renaming): ${parts.join('; ')}`
    : null;
}

function exhaustedReason(budget: Budget): string {
  const x = budget.exhausted as NonNullable<Budget['exhausted']>;
  const [limit, used, unit] =
    x.budget === 'max_contexts'
      ? [budget.maxContexts, budget.contextsUsed, 'contexts']
      : [budget.maxEdges, budget.edgesUsed, 'edges'];
  return `budget exhausted: ${x.budget} (${limit}) exceeded while exploring ${x.side} (${used} ${unit} used); no partial result`;
}

/** The six categories of two complete explorations. */
function judge(al: Alphabets, mb: IndexedModel, ma: IndexedModel, eb: Exploration, ea: Exploration): Categories {
  const nI = mb.nInputs;
  const S = (s: number) => al.states[s] as string;
  const A = (a: number) => al.actions[a] as string;
  const I = (i: number) => al.inputs[i] as string;
  const ctxAction = (c: number) => Math.floor(c / nI);
  const ctxInput = (c: number) => c % nI;

  // States reachable in either model, in witness order.
  const key = (s: number): [number, number] => {
    const db = eb.dist[s] as number;
    const da = ea.dist[s] as number;
    if (db >= 0 && (da < 0 || db <= da)) return [db, 0];
    return [da, 1];
  };
  const union: number[] = [];
  for (let s = 0; s < mb.nStates; s++) if ((eb.dist[s] as number) >= 0 || (ea.dist[s] as number) >= 0) union.push(s);
  const keys = new Map(union.map((s) => [s, key(s)]));
  union.sort((x, y) => {
    const kx = keys.get(x) as [number, number];
    const ky = keys.get(y) as [number, number];
    return kx[0] - ky[0] || kx[1] - ky[1] || x - y;
  });

  const pathTo = (s: number): { path_model: Side; path: PathStep[] } => {
    const side: Side = (keys.get(s) as [number, number])[1] === 0 ? 'before' : 'after';
    const e = side === 'before' ? eb : ea;
    const path: PathStep[] = [];
    for (let t = s; (e.parent[t] as number) >= 0; t = e.parent[t] as number) {
      path.push({
        from: S(e.parent[t] as number),
        action: A(e.parentAction[t] as number),
        input: I(e.parentInput[t] as number),
        to: S(t),
      });
    }
    path.reverse();
    return { path_model: side, path };
  };
  // A context the two models disagree on: the element, the path to its state, and the probe that
  // asks each model about it (null for a model that does not reach the state).
  const probeWitness = (
    s: number,
    a: number,
    i: number,
    before: boolean | null,
    after: boolean | null,
  ): ProbeWitness => ({
    element: { state: S(s), action: A(a), input: I(i) },
    ...pathTo(s),
    probe: { state: S(s), action: A(a), input: I(i), before, after },
  });

  const initial_states: Category<StateWitness> = { count: 0, witness: null };
  const states: Category<StateWitness> = { count: 0, witness: null };
  const assumption_contexts: Category<ProbeWitness> = { count: 0, witness: null };
  const enabled_contexts: Category<ProbeWitness> = { count: 0, witness: null };
  const transitions: Category<TransitionWitness> = { count: 0, witness: null };
  const observations: Category<ObservationWitness> = { count: 0, witness: null };

  const pb = mb.permittedSorted;
  const pa = ma.permittedSorted;
  const permittedDiff = symmetricDifference(pb, pa);

  for (const s of union) {
    const inB = (eb.dist[s] as number) >= 0;
    const inA = (ea.dist[s] as number) >= 0;

    if (mb.isInitial[s] !== ma.isInitial[s]) {
      initial_states.count++;
      initial_states.witness ??= { element: { state: S(s) }, ...pathTo(s), in: mb.isInitial[s] ? 'before' : 'after' };
    }
    if (inB !== inA) {
      states.count++;
      states.witness ??= { element: { state: S(s) }, ...pathTo(s), in: inB ? 'before' : 'after' };
    }

    // permitted_M(s, a, i) = s in R(M) and (a, i) in P(M).
    const pDiff = inB && inA ? permittedDiff : inB ? pb : pa;
    if (pDiff.length > 0) {
      assumption_contexts.count += pDiff.length;
      if (!assumption_contexts.witness) {
        const c = pDiff[0] as number;
        const [a, i] = [ctxAction(c), ctxInput(c)];
        assumption_contexts.witness = probeWitness(
          s,
          a,
          i,
          inB ? mb.permitted.has(c) : null,
          inA ? ma.permitted.has(c) : null,
        );
      }
    }

    // enabled and targets: merge the sorted enabled contexts of s in both models.
    const rb = range(eb, s);
    const ra = range(ea, s);
    let x = rb.lo;
    let y = ra.lo;
    while (x < rb.hi || y < ra.hi) {
      const cb = x < rb.hi ? (eb.ctxAction[x] as number) * nI + (eb.ctxInput[x] as number) : Infinity;
      const ca = y < ra.hi ? (ea.ctxAction[y] as number) * nI + (ea.ctxInput[y] as number) : Infinity;
      const c = Math.min(cb, ca);
      const tb = cb === c ? targetsOf(eb, x++) : null;
      const ta = ca === c ? targetsOf(ea, y++) : null;
      const a = ctxAction(c);
      const i = ctxInput(c);
      if (!tb || !ta) {
        enabled_contexts.count++;
        enabled_contexts.witness ??= probeWitness(s, a, i, inB ? tb !== null : null, inA ? ta !== null : null);
      }
      if (!tb || !ta || !sameNumbers(tb, ta)) {
        transitions.count++;
        if (!transitions.witness) {
          const { path_model, path } = pathTo(s);
          const last: TransitionEntry = {
            from: S(s),
            action: A(a),
            input: I(i),
            before: inB ? (tb ?? []).map(S) : null,
            after: inA ? (ta ?? []).map(S) : null,
          };
          transitions.witness = {
            element: { state: S(s), action: A(a), input: I(i) },
            path_model,
            path: [...path, last],
          };
        }
      }
    }

    const ob = inB ? (mb.observation[s] as number) : -1;
    const oa = inA ? (ma.observation[s] as number) : -1;
    if (ob !== oa) {
      observations.count++;
      observations.witness ??= {
        element: { state: S(s) },
        ...pathTo(s),
        before: ob < 0 ? null : (al.observations[ob] as string),
        after: oa < 0 ? null : (al.observations[oa] as string),
      };
    }
  }
  return { initial_states, states, assumption_contexts, enabled_contexts, transitions, observations };
}

/** The enabled contexts of s in an exploration (empty when s is unreachable there). */
function range(e: Exploration, s: number): { lo: number; hi: number } {
  const k = e.slot[s] as number;
  if (k < 0) return { lo: 0, hi: 0 };
  return { lo: e.ctxStart[k] as number, hi: e.ctxStart[k + 1] as number };
}

function targetsOf(e: Exploration, c: number): number[] {
  return e.targets.slice(e.tgtStart[c] as number, e.tgtStart[c + 1] as number);
}

function sameNumbers(x: readonly number[], y: readonly number[]): boolean {
  if (x.length !== y.length) return false;
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false;
  return true;
}

/** Sorted symmetric difference of two sorted, distinct number lists. */
function symmetricDifference(x: readonly number[], y: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    const a = i < x.length ? (x[i] as number) : Infinity;
    const b = j < y.length ? (y[j] as number) : Infinity;
    if (a === b) {
      i++;
      j++;
    } else if (a < b) {
      out.push(a);
      i++;
    } else {
      out.push(b);
      j++;
    }
  }
  return out;
}
