/**
 * Reading TLC's output, pure: the `-tool` message stream and the `-dumpTrace json` witness.
 *
 * Sources (tlaplus/tlaplus, read through the search tool; TLC cannot be downloaded here):
 * - `tlatools/org.lamport.tlatools/src/tlc2/output/MP.java`: under `-tool` every message is framed as
 *   `@!@!@STARTMSG <code>:<class> @!@!@`, its text, then `@!@!@ENDMSG <code> @!@!@`; the class is
 *   0 none, 1 error, 2 TLC bug, 3 warning, 4 state. The texts used here: 2193 `Model checking
 *   completed. No error has been found.` followed by the fingerprint-collision estimates; 2199 `%1%
 *   states generated, %2% distinct states found, %3% states left on queue.`; 2194 `The depth of the
 *   complete state graph search is %1%.`; 2110 `Invariant %1% is violated.`; 2107 `Invariant %1% is
 *   violated by the initial state:`; 2114 `Deadlock reached.`; 2116 `Temporal property %1% was
 *   violated.` (older builds: `Temporal properties were violated.`); 2108 `Property %1% is violated
 *   by the initial state:`; 2112 `Action property %1% is violated.`; 2217 a trace state `%1%: %2%`
 *   then the state; 2122 `%1%: Back to state: %2%`; 2218 `%1%: Stuttering`; 2262 `TLC2 %1%`;
 *   2187 breadth-first model checking, 2271 depth-first, 2188 simulation; 2186 `Finished in ...`;
 *   2192 `Checking temporal properties for the complete state space with %2% total distinct states`.
 * - `tlatools/org.lamport.tlatools/src/tlc2/output/EC.java`: the codes above, and the exit statuses
 *   (`EC.ExitStatus`): 0 success, 10 assumption, 11 deadlock, 12 safety, 13 liveness, 14 assert,
 *   75-77 evaluation failures, 150-153 errors, 255 anything else.
 * - `tlatools/org.lamport.tlatools/src/tla2sany/StandardModules/_JsonTrace.tla` (newest stored
 *   version): `-dumpTrace json <file>` writes `JsonSerialize(file, [counterexample |-> CounterExample,
 *   vars |-> vars])`; older versions wrote `CounterExample` itself. `TLCExt.tla`: `CounterExample` is
 *   `[state: States, action: Actions]`, a state being `<<number, record of the variables>>` and an
 *   action `<<state, action record, state>>`; JSON writes sets and tuples as arrays, so `state` is
 *   `[[1, {...}], [2, {...}], ...]` and `action` `[[[1, {...}], {name, location}, [2, {...}]], ...]`.
 *   A liveness witness is a lasso: its closing action goes back to an earlier (or, for stuttering,
 *   the same) state number.
 */
import { canonicalJson } from '../../../../src/hash/index.js';
import type { ReplayComparison } from '../types.js';

/* ------------------------------------------------------------------------------ the -tool stream */

export interface ToolMessage {
  code: number;
  /** 0 none, 1 error, 2 TLC bug, 3 warning, 4 state. */
  severity: number;
  text: string;
}

/** The framed messages of `-tool` output, in order. Text outside any frame is ignored. */
export function parseToolMessages(output: string): ToolMessage[] {
  const out: ToolMessage[] = [];
  let open: { code: number; severity: number; lines: string[] } | null = null;
  for (const raw of output.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const start = /^@!@!@STARTMSG (\d+):(\d+) @!@!@$/.exec(line);
    if (start) {
      open = { code: Number(start[1]), severity: Number(start[2]), lines: [] };
      continue;
    }
    const end = /^@!@!@ENDMSG (\d+) @!@!@$/.exec(line);
    if (end && open && Number(end[1]) === open.code) {
      out.push({ code: open.code, severity: open.severity, text: open.lines.join('\n').replace(/\n+$/, '') });
      open = null;
      continue;
    }
    if (open) open.lines.push(line);
  }
  return out;
}

