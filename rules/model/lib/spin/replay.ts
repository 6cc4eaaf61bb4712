/**
 * Witness replay for the SPIN profile, pure: a pan trail is replayed twice against the frozen model
 * and macros, by the verifier that wrote it (`pan -r`) and by Spin's guided simulation (`spin -t -p
 * -g`), and the two are compared step by step. A property is refuted only when both replays end in
 * the violation pan reported, run the same number of steps, take the same ordered steps (process and
 * statement at every depth) and agree on every final value both print.
 */
import { normaliseExpr } from './pan-report.js';
import type { ReplayComparison, WitnessStep } from '../types.js';

export interface Replay {
  steps: WitnessStep[];
  /** The trail's length as the replay reports it (`spin: trail ends after N steps`). */
  length: number | null;
  /** The violation the replay ended in, normalised; null when it ended in none. */
  violation: string | null;
  /** Whether a failed assertion was the never claim's (`_spin_nvr.tmp`). */
  inClaim: boolean;
  /** Final values by variable name (`x`, `rst[0]`). */
  values: Map<string, string>;
}

/** A process name without Spin's instance suffix (`Env:1` -> `Env`, `:init::1` -> `:init:`). */
const processName = (s: string) => s.replace(/:\d+$/, '');

const STEP = /^\s*(\d+):\tproc\s+(\d+) \((.+?)\) (\S+):(\d+) \(state \d+\)\t\[(.*)\]\s*$/;
const FINAL = /^\s*\d+:\tproc\s+(\d+|-) \((.+?)\)\s+\S+:\d+ \(state\s+(\d+)\)(.*)$/;
const TRAIL_END = /^spin: trail ends after (\d+) steps/;

/** The process step a `STEP` line holds (`m` its match). */
function stepOf(m: RegExpExecArray): WitnessStep {
  return {
    depth: Number(m[1]),
    process: processName(m[3]!),
    file: m[4]!,
    line: Number(m[5]),
    statement: normaliseExpr(m[6]!),
  };
}

/** First step per depth: pan merges statements into one step, Spin prints each of them at that depth. */
function firstPerDepth(steps: WitnessStep[]): WitnessStep[] {
  const out: WitnessStep[] = [];
  for (const s of steps) if (out.at(-1)?.depth !== s.depth) out.push(s);
  return out;
}

function invalidEnd(ends: { name: string; state: string }[]): string | null {
  if (ends.length === 0) return null;
  const where = ends.map((e) => `${e.name}@${e.state}`).sort();
  return `invalid end state: ${where.join(', ')}`;
}

/** `pan -r TRAIL` output. `claim` is the never claim's process name, left out of the steps. */
export function parsePanReplay(text: string, claim: string | null): Replay {
  const steps: WitnessStep[] = [];
  const values = new Map<string, string>();
  let length: number | null = null;
  let violation: string | null = null;
  let cycle = false;
  const ends: { name: string; state: string }[] = [];
  let section: 'steps' | 'final' | 'globals' | 'other' = 'steps';
  for (const line of text.split('\n')) {
    const end = TRAIL_END.exec(line);
    if (end) [length, section] = [Number(end[1]), 'final'];
    if (line.includes('<<<<<START OF CYCLE>>>>>')) cycle = true;
    const v = /^pan:\d+: assertion violated\s+(.*?)(?: \(at depth \d+\))?\s*$/.exec(line);
    if (v && violation === null) violation = `assertion violated: ${normaliseExpr(v[1]!)}`;
    if (line.startsWith('global vars:')) section = 'globals';
    else if (line.startsWith('local vars')) section = 'other';
    if (section === 'steps') {
      const m = STEP.exec(line);
      if (m && processName(m[3]!) !== claim) steps.push(stepOf(m));
    } else if (section === 'final') {
      const m = FINAL.exec(line);
      if (m && processName(m[2]!) !== claim && m[4]!.includes('(invalid end state)'))
        ends.push({ name: processName(m[2]!), state: m[3]! });
    } else if (section === 'globals') {
      const m = /^\t\S+\s+(\S+):\t(.*)$/.exec(line);
      if (m) values.set(m[1]!, m[2]!.trim());
    }
  }
  const inClaim = violation !== null && claim !== null;
  if (violation === null) violation = cycle ? 'acceptance cycle' : invalidEnd(ends);
  return { steps: firstPerDepth(steps), length, violation, inClaim, values };
}

/** `spin -t -p -g -k TRAIL MODEL` output (the never claim's moves are not process steps). */
export function parseSpinReplay(text: string): Replay {
  const steps: WitnessStep[] = [];
  const values = new Map<string, string>();
  let length: number | null = null;
  let failedIn: string | null = null;
  let assertion: string | null = null;
  let cycle = false;
  let ended = false;
  const ends: { name: string; state: string }[] = [];
  for (const line of text.split('\n')) {
    const end = TRAIL_END.exec(line);
    if (end) [length, ended] = [Number(end[1]), true];
    if (line.includes('<<<<<START OF CYCLE>>>>>')) cycle = true;
    const err = /^spin: (\S+):\d+, Error: assertion violated/.exec(line);
    if (err && failedIn === null) failedIn = err[1]!;
    const text = /^spin: text of failed assertion: assert\((.*)\)\s*$/.exec(line);
    if (text && assertion === null) assertion = normaliseExpr(text[1]!);
    if (!ended) {
      const m = STEP.exec(line);
      if (m) steps.push(stepOf(m));
      const val = /^\t\t(\S+) = (.*)$/.exec(line);
      if (val) values.set(val[1]!, val[2]!.trim());
    } else {
      // The final listing: a process Spin does not mark `<valid end state>` is not at one.
      const m = FINAL.exec(line);
      if (m && m[1] !== '-' && !m[4]!.includes('<valid end state>'))
        ends.push({ name: processName(m[2]!), state: m[3]! });
    }
  }
  const violation =
    failedIn !== null ? `assertion violated: ${assertion ?? '?'}` : cycle ? 'acceptance cycle' : invalidEnd(ends);
  return { steps: firstPerDepth(steps), length, violation, inClaim: failedIn === '_spin_nvr.tmp', values };
}

