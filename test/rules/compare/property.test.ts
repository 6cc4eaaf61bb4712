/**
 * A property test: a few hundred random small model pairs (seeded, deterministic) judged by the
 * library and by a deliberately naive reference written here. The reference builds every set by
 * enumerating the whole declared space (every state x action x input), computes permitted / enabled /
 * targets straight from the definitions, reachability as a fixpoint, and witnesses by brute-force
 * minimum over all differing elements with a BFS of its own. Tokens include astral-plane characters,
 * look-alikes and `__proto__`, and arrays are scrambled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareRequest, type CompareReport, type Model } from '../../../rules/compare/lib/index.js';
import { clone, cpCompare, prng, scrambled, setOwn, shuffled } from '../../_support/models.js';

const CATS = [
  'initial_states',
  'states',
  'assumption_contexts',
  'enabled_contexts',
  'transitions',
  'observations',
] as const;
type Cat = (typeof CATS)[number];
type Side = 'before' | 'after';

// ---- the naive reference -------------------------------------------------------------------

const permitted = (m: Model, a: string, i: string) => m.assumptions.some((x) => x.action === a && x.input === i);

/** Reachability as a fixpoint: add targets of enabled rules until nothing changes. */
function reachable(m: Model): Set<string> {
  const r = new Set(m.initial_states);
  for (let changed = true; changed; ) {
    changed = false;
    for (const rule of m.rules) {
      if (!r.has(rule.source)) continue;
      for (const i of rule.inputs) {
        if (!permitted(m, rule.action, i)) continue;
        for (const t of rule.targets) if (!r.has(t)) r.add(t), (changed = true);
      }
    }
  }
  return r;
}

function targets(m: Model, R: Set<string>, s: string, a: string, i: string): string[] | 'none' {
  if (!R.has(s)) return 'none';
  const out = new Set<string>();
  for (const r of m.rules)
    if (r.source === s && r.action === a && r.inputs.includes(i) && permitted(m, a, i))
      r.targets.forEach((t) => out.add(t));
  return [...out].sort(cpCompare);
}

/** BFS that fixes each state's first discovery: initial states sorted, steps in sorted (action, input, target). */
function bfs(
  m: Model,
  A: string[],
  I: string[],
): Map<string, { dist: number; path: Array<{ from: string; action: string; input: string; to: string }> }> {
  const found = new Map<
    string,
    { dist: number; path: Array<{ from: string; action: string; input: string; to: string }> }
  >();
  const queue = [...new Set(m.initial_states)].sort(cpCompare);
  for (const s of queue) found.set(s, { dist: 0, path: [] });
  const R = reachable(m);
  for (let k = 0; k < queue.length; k++) {
    const s = queue[k] as string;
    const here = found.get(s)!;
    for (const a of A)
      for (const i of I) {
        const ts = targets(m, R, s, a, i);
        if (ts === 'none') continue;
        for (const t of ts) {
          if (found.has(t)) continue;
          found.set(t, { dist: here.dist + 1, path: [...here.path, { from: s, action: a, input: i, to: t }] });
          queue.push(t);
        }
      }
  }
  return found;
}

interface Naive {
  result: 'equivalent' | 'different' | 'incomparable' | 'unknown';
  counts?: Record<Cat, number>;
  witnesses?: Record<Cat, unknown>;
  reachable?: [number, number];
  contexts?: number;
  edges?: number;
}

