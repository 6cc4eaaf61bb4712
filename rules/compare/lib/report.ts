/**
 * The `vkit.model-compare/1` report, its exit codes and its human rendering. Field names and order
 * follow `spec/model-comparison.md` ("Report").
 */
import type { Sha256Id } from '../../../src/hash/index.js';
import type { Side } from './types.js';

export type CompareResult = 'equivalent' | 'different' | 'incomparable' | 'unknown';

/** One executed step of a witness path. */
export interface PathStep {
  from: string;
  action: string;
  input: string;
  to: string;
}

/** The last entry of a `transitions` witness path: the targets in each model (null where `from` is unreachable). */
export interface TransitionEntry {
  from: string;
  action: string;
  input: string;
  before: string[] | null;
  after: string[] | null;
}

export interface StateElement {
  state: string;
}

export interface ContextElement {
  state: string;
  action: string;
  input: string;
}

/** A context to inspect, not an executed transition; null for a model in which the state is unreachable. */
export interface Probe {
  state: string;
  action: string;
  input: string;
  before: boolean | null;
  after: boolean | null;
}

interface WitnessBase {
  /** The model whose path is shown. */
  path_model: Side;
}

/** `initial_states` and `states`: `in` is the model in which the property holds. */
export interface StateWitness extends WitnessBase {
  element: StateElement;
  path: PathStep[];
  in: Side;
}

/** `assumption_contexts` and `enabled_contexts`. */
export interface ProbeWitness extends WitnessBase {
  element: ContextElement;
  path: PathStep[];
  probe: Probe;
}

export interface TransitionWitness extends WitnessBase {
  element: ContextElement;
  /** The steps to the state, then one `TransitionEntry`. */
  path: Array<PathStep | TransitionEntry>;
}

export interface ObservationWitness extends WitnessBase {
  element: StateElement;
  path: PathStep[];
  before: string | null;
  after: string | null;
}

export interface Category<W> {
  count: number;
  witness: W | null;
}

export interface Categories {
  initial_states: Category<StateWitness>;
  states: Category<StateWitness>;
  assumption_contexts: Category<ProbeWitness>;
  enabled_contexts: Category<ProbeWitness>;
  transitions: Category<TransitionWitness>;
  observations: Category<ObservationWitness>;
}

export type CategoryName = keyof Categories;
export const CATEGORY_NAMES: readonly CategoryName[] = [
  'initial_states',
  'states',
  'assumption_contexts',
  'enabled_contexts',
  'transitions',
  'observations',
];

export interface ModelSummary {
  sha256: Sha256Id;
  /** |R(M)|; null when the model was not explored to the end (incomparable, or a budget ran out). */
  reachable_states: number | null;
}

export interface CompareReport {
  schema: 'vkit.model-compare/1';
  result: CompareResult;
  models: { before: ModelSummary; after: ModelSummary };
  budget: { max_contexts: number; contexts_used: number; max_edges: number; edges_used: number };
  /** Null for `incomparable` and `unknown`: never a partial answer. */
  categories: Categories | null;
  /** Why the result is `incomparable` or `unknown`; null otherwise. */
  reason: string | null;
}

/** Exit codes from the one table: equivalent 0, different 1, incomparable or unknown 3, invalid 2. */
export function compareExitCode(result: CompareResult | 'invalid'): 0 | 1 | 2 | 3 {
  switch (result) {
    case 'equivalent':
      return 0;
    case 'different':
      return 1;
    case 'invalid':
      return 2;
    case 'incomparable':
    case 'unknown':
      return 3;
  }
}

/**
 * Human output: the result, the models and budget, then one line per non-empty category with its
 * count and its witness path drawn as arrows in the model it belongs to. Probes are marked as
 * contexts to inspect, not executed transitions.
 */
export function renderCompareReport(report: CompareReport): string {
  const lines: string[] = [];
  const c = report.categories;
  if (report.result === 'different' && c) {
    const n = CATEGORY_NAMES.filter((k) => c[k].count > 0).length;
    lines.push(`different: the models differ in ${n} ${n === 1 ? 'category' : 'categories'}`);
  } else if (report.result === 'equivalent')
    lines.push('equivalent: no difference in any category over the complete declared space');
  else lines.push(`${report.result}: ${report.reason ?? ''}`);
  for (const side of ['before', 'after'] as const) {
    const m = report.models[side];
    const reach =
      m.reachable_states === null
        ? 'not explored to the end'
        : `${m.reachable_states} reachable ${m.reachable_states === 1 ? 'state' : 'states'}`;
    lines.push(`  ${side.padEnd(6)} ${m.sha256} (${reach})`);
  }
  const b = report.budget;
  lines.push(`  budget ${b.contexts_used} of ${b.max_contexts} contexts, ${b.edges_used} of ${b.max_edges} edges`);
  if (!c) return `${lines.join('\n')}\n`;
  for (const name of CATEGORY_NAMES) {
    const cat = c[name];
    if (cat.count === 0 || !cat.witness) continue;
    lines.push(`  ${name}: ${cat.count}`);
    const w = cat.witness;
    const steps = (w.path as Array<PathStep | TransitionEntry>).filter((p): p is PathStep => 'to' in p);
    const el = w.element;
    lines.push(`    witness path in ${w.path_model}: ${drawPath(steps, el.state)}`);
    if ('probe' in w) {
      const p = w.probe;
      const [yes, no] = name === 'assumption_contexts' ? ['permitted', 'not permitted'] : ['enabled', 'not enabled'];
      const show = (v: boolean | null) => (v === null ? 'unreachable' : v ? yes : no);
      lines.push(
        `    probe (a context to inspect, not an executed transition) at ${tok(p.state)}, ${tok(p.action)}/${tok(p.input)}: before ${show(p.before)}, after ${show(p.after)}`,
      );
    } else if ('in' in w) {
      lines.push(`    ${tok(el.state)} is ${name === 'initial_states' ? 'initial' : 'reachable'} in ${w.in} only`);
    } else if (name === 'transitions') {
      const last = w.path[w.path.length - 1] as TransitionEntry;
      lines.push(
        `    at ${tok(last.from)}, ${tok(last.action)}/${tok(last.input)}: before ${targets(last.before)}, after ${targets(last.after)}`,
      );
    } else {
      const o = w as ObservationWitness;
      lines.push(
        `    ${tok(el.state)} observes: before ${o.before === null ? '(unreachable)' : tok(o.before)}, after ${o.after === null ? '(unreachable)' : tok(o.after)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function drawPath(steps: PathStep[], state: string): string {
  if (steps.length === 0) return `${tok(state)} (initial)`;
  return [
    tok((steps[0] as PathStep).from),
    ...steps.map((s) => `--${tok(s.action)}/${tok(s.input)}--> ${tok(s.to)}`),
  ].join(' ');
}

function targets(ts: string[] | null): string {
  return ts === null ? '(unreachable)' : `[${ts.map(tok).join(', ')}]`;
}

/**
 * A token as shown to people: bare when it is plain letters, digits and a few marks, else quoted with
 * invisible and control characters escaped, so `a b`, `a/b`, `x-->y` or a right-to-left override
 * can never pass for structure.
 */
export function tok(t: string): string {
  if (/^[\p{L}\p{M}\p{N}_.@#+~]+(?:-[\p{L}\p{M}\p{N}_.@#+~]+)*$/u.test(t)) return t;
  return `"${t.replace(/["\\]|[\p{C}\p{Z}]/gu, (ch) => (ch === '"' || ch === '\\' ? `\\${ch}` : ch === ' ' ? ' ' : `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`))}"`;
}