const EC = {
  VERSION: 2262,
  MODE_BFS: 2187,
  MODE_DFS: 2271,
  MODE_SIMULATION: 2188,
  SUCCESS: 2193,
  STATS: 2199,
  SEARCH_DEPTH: 2194,
  FINISHED: 2186,
  CHECKING_TEMPORAL: 2192,
  INVARIANT_VIOLATED_INITIAL: 2107,
  PROPERTY_VIOLATED_INITIAL: 2108,
  INVARIANT_VIOLATED_BEHAVIOR: 2110,
  ACTION_PROPERTY_VIOLATED: 2112,
  DEADLOCK_REACHED: 2114,
  TEMPORAL_PROPERTY_VIOLATED: 2116,
  ASSERT_FAILED: 2132,
  ASSUMPTION_FALSE: 2104,
  STATE_PRINT2: 2217,
  BACK_TO_STATE: 2122,
  STUTTERING: 2218,
} as const;

/**
 * Error-class messages that frame a violation's trace rather than report an error of their own:
 * 2120 `The error state is:`, 2121 `The behavior up to this point is:`, 2264 `The following
 * behavior constitutes a counter-example:`.
 */
const TRACE_FRAMING = new Set([2120, 2121, 2264]);

/** TLC's process exit statuses (`EC.ExitStatus`). */
const EXIT = { SUCCESS: 0, DEADLOCK: 11, SAFETY: 12, LIVENESS: 13 } as const;

type TlcViolationKind = 'invariant' | 'deadlock' | 'temporal' | 'action-property' | 'assert' | 'assumption';

interface TlcViolation {
  kind: TlcViolationKind;
  /** The property TLC names (null when it names none, as for a deadlock). */
  names: string[];
  code: number;
  /** TLC's own line, verbatim. */
  text: string;
}

export interface TlcReport {
  version: string | null;
  mode: 'bfs' | 'dfs' | 'simulation' | null;
  success: boolean;
  /** TLC's fingerprint-collision estimates (lines of its success message), verbatim. */
  fingerprint: string[];
  generated: number | null;
  distinct: number | null;
  /** States left on queue when TLC stopped (> 0: the state space was not exhausted). */
  queue: number | null;
  depth: number | null;
  finished: boolean;
  /** TLC said it checked temporal properties over the state graph (2192 `Checking temporal properties for ...`). */
  temporalChecked: boolean;
  violation: TlcViolation | null;
  /** States of the printed error trace, in order (number and action line), with its end. */
  trace: { number: number; action: string }[];
  traceEnd: { kind: 'back-to-state'; to: number } | { kind: 'stuttering' } | null;
  /** Error-class messages that are not the violation (parse, configuration, evaluation, system). */
  errors: { code: number; text: string }[];
  /** The lines a scope quotes: version, mode, statistics, depth, success. */
  lines: string[];
}

const count = (s: string) => Number(s.replace(/,/g, ''));

/** The violation a message reports, or null when it reports none. */
function violationOf(m: ToolMessage): TlcViolation | null {
  const first = m.text.split('\n')[0]!.trim();
  let x: RegExpExecArray | null;
  switch (m.code) {
    case EC.INVARIANT_VIOLATED_BEHAVIOR:
      x = /^Invariant (\S+) is violated\.$/.exec(first);
      return { kind: 'invariant', names: x ? [x[1]!] : [], code: m.code, text: first };
    case EC.INVARIANT_VIOLATED_INITIAL:
      x = /^Invariant (\S+) is violated by the initial state:?$/.exec(first);
      return { kind: 'invariant', names: x ? [x[1]!] : [], code: m.code, text: first };
    case EC.DEADLOCK_REACHED:
      return { kind: 'deadlock', names: [], code: m.code, text: first };
    case EC.TEMPORAL_PROPERTY_VIOLATED: {
      const one = /^Temporal property (\S+) was violated\.$/.exec(first);
      const many = /^Temporal properties (.+) were violated\.$/.exec(first);
      const names = one ? [one[1]!] : many ? many[1]!.split(/, and |, | and /).map((n) => n.trim()) : [];
      return { kind: 'temporal', names, code: m.code, text: first };
    }
    case EC.PROPERTY_VIOLATED_INITIAL:
      x = /^Property (\S+) is violated by the initial state:?$/.exec(first);
      return { kind: 'temporal', names: x ? [x[1]!] : [], code: m.code, text: first };
    case EC.ACTION_PROPERTY_VIOLATED:
      x = /^Action property (\S+) is violated\.$/.exec(first);
      return { kind: 'action-property', names: x ? [x[1]!] : [], code: m.code, text: first };
    case EC.ASSERT_FAILED:
      return { kind: 'assert', names: [], code: m.code, text: first };
    case EC.ASSUMPTION_FALSE:
      return { kind: 'assumption', names: [], code: m.code, text: first };
    default:
      return null;
  }
}