function naive(b: Model, a: Model, maxContexts: number): Naive {
  const same = (x: string[], y: string[]) => new Set(x).size === new Set(y).size && x.every((t) => y.includes(t));
  for (const k of ['states', 'actions', 'inputs', 'observations'] as const)
    if (!same(b[k], a[k])) return { result: 'incomparable' };
  const S = [...new Set(b.states)].sort(cpCompare);
  const A = [...new Set(b.actions)].sort(cpCompare);
  const I = [...new Set(b.inputs)].sort(cpCompare);
  const Rb = reachable(b);
  const Ra = reachable(a);
  let contexts = 0;
  let edges = 0;
  for (const [m, R] of [
    [b, Rb],
    [a, Ra],
  ] as const) {
    for (const s of S)
      for (const x of A)
        for (const i of I) {
          if (!R.has(s)) continue;
          contexts++;
          const ts = targets(m, R, s, x, i);
          if (ts !== 'none') edges += ts.length;
        }
  }
  if (contexts > maxContexts || edges > 65536) return { result: 'unknown' };

  const pb = bfs(b, A, I);
  const pa = bfs(a, A, I);
  // (dist, side) of a state: the smallest over the models reaching it, before first.
  const rank = (s: string): [number, Side] => {
    const db = pb.get(s)?.dist;
    const da = pa.get(s)?.dist;
    if (db !== undefined && (da === undefined || db <= da)) return [db, 'before'];
    return [da as number, 'after'];
  };
  const pathOf = (s: string) => {
    const [, side] = rank(s);
    return { path_model: side, path: (side === 'before' ? pb : pa).get(s)!.path };
  };
  const counts = Object.fromEntries(CATS.map((c) => [c, 0])) as Record<Cat, number>;
  const best = {} as Record<Cat, { key: [number, number, string[]]; witness: unknown }>;
  const consider = (cat: Cat, tuple: string[], witness: () => unknown) => {
    counts[cat]++;
    const [d, side] = rank(tuple[0] as string);
    const key: [number, number, string[]] = [d, side === 'before' ? 0 : 1, tuple];
    const cur = best[cat];
    const less = (x: typeof key, y: typeof key) => {
      if (x[0] !== y[0]) return x[0] < y[0];
      if (x[1] !== y[1]) return x[1] < y[1];
      for (let k = 0; k < x[2].length; k++) {
        const c = cpCompare(x[2][k] as string, y[2][k] as string);
        if (c !== 0) return c < 0;
      }
      return false;
    };
    if (!cur || less(key, cur.key)) best[cat] = { key, witness: witness() };
  };
  for (const s of S) {
    const ib = b.initial_states.includes(s);
    const ia = a.initial_states.includes(s);
    if (ib !== ia)
      consider('initial_states', [s], () => ({ element: { state: s }, ...pathOf(s), in: ib ? 'before' : 'after' }));
    if (Rb.has(s) !== Ra.has(s))
      consider('states', [s], () => ({ element: { state: s }, ...pathOf(s), in: Rb.has(s) ? 'before' : 'after' }));
    for (const x of A)
      for (const i of I) {
        const el = { state: s, action: x, input: i };
        const perB = Rb.has(s) && permitted(b, x, i);
        const perA = Ra.has(s) && permitted(a, x, i);
        if (perB !== perA)
          consider('assumption_contexts', [s, x, i], () => ({
            element: el,
            ...pathOf(s),
            probe: { ...el, before: Rb.has(s) ? perB : null, after: Ra.has(s) ? perA : null },
          }));
        const tb = targets(b, Rb, s, x, i);
        const ta = targets(a, Ra, s, x, i);
        const enB = tb !== 'none' && tb.length > 0;
        const enA = ta !== 'none' && ta.length > 0;
        if (enB !== enA)
          consider('enabled_contexts', [s, x, i], () => ({
            element: el,
            ...pathOf(s),
            probe: { ...el, before: Rb.has(s) ? enB : null, after: Ra.has(s) ? enA : null },
          }));
        const flat = (t: string[] | 'none') => (t === 'none' ? [] : t);
        if (JSON.stringify(flat(tb)) !== JSON.stringify(flat(ta))) {
          consider('transitions', [s, x, i], () => {
            const { path_model, path } = pathOf(s);
            return {
              element: el,
              path_model,
              path: [
                ...path,
                { from: s, action: x, input: i, before: tb === 'none' ? null : tb, after: ta === 'none' ? null : ta },
              ],
            };
          });
        }
      }
    const ob = Rb.has(s) ? b.state_observations[s] : null;
    const oa = Ra.has(s) ? a.state_observations[s] : null;
    if (ob !== oa)
      consider('observations', [s], () => ({ element: { state: s }, ...pathOf(s), before: ob, after: oa }));
  }
  const witnesses = Object.fromEntries(CATS.map((c) => [c, best[c]?.witness ?? null])) as Record<Cat, unknown>;
  const different = CATS.some((c) => counts[c] > 0);
  return {
    result: different ? 'different' : 'equivalent',
    counts,
    witnesses,
    reachable: [Rb.size, Ra.size],
    contexts,
    edges,
  };
}

// ---- random models ---------------------------------------------------------------------------

const POOL = {
  states: ['a', 'b', 'c', '\uFFFF', '\u{1F600}', '__proto__', 'e\u0301', '\u00e9'],
  actions: ['go', '\u{1F680}', 'stop'],
  inputs: ['x', 'y', '\u{10000}'],
  observations: ['o', 'p', '\uFFFD'],
};