/**
 * Compares the two replays with each other and with what pan's search reported (`expected`: its
 * violation, `witnessSteps`: the trail's own step count). Everything must agree; the first
 * difference is named.
 */
export function compareReplays(
  expected: string,
  witnessSteps: number,
  verifier: Replay,
  simulation: Replay,
): ReplayComparison {
  const result = (mismatch: string | null, compared: number, values = 0): ReplayComparison => ({
    matched: mismatch === null,
    violation: { expected, replayed: simulation.violation },
    steps: { witness: witnessSteps, replayed: simulation.length ?? simulation.steps.length, compared },
    values_compared: values,
    mismatch,
  });
  // The violation: pan's search names its kind; each replay names it in full (which assertion, which processes).
  if (!sameViolation(expected, verifier.violation, true))
    return result(`pan -r ended in ${brief(verifier.violation)}, the search reported ${brief(expected)}`, 0);
  if (!sameViolation(expected, simulation.violation, true))
    return result(`spin -t ended in ${brief(simulation.violation)}, the search reported ${brief(expected)}`, 0);
  if (!sameViolation(verifier.violation!, simulation.violation, false))
    return result(
      `the replays end differently: pan -r ${brief(verifier.violation)}, spin -t ${brief(simulation.violation)}`,
      0,
    );
  if (verifier.inClaim !== simulation.inClaim)
    return result('one replay failed an assertion of the never claim, the other one of the model', 0);
  if (verifier.length !== witnessSteps || simulation.length !== witnessSteps)
    return result(
      `the trail has ${witnessSteps} steps; pan -r replayed ${verifier.length ?? 'none'}, spin -t ${simulation.length ?? 'none'}`,
      0,
    );
  // pan -r stops printing at a failing model assertion; spin -t prints that last step too: it may
  // have exactly one more, at the trail's last depth, and it must be the assertion that failed.
  const last = simulation.steps.at(-1);
  const extra =
    simulation.steps.length === verifier.steps.length + 1 &&
    last?.depth === witnessSteps &&
    last.statement.startsWith('assert(') &&
    !simulation.inClaim;
  if (verifier.steps.length !== simulation.steps.length && !extra)
    return result(`pan -r took ${verifier.steps.length} process steps, spin -t ${simulation.steps.length}`, 0);
  for (const [i, a] of verifier.steps.entries()) {
    const b = simulation.steps[i]!;
    // Depth, process and statement: pan and Spin attribute a guard to different source lines
    // (the `do` or the option), so the line is shown, not compared.
    const key = (s: WitnessStep) => `${s.depth} ${s.process} [${s.statement}]`;
    if (key(a) !== key(b)) return result(`step ${i + 1} differs: pan -r ${key(a)}, spin -t ${key(b)}`, i);
  }
  let values = 0;
  for (const [name, value] of simulation.values) {
    const theirs = verifier.values.get(name);
    if (theirs === undefined) continue;
    if (theirs !== value)
      return result(
        `final value of ${name} differs: pan -r ${theirs}, spin -t ${value}`,
        verifier.steps.length,
        values,
      );
    values++;
  }
  return result(null, verifier.steps.length, values);
}

/**
 * Whether `replayed` is the violation pan reported as `reported`. pan prints a long assertion cut
 * short (its message buffer), so a reported assertion whose parentheses do not balance is taken as
 * cut, and the replayed one must begin with it; otherwise the two are equal. With `kindOnly`, the
 * search's bare kind (`invalid end state`) also matches a replay's named one (`invalid end state: P@s`).
 */
function sameViolation(reported: string, replayed: string | null, kindOnly: boolean): boolean {
  if (replayed === null) return false;
  if (replayed === reported) return true;
  if (kindOnly && replayed.startsWith(`${reported}: `) && !reported.includes(':')) return true;
  const opened = (reported.match(/\(/g) ?? []).length;
  const closed = (reported.match(/\)/g) ?? []).length;
  return reported.startsWith('assertion violated: ') && opened > closed && replayed.startsWith(reported);
}

/** A violation for a message: long assertions cut to their first 100 characters. */
export function brief(violation: string | null): string {
  if (violation === null) return 'no violation';
  return violation.length > 120 ? `${violation.slice(0, 100)}…` : violation;
}

/** The number of steps a trail file holds (its lines of positive depth). */
export function trailSteps(trail: string): number {
  return trail.split('\n').filter((l) => /^\d+:-?\d+:-?\d+$/.test(l.trim()) && !l.startsWith('-')).length;
}