export function parseTlcReport(output: string): TlcReport {
  const report: TlcReport = {
    version: null,
    mode: null,
    success: false,
    fingerprint: [],
    generated: null,
    distinct: null,
    queue: null,
    depth: null,
    finished: false,
    temporalChecked: false,
    violation: null,
    trace: [],
    traceEnd: null,
    errors: [],
    lines: [],
  };
  for (const m of parseToolMessages(output)) {
    const first = m.text.split('\n')[0]!.trim();
    const violation = violationOf(m);
    if (violation) {
      // The first violation is the one TLC stopped at (it stops at the first without -continue).
      if (!report.violation) report.violation = violation;
      continue;
    }
    switch (m.code) {
      case EC.VERSION:
        report.version = first.replace(/^TLC2 /, '');
        report.lines.push(first);
        continue;
      case EC.MODE_BFS:
      case EC.MODE_DFS:
      case EC.MODE_SIMULATION:
        report.mode = m.code === EC.MODE_BFS ? 'bfs' : m.code === EC.MODE_DFS ? 'dfs' : 'simulation';
        report.lines.push(first);
        continue;
      case EC.SUCCESS:
        report.success = first === 'Model checking completed. No error has been found.';
        report.fingerprint = m.text
          .split('\n')
          .slice(1)
          .map((l) => l.trim())
          .filter(Boolean);
        report.lines.push(first, ...report.fingerprint);
        continue;
      case EC.STATS: {
        const x = /^([\d,]+) states generated, ([\d,]+) distinct states found, ([\d,]+) states left on queue\.$/.exec(
          first,
        );
        if (x) [report.generated, report.distinct, report.queue] = [count(x[1]!), count(x[2]!), count(x[3]!)];
        report.lines.push(first);
        continue;
      }
      case EC.SEARCH_DEPTH: {
        const x = /^The depth of the complete state graph search is ([\d,]+)\.$/.exec(first);
        if (x) report.depth = count(x[1]!);
        report.lines.push(first);
        continue;
      }
      case EC.FINISHED:
        report.finished = true;
        continue;
      case EC.CHECKING_TEMPORAL:
        report.temporalChecked = true;
        report.lines.push(first);
        continue;
      case EC.STATE_PRINT2: {
        const x = /^(\d+): (.*)$/.exec(first);
        if (x) report.trace.push({ number: Number(x[1]), action: x[2]! });
        continue;
      }
      case EC.BACK_TO_STATE: {
        const x = /^(\d+): Back to state(?:: (.*))?$/.exec(first) ?? /^Back to state (\d+)/.exec(first);
        if (x) report.traceEnd = { kind: 'back-to-state', to: Number(x[1]) };
        continue;
      }
      case EC.STUTTERING:
        report.traceEnd = { kind: 'stuttering' };
        continue;
      default:
        if ((m.severity === 1 || m.severity === 2) && !TRACE_FRAMING.has(m.code))
          report.errors.push({ code: m.code, text: m.text.trim() });
    }
  }
  return report;
}

/**
 * How many states TLC printed for its error trace: the trace states it printed one by one, or the
 * one state an initial-state violation prints inside its own message.
 */
export function printedStates(r: TlcReport): number {
  if (r.trace.length) return r.trace.length;
  const initial: number[] = [EC.INVARIANT_VIOLATED_INITIAL, EC.PROPERTY_VIOLATED_INITIAL];
  return r.violation && initial.includes(r.violation.code) ? 1 : 0;
}

/* ------------------------------------------------------------------------------ judging a search */

export type TlcPropertyKind = 'invariant' | 'deadlock' | 'ltl';

export type SearchVerdict =
  | { verdict: 'established'; reason: string }
  | { verdict: 'violation'; violation: string; reason: string }
  | { verdict: 'unknown'; reason: string };