function generator(rand: () => number) {
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const some = <T>(xs: readonly T[]): T[] => {
    const out = xs.filter(() => rand() < 0.5);
    return out.length ? out : [pick(xs)];
  };
  const alphabets = () => ({
    states: shuffled(POOL.states, rand).slice(0, int(1, 4)),
    actions: shuffled(POOL.actions, rand).slice(0, int(1, 2)),
    inputs: shuffled(POOL.inputs, rand).slice(0, int(1, 3)),
    observations: shuffled(POOL.observations, rand).slice(0, int(1, 2)),
  });
  const rule = (al: ReturnType<typeof alphabets>) => ({
    source: pick(al.states),
    action: pick(al.actions),
    inputs: some(al.inputs),
    targets: some(al.states),
  });
  const modelOf = (al: ReturnType<typeof alphabets>): Model => {
    const so: Record<string, string> = {};
    for (const s of al.states) setOwn(so, s, pick(al.observations));
    const assumptions = al.actions.flatMap((a) =>
      al.inputs.filter(() => rand() < 0.6).map((i) => ({ action: a, input: i })),
    );
    return {
      ...al,
      initial_states: some(al.states),
      assumptions,
      rules: Array.from({ length: int(0, 5) }, () => rule(al)),
      state_observations: so,
    };
  };
  const mutate = (m: Model, al: ReturnType<typeof alphabets>): Model => {
    const x = clone(m);
    for (let n = int(1, 3); n > 0; n--) {
      switch (int(0, 6)) {
        case 0: {
          const a = pick(al.actions);
          const i = pick(al.inputs);
          const k = x.assumptions.findIndex((y) => y.action === a && y.input === i);
          if (k >= 0) x.assumptions.splice(k, 1);
          else x.assumptions.push({ action: a, input: i });
          break;
        }
        case 1:
          if (x.rules.length) (x.rules[int(0, x.rules.length - 1)] as Model['rules'][number]).targets = some(al.states);
          break;
        case 2:
          if (x.rules.length) (x.rules[int(0, x.rules.length - 1)] as Model['rules'][number]).inputs = some(al.inputs);
          break;
        case 3:
          x.rules.push(rule(al));
          break;
        case 4:
          if (x.rules.length) x.rules.splice(int(0, x.rules.length - 1), 1);
          break;
        case 5:
          x.initial_states = some(al.states);
          break;
        case 6:
          setOwn(x.state_observations, pick(al.states), pick(al.observations));
          break;
      }
    }
    return x;
  };
  return { int, pick, alphabets, modelOf, mutate };
}

// ---- the property --------------------------------------------------------------------------

test('the library agrees with the naive reference on 400 random pairs', () => {
  const rand = prng(20240611);
  const g = generator(rand);
  const seen = { equivalent: 0, different: 0, incomparable: 0, unknown: 0 };
  for (let n = 0; n < 400; n++) {
    const al = g.alphabets();
    const before = g.modelOf(al);
    const roll = rand();
    let after: Model;
    if (roll < 0.65) after = g.mutate(before, al);
    else if (roll < 0.75) after = clone(before);
    else if (roll < 0.92) after = g.modelOf(al);
    else {
      // A different alphabet: one token added to one of them.
      const al2 = clone(al);
      const key = g.pick(['states', 'actions', 'inputs', 'observations'] as const);
      const extra = POOL[key].find((t) => !al2[key].includes(t));
      if (extra) al2[key].push(extra);
      after = { ...clone(before), [key]: al2[key] };
      if (key === 'states' && extra) setOwn(after.state_observations, extra, al.observations[0] as string);
    }
    const maxContexts = rand() < 0.2 ? g.int(1, 2 * al.states.length * al.actions.length * al.inputs.length) : 32768;
    const req = {
      schema_version: 1,
      before: scrambled(before, rand),
      after: scrambled(after, rand),
      max_contexts: maxContexts,
    };
    const label = `pair ${n}: ${JSON.stringify(req)}`;

    const out = compareRequest(req);
    assert.ok(out.ok, `${label}\n${JSON.stringify(out)}`);
    const r: CompareReport = out.report;
    const want = naive(before, after, maxContexts);
    seen[want.result]++;
    assert.equal(r.result, want.result, label);
    assert.equal(out.exitCode, { equivalent: 0, different: 1, incomparable: 3, unknown: 3 }[want.result], label);
    if (want.result === 'incomparable' || want.result === 'unknown') {
      assert.equal(r.categories, null, label);
      if (want.result === 'unknown')
        assert.ok(r.budget.contexts_used > maxContexts || r.budget.edges_used > 65536, label);
      continue;
    }
    const cats = r.categories!;
    for (const c of CATS) assert.equal(cats[c].count, want.counts![c], `${c} count, ${label}`);
    for (const c of CATS) assert.deepEqual(cats[c].witness, want.witnesses![c], `${c} witness, ${label}`);
    assert.deepEqual([r.models.before.reachable_states, r.models.after.reachable_states], want.reachable, label);
    assert.equal(r.budget.contexts_used, want.contexts, label);
    assert.equal(r.budget.edges_used, want.edges, label);

    // Symmetry: swapping the models keeps every count.
    const back = compareRequest({ ...req, before: req.after, after: req.before });
    assert.ok(back.ok);
    for (const c of CATS) assert.equal(back.report.categories?.[c].count, cats[c].count, `swapped ${c}, ${label}`);
  }
  // The generator reaches every result (so the property is not vacuous).
  for (const [k, v] of Object.entries(seen)) assert.ok(v >= 10, `only ${v} ${k} pairs: ${JSON.stringify(seen)}`);
});
