/**
 * Reading pan's own report (Spin 6.5's verifier output), pure: the violation it found, the state
 * space it explored, and whether its search covered everything. A property is established only
 * when this report says, in pan's words, that a full (not bitstate, not hash-compact) search of the
 * whole state space ran with the property's check enabled and found nothing.
 */
import type { ModelProperty } from '../../schema.js';
import type { ModelScope } from '../types.js';

export interface PanReport {
  /** pan's `errors: N`, or null when the report has no such line (pan did not finish). */
  errors: number | null;
  /** The first violation pan reported, normalised (`assertion violated: <expr>`, `invalid end state`, `acceptance cycle`). */
  violation: string | null;
  /** The depth pan says it found the violation at. */
  violationDepth: number | null;
  states: number | null;
  transitions: number | null;
  depth: number | null;
  search: ModelScope['search'];
  /** Why the search cannot be called complete (each in pan's words), empty when it can. */
  incomplete: string[];
  /** pan's lines saying what it checked (`never claim + (name)`, `invalid end states -`, ...). */
  checked: string[];
  seconds: number | null;
}

const num = (s: string | undefined) => (s === undefined ? null : Number(s));

/** A violation line of pan (`pan:1: assertion violated  !( x) (at depth 12)`), normalised; else null. */
function panViolation(line: string): { violation: string; depth: number | null } | null {
  const m = /^pan:\d+: (.*?)(?: \(at depth (\d+)\))?\s*$/.exec(line);
  if (!m) return null;
  const what = m[1]!.trim();
  const depth = num(m[2]);
  const assertion = /^assertion violated\s+(.*)$/.exec(what);
  if (assertion) return { violation: `assertion violated: ${normaliseExpr(assertion[1]!)}`, depth };
  for (const kind of ['invalid end state', 'acceptance cycle', 'non-progress cycle'])
    if (what.startsWith(kind)) return { violation: kind, depth };
  return { violation: what, depth };
}

/** An expression with every space removed: pan and spin print the same expression with different spacing. */
export function normaliseExpr(expr: string): string {
  return expr.replace(/\s+/g, '');
}

export function parsePanReport(text: string): PanReport {
  const lines = text.split('\n');
  let violation: { violation: string; depth: number | null } | null = null;
  const checked: string[] = [];
  const incomplete: string[] = [];
  let search: ModelScope['search'] = 'unknown';
  let inChecked = false;
  let errors: number | null = null;
  let depth: number | null = null;
  let states: number | null = null;
  let transitions: number | null = null;
  let seconds: number | null = null;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (!violation && line.startsWith('pan:') && !line.startsWith('pan: ')) violation = panViolation(line);
    if (/^Full statespace search for:/.test(line)) [search, inChecked] = ['exhaustive', true];
    else if (/^Bit statespace search for:/.test(line)) [search, inChecked] = ['bitstate', true];
    else if (/^Hash-Compact \d+ search for:/.test(line)) [search, inChecked] = ['hash-compact', true];
    else if (inChecked && /^\t\S/.test(line)) checked.push(line.trim().replace(/\s+/g, ' '));
    else if (inChecked) inChecked = false;
    let m = /depth reached (\d+), errors: (\d+)/.exec(line);
    if (m) [depth, errors] = [Number(m[1]), Number(m[2])];
    m = /^\s*([0-9.e+]+) states, stored/.exec(line);
    if (m) states = Number(m[1]);
    m = /^\s*([0-9.e+]+) transitions \(= stored\+matched\)/.exec(line);
    if (m) transitions = Number(m[1]);
    m = /^pan: elapsed time ([0-9.e+]+) seconds/.exec(line);
    if (m) seconds = Number(m[1]);
    for (const cut of [
      'max search depth too small',
      'pan: reached -DMEMLIM bound',
      'pan: out of memory',
      'out of memory -- aborting',
      'Warning: Search incomplete',
    ])
      if (line.includes(cut) && !incomplete.includes(cut)) incomplete.push(cut);
  }
  if (errors === null) incomplete.push('pan printed no `errors:` line (it did not finish)');
  if (search === 'bitstate') incomplete.push('bitstate search: states may be missed');
  if (search === 'hash-compact') incomplete.push('hash-compact search: states may be missed');
  if (search === 'unknown') incomplete.push('pan did not say what kind of search it ran');
  // pan says "Search not completed" when it stopped at an error (fine for a refutation), or for
  // any other early stop: with no error found, that is an incomplete search.
  if (errors === 0 && text.includes('Warning: Search not completed')) incomplete.push('Warning: Search not completed');
  return {
    errors,
    violation: violation?.violation ?? null,
    violationDepth: violation?.depth ?? null,
    states,
    transitions,
    depth,
    search,
    incomplete,
    checked,
    seconds,
  };
}

/**
 * Whether pan's report says it checked this property: the line a run for the property must show
 * with `+` (an `assert` run checks assertions, a `deadlock` run invalid end states, an `ltl`/`never`
 * run the named claim). A run that checked something else establishes nothing about it.
 */
export function checkedProperty(report: PanReport, property: Pick<ModelProperty, 'kind' | 'name'>): boolean {
  const has = (re: RegExp) => report.checked.some((l) => re.test(l));
  switch (property.kind) {
    case 'assert':
      return has(/^assertion violations \+/);
    case 'deadlock':
      return has(/^invalid end states \+/);
    case 'ltl':
    case 'never':
      return has(new RegExp(`^never claim \\+ \\(${property.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`));
    default:
      return false;
  }
}

/** The violation a property's run may refute it with; another one (a model assertion during an ltl run) decides nothing about it. */
export function violationRefutes(violation: string, property: Pick<ModelProperty, 'kind'>, inClaim: boolean): boolean {
  switch (property.kind) {
    case 'assert':
      return violation.startsWith('assertion violated') && !inClaim;
    case 'deadlock':
      return violation === 'invalid end state';
    case 'ltl':
    case 'never':
      return (violation.startsWith('assertion violated') && inClaim) || violation === 'acceptance cycle';
    default:
      return false;
  }
}