/** The violation named the way every comparison uses it (`invariant TypeOK`, `deadlock`, ...). */
function violationLabel(v: TlcViolation): string {
  return v.names.length ? `${v.kind} ${v.names.join(', ')}` : v.kind;
}

/** Whether a violation TLC reported is one that refutes this property (another one decides nothing about it). */
function violationRefutes(v: TlcViolation, p: { kind: TlcPropertyKind; name: string }): boolean {
  switch (p.kind) {
    case 'invariant':
      return v.kind === 'invariant' && v.names.length === 1 && v.names[0] === p.name;
    case 'deadlock':
      return v.kind === 'deadlock';
    case 'ltl':
      // A run checks exactly one PROPERTY (the generated configuration), so an older TLC's unnamed
      // "Temporal properties were violated." is about it; a named one must name it.
      return (
        (v.kind === 'temporal' || v.kind === 'action-property') &&
        (v.names.length === 0
          ? v.code === EC.TEMPORAL_PROPERTY_VIOLATED
          : v.names.length === 1 && v.names[0] === p.name)
      );
  }
}

/** The exit status TLC gives a violation of this kind (EC.ExitStatus). */
function exitFor(v: TlcViolation): number | null {
  if (v.kind === 'invariant') return EXIT.SAFETY;
  if (v.kind === 'deadlock') return EXIT.DEADLOCK;
  if (v.kind === 'temporal' || v.kind === 'action-property') return EXIT.LIVENESS;
  return null;
}

/** Why TLC's own report does not show a complete breadth-first search (empty when it does). */
export function incompleteness(r: TlcReport, exitCode: number | null): string[] {
  const why: string[] = [];
  if (r.mode !== 'bfs')
    why.push(
      r.mode === null
        ? 'TLC did not say which search it ran'
        : `TLC ran a ${r.mode} search, not breadth-first model checking`,
    );
  if (!r.success) why.push('TLC did not report "Model checking completed. No error has been found."');
  if (r.queue === null) why.push('TLC printed no final state counts');
  else if (r.queue > 0) why.push(`${r.queue} states left on queue`);
  if (!r.finished) why.push('TLC did not report that it finished');
  for (const e of r.errors) why.push(`TLC error ${e.code}: ${e.text.split('\n')[0]}`);
  if (exitCode !== EXIT.SUCCESS) why.push(`TLC exited with status ${exitCode ?? 'none'}`);
  return why;
}

/**
 * What one property's search says, from TLC's report and exit status alone: established only for a
 * complete breadth-first search with no violation and no error (for an ltl property, one whose report
 * says TLC checked temporal properties); a violation only when TLC reported
 * one that refutes this property and exited with the status that violation has (it is then replayed
 * before anything is refuted); anything else unknown, with the reason.
 */
export function judgeTlcSearch(
  r: TlcReport,
  exitCode: number | null,
  p: { kind: TlcPropertyKind; name: string },
): SearchVerdict {
  if (r.violation) {
    const label = violationLabel(r.violation);
    if (!violationRefutes(r.violation, p))
      return {
        verdict: 'unknown',
        reason: `TLC stopped at ${label} (${r.violation.text}), which is not ${p.kind} ${p.name}`,
      };
    if (exitCode !== exitFor(r.violation))
      return {
        verdict: 'unknown',
        reason: `TLC reported ${label} but exited with status ${exitCode ?? 'none'}, not ${exitFor(r.violation)}`,
      };
    if (r.errors.length)
      return {
        verdict: 'unknown',
        reason: `TLC reported ${label} and also error ${r.errors[0]!.code}: ${r.errors[0]!.text.split('\n')[0]}`,
      };
    return { verdict: 'violation', violation: label, reason: r.violation.text };
  }
  const why = incompleteness(r, exitCode);
  if (why.length) return { verdict: 'unknown', reason: `incomplete search: ${why.join('; ')}` };
  // Like pan's "never claim +" line for SPIN: a temporal property is established only when TLC says
  // it ran its liveness check. (A PROPERTY TLC reduces to an invariant is not; state it as one.)
  if (p.kind === 'ltl' && !r.temporalChecked)
    return { verdict: 'unknown', reason: `TLC's report does not say it checked temporal properties (for ${p.name})` };
  return {
    verdict: 'established',
    reason: `complete breadth-first search, ${r.distinct} distinct states (${r.generated} generated), depth ${r.depth ?? 'not reported'}, no violation`,
  };
}

/* ------------------------------------------------------------------------------ the JSON witness */

export interface TlcTrace {
  /** `counterexample`: `{counterexample: {state, action}, vars}`; `plain`: the older `{state, action}`. */
  shape: 'counterexample' | 'plain';
  vars: string[] | null;
  /** The states, numbered 1..n in order. */
  states: { number: number; values: Record<string, unknown> }[];
  /** The steps between states; a lasso's closing step goes to a state number not above its source. */
  actions: { from: number; to: number; action: unknown }[];
  /** The state number a lasso's closing step returns to (its source for stuttering), else null. */
  lasso: number | null;
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A numbered state `[n, {...}]`, or null. */
function numbered(x: unknown): { number: number; values: Record<string, unknown> } | null {
  if (!Array.isArray(x) || x.length !== 2 || !Number.isInteger(x[0]) || !isRecord(x[1])) return null;
  return { number: x[0] as number, values: x[1] };
}

/** Parses a `-dumpTrace json` file; every inconsistency is an error (an unusable witness never refutes). */
export function parseTlcTrace(text: string): { trace: TlcTrace } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON: ${(e as Error).message}` };
  }
  if (!isRecord(raw)) return { error: 'not a JSON object' };
  const shape = isRecord(raw.counterexample) ? 'counterexample' : 'plain';
  const ce = shape === 'counterexample' ? (raw.counterexample as Record<string, unknown>) : raw;
  let vars: string[] | null = null;
  if (shape === 'counterexample') {
    if (!Array.isArray(raw.vars) || !raw.vars.every((v) => typeof v === 'string'))
      return { error: '`vars` is not a list of variable names' };
    vars = raw.vars as string[];
  }
  if (!Array.isArray(ce.state) || ce.state.length === 0) return { error: '`state` is not a non-empty list' };
  if (!Array.isArray(ce.action)) return { error: '`action` is not a list' };
  const states: TlcTrace['states'] = [];
  for (const [i, s] of (ce.state as unknown[]).entries()) {
    const n = numbered(s);
    if (!n) return { error: `state ${i + 1} is not [number, {variables}]` };
    if (n.number !== i + 1)
      return { error: `state ${i + 1} is numbered ${n.number}: the states are not 1..n in order` };
    if (vars && canonicalJson(Object.keys(n.values).sort()) !== canonicalJson([...vars].sort()))
      return { error: `state ${i + 1} has variables ${Object.keys(n.values).join(', ')}, not ${vars.join(', ')}` };
    states.push(n);
  }
  const actions: TlcTrace['actions'] = [];
  let lasso: number | null = null;
  for (const [i, a] of (ce.action as unknown[]).entries()) {
    if (!Array.isArray(a) || a.length !== 3) return { error: `action ${i + 1} is not [state, action, state]` };
    const from = numbered(a[0]);
    const to = numbered(a[2]);
    if (!from || !to) return { error: `action ${i + 1} does not connect two numbered states` };
    for (const end of [from, to]) {
      const s = states[end.number - 1];
      if (!s || canonicalJson(s.values) !== canonicalJson(end.values))
        return { error: `action ${i + 1} names state ${end.number}, which is not the trace's state ${end.number}` };
    }
    if (to.number <= from.number) {
      if (lasso !== null) return { error: 'more than one step closes a lasso' };
      lasso = to.number;
    } else if (to.number !== from.number + 1)
      return { error: `action ${i + 1} skips from ${from.number} to ${to.number}` };
    actions.push({ from: from.number, to: to.number, action: a[1] });
  }
  actions.sort((x, y) => x.from - y.from || x.to - y.to);
  const forward = actions.filter((a) => a.to > a.from);
  if (forward.length !== states.length - 1)
    return { error: `${states.length} states but ${forward.length} steps between them` };
  return { trace: { shape, vars, states, actions, lasso } };
}

/**
 * Compares a witness with its replay by the pinned TLC (`-loadTrace json`, dumped again), step by
 * step: the replay must end in the violation the search reported, with the same variables, the same
 * number of states, every state's every value equal, the same actions between them and the same
 * lasso. `printed` is the number of states TLC printed for the search's error trace, which must be
 * the witness's. The first difference is named.
 */
export function compareTlcTraces(
  expected: { violation: string; trace: TlcTrace; printed: number },
  replayed: { violation: string | null; trace: TlcTrace | null },
): ReplayComparison {
  const w = expected.trace;
  const r = replayed.trace;
  let values = 0;
  const result = (mismatch: string | null, compared: number): ReplayComparison => ({
    matched: mismatch === null,
    violation: { expected: expected.violation, replayed: replayed.violation },
    steps: { witness: w.states.length, replayed: r?.states.length ?? 0, compared },
    values_compared: values,
    mismatch,
  });
  if (expected.printed !== w.states.length)
    return result(
      `TLC printed ${expected.printed} states for its error trace, the dumped witness holds ${w.states.length}`,
      0,
    );
  if (replayed.violation !== expected.violation)
    return result(
      `the replay ended in ${replayed.violation ?? 'no violation'}, the search reported ${expected.violation}`,
      0,
    );
  if (!r) return result('the replay wrote no trace', 0);
  if (canonicalJson(w.vars) !== canonicalJson(r.vars))
    return result(`the variables differ: ${JSON.stringify(w.vars)} and ${JSON.stringify(r.vars)}`, 0);
  if (w.states.length !== r.states.length)
    return result(`the witness has ${w.states.length} states, the replay ${r.states.length}`, 0);
  for (const [i, a] of w.states.entries()) {
    const b = r.states[i]!;
    const names = [...new Set([...Object.keys(a.values), ...Object.keys(b.values)])].sort();
    for (const v of names) {
      if (!(v in a.values) || !(v in b.values))
        return result(`state ${i + 1}: variable ${v} is missing from one trace`, i);
      if (canonicalJson(a.values[v]) !== canonicalJson(b.values[v]))
        return result(
          `state ${i + 1}: ${v} is ${canonicalJson(a.values[v])} in the witness, ${canonicalJson(b.values[v])} in the replay`,
          i,
        );
      values++;
    }
  }
  if (w.actions.length !== r.actions.length)
    return result(`the witness has ${w.actions.length} steps, the replay ${r.actions.length}`, w.states.length);
  for (const [i, a] of w.actions.entries()) {
    const b = r.actions[i]!;
    if (a.from !== b.from || a.to !== b.to || canonicalJson(a.action) !== canonicalJson(b.action))
      return result(
        `step ${i + 1} differs: ${a.from}->${a.to} ${canonicalJson(a.action)} in the witness, ${b.from}->${b.to} ${canonicalJson(b.action)} in the replay`,
        w.states.length,
      );
  }
  if (w.lasso !== r.lasso)
    return result(
      `the lasso closes at ${w.lasso ?? 'none'} in the witness, ${r.lasso ?? 'none'} in the replay`,
      w.states.length,
    );
  return result(null, w.states.length);
}

/* ------------------------------------------------------------------------------ diagnostics */

/**
 * One diagnostic per error TLC reported (parse, configuration, evaluation). The location is the
 * first `line L, col C to line L2, col C2 of module M` (an action's location) or `Line L, column C
 * to line L2, column C2 in M` (TLC_NESTED_EXPRESSION's list) in the message: TLA+ positions,
 * one-based already. It is kept only when `has` says module M's file is among the captured inputs.
 */
export function tlcDiagnostics(
  r: Pick<TlcReport, 'errors'>,
  modelDir: string,
  has: (path: string) => boolean,
): { severity: 'error'; message: string; file?: string; line?: number; column?: number }[] {
  return r.errors.map((e) => {
    const message = `TLC error ${e.code}: ${e.text}`.slice(0, 2000);
    const at = /[Ll]ine (\d+), col(?:umn)? (\d+) to line \d+, col(?:umn)? \d+ (?:of module|in) (\w+)/.exec(e.text);
    if (!at) return { severity: 'error', message };
    const file = modelDir === '.' ? `${at[3]}.tla` : `${modelDir}/${at[3]}.tla`;
    return has(file)
      ? { severity: 'error', message, file, line: Number(at[1]), column: Number(at[2]) }
      : { severity: 'error', message };
  });
}
