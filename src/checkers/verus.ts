/**
 * Verus, as pure functions: the argv of each step of the `verus-linux-x86_64-v1` procedure, and the
 * reading of Verus's `--output-json` report into obligations. Nothing here runs a process; the
 * profile (`src/formal/profiles/verus.ts`) hands these argv arrays to the sandbox.
 *
 * Sources for the command line (read through the search tool; Verus itself cannot be downloaded here):
 * - verus-lang/verus `source/rust_verify/src/config.rs` (e.g. commit bfaff4bac9b3841af1c2ed130912680dfcfd1221,
 *   and a later stored version that adds `--no-cheating` and `--verify-only-module`): `--export CRATENAME=PATH`
 *   ("Export Verus metadata for library crate"), `--import CRATENAME=PATH` (repeatable), `--output-json`
 *   ("Emit verification results and timing as json"), `--time`, `--compile` ("Run Rustc compiler after
 *   verification"), `--rlimit FLOAT`, `--no-cheating` ("Do not allow assume, admit, verifier::external_body,
 *   and assume_specification"), and the partial-verification switches `--verify-root`, `--verify-module`,
 *   `--verify-only-module`, `--verify-function`, `--no-verify`, `--no-lifetime`, `-V no-solver-version-check`.
 *   Arguments Verus does not know are handed to rustc (`opts.parse_partial`), hence `--crate-type=lib`,
 *   `--crate-name`, `--extern`, `-L`, `--out-dir`, `-o`, `--edition` and `--error-format=json`.
 * - verus-lang/verus `source/rust_verify/src/main.rs` (commit f0723ff3ded15eb59ea079d153c205fe80de4fbd and a
 *   later stored version): the JSON written to stdout under `--output-json`:
 *   `verification-results` = {`encountered-error`, `encountered-vir-error`, `success` (only when the entire
 *   crate was verified), and, only without a VIR error, `verified`, `errors`, `is-verifying-entire-crate`},
 *   `func-details` (function -> {`obligation_proof_notes`, `failed_proof_notes`}), `times-ms` under `--time`
 *   (with `smt.smt-run-module-times[].function-breakdown[]` = {`function`, `time`, `success`, ...}), and the
 *   build info (`verus`: version, commit, toolchain, ...). The process exits 1 when verification failed.
 */
import type { Diagnostic, Obligation, Obligations } from './results.js';

/* ------------------------------------------------------------------------------------------ argv */

/**
 * Arguments every Verus step carries, and none may drop:
 * - `--no-cheating` rejects `assume`, `admit`, `#[verifier::external_body]` and `assume_specification`, so no
 *   body can be left unchecked (an unchecked body would otherwise verify trivially);
 * - `--output-json` and `--time` produce the machine-readable report, per-function results included;
 * - `--rlimit 30` fixes the solver budget, so the result does not depend on a default that may change;
 * - `--error-format=json` (passed to rustc) makes diagnostics machine-readable on stderr, with locations.
 */
const VERUS_STRICT_ARGS: readonly string[] = [
  '--no-cheating',
  '--output-json',
  '--time',
  '--rlimit',
  '30',
  '--error-format=json',
  '--edition=2021',
];

/**
 * Arguments that would verify less than the whole crate (partial verification) or skip checks; a step
 * containing any of them is refused before it runs. `-V` extended options are refused altogether
 * (e.g. `-V no-solver-version-check` would accept an unpinned Z3, `-V allow-inline-air` is unsound).
 */
const VERUS_FORBIDDEN_ARGS: readonly string[] = [
  '--verify-root',
  '--verify-module',
  '--verify-only-module',
  '--verify-function',
  '--no-verify',
  '--no-lifetime',
  '--no-vstd',
  '--is-vstd',
  '--is-core',
  '--no-external-by-default',
  '-V',
];

/** Where things are inside the Verus worker container (the host directories are bound read-only there). */
export interface VerusLayout {
  /** The expanded official Verus release (`VKIT_VERUS_ROOT`), holding `verus`, `z3`, `vstd`. */
  verusRoot: string;
  /** The package's `verus/` directory. */
  packageDir: string;
  /** The materialised candidate capture. */
  sourceDir: string;
  /** The private writable output directory. */
  outDir: string;
}

export const DEFAULT_LAYOUT: VerusLayout = {
  verusRoot: '/opt/verus',
  packageDir: '/vkit/package/verus',
  sourceDir: '/vkit/source',
  outDir: '/vkit/out',
};

/** Crate names of the three verified crates. Fixed: the expected client refers to them by name. */
const CRATES = {
  library: 'vkit_ledger',
  candidate: 'candidate',
  client: 'vkit_ledger_client',
  observe: 'vkit_ledger_observe',
} as const;

type VerusStep = 'library' | 'candidate' | 'client' | 'compile' | 'observe';

export interface StepPlan {
  step: VerusStep;
  argv: string[];
  /** The Verus JSON report is expected on stdout (false for the observation run). */
  report: boolean;
}

const verus = (l: VerusLayout) => `${l.verusRoot}/verus`;
const rlib = (l: VerusLayout, crate: string) => `${l.outDir}/lib${crate}.rlib`;
const vir = (l: VerusLayout, crate: string) => `${l.outDir}/${crate}.vir`;

/** The library and the checked candidate as dependencies a later crate links against and imports. */
const linkingBoth = (l: VerusLayout): string[] => [
  '--extern',
  `${CRATES.library}=${rlib(l, CRATES.library)}`,
  '--extern',
  `${CRATES.candidate}=${rlib(l, CRATES.candidate)}`,
  '--import',
  `${CRATES.library}=${vir(l, CRATES.library)}`,
  '--import',
  `${CRATES.candidate}=${vir(l, CRATES.candidate)}`,
  '-L',
  `dependency=${l.outDir}`,
];

/** 1. Check the owned library freshly and export its Verus metadata and rlib for the next steps. */
export function libraryArgv(l: VerusLayout = DEFAULT_LAYOUT): string[] {
  return [
    verus(l),
    `${l.packageDir}/ledger/lib.rs`,
    '--crate-type=lib',
    `--crate-name=${CRATES.library}`,
    '--export',
    vir(l, CRATES.library),
    '--compile',
    `--out-dir=${l.outDir}`,
    ...VERUS_STRICT_ARGS,
  ];
}

/** 2. Check the candidate (its declared entry) against the imported library, and export it in turn. */
export function candidateArgv(entry: string, l: VerusLayout = DEFAULT_LAYOUT): string[] {
  return [
    verus(l),
    `${l.sourceDir}/${entry}`,
    '--crate-type=lib',
    `--crate-name=${CRATES.candidate}`,
    '--extern',
    `${CRATES.library}=${rlib(l, CRATES.library)}`,
    '--import',
    `${CRATES.library}=${vir(l, CRATES.library)}`,
    '--export',
    vir(l, CRATES.candidate),
    '-L',
    `dependency=${l.outDir}`,
    '--compile',
    `--out-dir=${l.outDir}`,
    ...VERUS_STRICT_ARGS,
  ];
}

/**
 * 3. Check the unchanged expected client, importing both the library and the candidate. The client is
 * copied into the output directory beside a generated `bound.rs` of `pub use` lines (the bindings),
 * because the client refers to the bound symbols by binding name only.
 */
export function clientArgv(l: VerusLayout = DEFAULT_LAYOUT): string[] {
  return [
    verus(l),
    `${l.outDir}/client/client.rs`,
    '--crate-type=lib',
    `--crate-name=${CRATES.client}`,
    ...linkingBoth(l),
    ...VERUS_STRICT_ARGS,
  ];
}

/** 4. Compile the fixed observation driver against the checked candidate and library into an executable. */
export function compileArgv(l: VerusLayout = DEFAULT_LAYOUT): string[] {
  return [
    verus(l),
    `${l.outDir}/client/observe.rs`,
    '--crate-type=bin',
    `--crate-name=${CRATES.observe}`,
    ...linkingBoth(l),
    '--compile',
    '-o',
    `${l.outDir}/observe`,
    ...VERUS_STRICT_ARGS,
  ];
}

/** 5. Run the retained executable; it prints one `observation` line per fixed case. */
export function observeArgv(l: VerusLayout = DEFAULT_LAYOUT): string[] {
  return [`${l.outDir}/observe`];
}

/** The whole procedure, in order. Each step runs only when the previous one verified. */
export function procedure(entry: string, l: VerusLayout = DEFAULT_LAYOUT): StepPlan[] {
  return [
    { step: 'library', argv: libraryArgv(l), report: true },
    { step: 'candidate', argv: candidateArgv(entry, l), report: true },
    { step: 'client', argv: clientArgv(l), report: true },
    { step: 'compile', argv: compileArgv(l), report: true },
    { step: 'observe', argv: observeArgv(l), report: false },
  ];
}

/** The strict arguments missing from a Verus argv, and the forbidden ones present: both must be empty. */
export function argvProblems(argv: readonly string[]): string[] {
  const problems: string[] = [];
  for (const a of VERUS_STRICT_ARGS) if (!argv.includes(a)) problems.push(`missing strict argument \`${a}\``);
  for (const a of argv) {
    const flag = a.split('=')[0]!;
    if (VERUS_FORBIDDEN_ARGS.includes(flag) || (a.startsWith('-V') && a.length > 2))
      problems.push(`forbidden argument \`${a}\` (partial or unchecked verification)`);
  }
  return problems;
}

/* ------------------------------------------------------------------------------------ bindings */

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RUST_KEYWORDS = new Set(
  'as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while'.split(
    ' ',
  ),
);

/** Whether `path` is a relative Rust identifier path (`api::reserve`), as the reference requires of a binding. */
function isRelativeRustPath(path: string): boolean {
  const parts = path.split('::');
  return parts.length > 0 && parts.every((p) => IDENT.test(p) && !RUST_KEYWORDS.has(p));
}

/**
 * The generated `bound.rs`: one `pub use candidate::<path> as <binding>;` per required binding. Throws on
 * a missing binding or a path that is not a relative identifier path (nothing else may reach the source).
 */
export function boundModule(required: readonly string[], bindings: Record<string, string>): string {
  const lines = ['// Generated by vkit from the accepted bindings. Not part of any checked claim by itself.'];
  for (const name of required) {
    const path = bindings[name];
    if (path === undefined) throw new Error(`binding \`${name}\` is not declared`);
    if (!IDENT.test(name)) throw new Error(`binding name \`${name}\` is not a Rust identifier`);
    if (!isRelativeRustPath(path))
      throw new Error(`binding \`${name}\` = \`${path}\` is not a relative Rust identifier path`);
    lines.push(`pub use ${CRATES.candidate}::${path} as ${name};`);
  }
  return `${lines.join('\n')}\n`;
}

/* -------------------------------------------------------------------------------------- report */

interface VerusResults {
  encounteredError: boolean | null;
  encounteredVirError: boolean | null;
  /** Present only when Verus verified the entire crate. */
  success: boolean | null;
  /** Absent after a VIR error. */
  verified: number | null;
  errors: number | null;
  entireCrate: boolean | null;
}

interface VerusFunction {
  name: string;
  success: boolean;
}

export interface VerusReport {
  results: VerusResults;
  /** Per-function outcomes from `times-ms` (under `--time`), in report order. */
  functions: VerusFunction[];
  /** Function -> failed proof notes (`#[verifier::proof_note]` labels that failed). */
  failedNotes: Record<string, string[]>;
  /** Build info as Verus reports it (`verus`: version, commit, toolchain...), strings only. */
  build: Record<string, string>;
}

export type ParsedReport = { ok: true; report: VerusReport } | { ok: false; error: string };

const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Finds the report in Verus's stdout. Verus pretty-prints one JSON object, but other lines may come
 * first (e.g. a human summary), so the report is the last object that starts at the beginning of a line
 * and runs to the end of the output. Exactly one report is accepted: two would leave it ambiguous
 * which one counts.
 */
function locateReport(stdout: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const text = stdout.replace(/\s+$/, '');
  if (text === '') return { ok: false, error: 'no Verus report on stdout' };
  const starts: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '{' && (i === 0 || text[i - 1] === '\n')) starts.push(i);
  const parsed: Record<string, unknown>[] = [];
  let last = false;
  for (const s of starts) {
    // Each column-0 object is cut at its matching brace (strings respected), so a second report after
    // the first is seen rather than swallowed as trailing text.
    const end = objectEnd(text, s);
    if (end === null) continue;
    try {
      const v: unknown = JSON.parse(text.slice(s, end));
      if (isObject(v) && 'verification-results' in v) {
        parsed.push(v);
        last = text.slice(end).trim() === '';
      }
    } catch {
      // not a report
    }
  }
  if (parsed.length === 0)
    return { ok: false, error: 'stdout holds no complete Verus JSON report (truncated or malformed)' };
  if (parsed.length > 1) return { ok: false, error: 'stdout holds more than one Verus JSON report' };
  if (!last) return { ok: false, error: 'output follows the Verus JSON report' };
  return { ok: true, value: parsed[0]! };
}

/** Index just past the `}` matching the `{` at `start`, or null when the object never closes. */
function objectEnd(text: string, start: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return null;
}

/** Parses Verus's `--output-json` stdout. Unknown extra keys are kept out, never trusted. */
export function parseVerusReport(stdout: string): ParsedReport {
  const located = locateReport(stdout);
  if (!located.ok) return located;
  const root = located.value;
  const vr = root['verification-results'];
  if (!isObject(vr)) return { ok: false, error: '`verification-results` is not an object' };
  const results: VerusResults = {
    encounteredError: bool(vr['encountered-error']),
    encounteredVirError: bool(vr['encountered-vir-error']),
    success: bool(vr.success),
    verified: count(vr.verified),
    errors: count(vr.errors),
    entireCrate: bool(vr['is-verifying-entire-crate']),
  };
  const functions: VerusFunction[] = [];
  const times = root['times-ms'];
  const modules = isObject(times) && isObject(times.smt) ? times.smt['smt-run-module-times'] : undefined;
  if (Array.isArray(modules)) {
    for (const m of modules) {
      const breakdown = isObject(m) ? m['function-breakdown'] : undefined;
      if (!Array.isArray(breakdown)) continue;
      for (const f of breakdown) {
        if (isObject(f) && typeof f.function === 'string' && typeof f.success === 'boolean')
          functions.push({ name: f.function, success: f.success });
      }
    }
  }
  const failedNotes: Record<string, string[]> = {};
  const details = root['func-details'];
  if (isObject(details)) {
    for (const [name, d] of Object.entries(details)) {
      const notes = isObject(d) ? d.failed_proof_notes : undefined;
      if (Array.isArray(notes) && notes.length > 0) failedNotes[name] = notes.map(String);
    }
  }
  const build: Record<string, string> = {};
  const info = root.verus;
  if (isObject(info)) for (const [k, v] of Object.entries(info)) if (typeof v === 'string') build[k] = v;
  return { ok: true, report: { results, functions, failedNotes, build } };
}

export type StepVerdict =
  | { verdict: 'verified'; reason: string }
  | { verdict: 'failed'; reason: string }
  | { verdict: 'incomplete'; reason: string };

/**
 * What one Verus step established. `verified` needs all of: exit 0, a report, no error, no VIR error,
 * the entire crate verified, `success: true`, zero errors and at least one verified obligation (an
 * empty crate verifies nothing). `failed` is an observed failing obligation; everything else
 * (front-end or VIR error, partial run, missing counts, a non-zero exit with a clean report) is
 * `incomplete`. Both non-verified verdicts leave the claim unknown.
 */
export function judgeStep(exitCode: number | null, parsed: ParsedReport): StepVerdict {
  if (!parsed.ok) return { verdict: 'incomplete', reason: parsed.error };
  const r = parsed.report.results;
  if (r.encounteredVirError !== false)
    return {
      verdict: 'incomplete',
      reason: r.encounteredVirError
        ? 'Verus reported a VIR (front-end) error'
        : 'the report does not say whether a VIR error occurred',
    };
  if (r.entireCrate !== true)
    return { verdict: 'incomplete', reason: 'Verus did not verify the entire crate (partial verification)' };
  if (r.verified === null || r.errors === null)
    return { verdict: 'incomplete', reason: 'the report lacks the verified/errors counts' };
  if (r.errors > 0) return { verdict: 'failed', reason: `${r.errors} verification error(s)` };
  if (r.encounteredError !== false)
    return { verdict: 'incomplete', reason: 'Verus reported an error outside verification' };
  if (r.success !== true) return { verdict: 'incomplete', reason: 'the report does not say `success: true`' };
  if (exitCode !== 0)
    return {
      verdict: 'incomplete',
      reason: `Verus exited ${exitCode === null ? 'without a code' : exitCode} despite a clean report`,
    };
  if (r.verified === 0) return { verdict: 'incomplete', reason: 'Verus verified nothing (0 obligations)' };
  return { verdict: 'verified', reason: `${r.verified} verified, 0 errors` };
}

/**
 * The obligations section for one report. Counts are Verus's own; `total` and `unknown` are null when the
 * run is partial (no entire-crate count, or a VIR error that suppresses the counts), as the reference asks.
 */
export function obligationsOf(parsed: ParsedReport, step: string): Obligations {
  const items: Obligation[] = [];
  if (!parsed.ok) return { total: null, proved: 0, failed: 0, unknown: null, items };
  const { results: r, functions, failedNotes } = parsed.report;
  for (const f of functions)
    items.push({
      id: `${step}:${f.name}`,
      description: `Verus obligations of \`${f.name}\``,
      status: f.success ? 'proved' : 'failed',
    });
  for (const [name, notes] of Object.entries(failedNotes)) {
    for (const note of notes)
      items.push({
        id: `${step}:${name}#${note}`,
        description: `proof note "${note}" of \`${name}\``,
        status: 'failed',
      });
  }
  const complete =
    r.encounteredVirError === false && r.entireCrate === true && r.verified !== null && r.errors !== null;
  if (!complete) return { total: null, proved: r.verified ?? 0, failed: r.errors ?? 0, unknown: null, items };
  return { total: r.verified! + r.errors!, proved: r.verified!, failed: r.errors!, unknown: 0, items };
}

/** The names of the functions Verus reported failing (from `--time` results and failed proof notes). */
export function failingFunctions(report: VerusReport): string[] {
  const names = report.functions.filter((f) => !f.success).map((f) => f.name);
  for (const name of Object.keys(report.failedNotes)) if (!names.includes(name)) names.push(name);
  return names;
}

/**
 * rustc JSON diagnostics (`--error-format=json`) on stderr -> diagnostics with one-based locations
 * (rustc's `line_start`/`column_start` are one-based already). Only spans under `sourceRoot` are kept as
 * locations, relative to it; other lines of stderr are ignored.
 */
export function parseDiagnostics(stderr: string, sourceRoot: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const root = sourceRoot.endsWith('/') ? sourceRoot : `${sourceRoot}/`;
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(v) || typeof v.message !== 'string' || typeof v.level !== 'string') continue;
    const level = v.level;
    const severity: Diagnostic['severity'] =
      level === 'error' || level.startsWith('error') ? 'error' : level === 'warning' ? 'warning' : 'info';
    const diag: Diagnostic = { severity, message: v.message };
    const spans = Array.isArray(v.spans) ? v.spans.filter(isObject) : [];
    const primary = spans.find((s) => s.is_primary === true) ?? spans[0];
    if (primary && typeof primary.file_name === 'string' && primary.file_name.startsWith(root)) {
      diag.file = primary.file_name.slice(root.length);
      if (count(primary.line_start)) diag.line = primary.line_start as number;
      if (count(primary.column_start)) diag.column = primary.column_start as number;
    }
    out.push(diag);
  }
  return out;
}

/* -------------------------------------------------------------------------------- observations */

export interface Observation {
  name: string;
  expected: string;
  observed: string;
  pass: boolean;
}

/**
 * The observation driver prints `observation<TAB>name<TAB>expected<TAB>observed` per case and
 * `observations<TAB>N` last; anything else, a repeated name or a count mismatch makes the run incomplete.
 */
export function parseObservations(
  stdout: string,
  expectedNames: readonly string[],
): { ok: true; observations: Observation[] } | { ok: false; error: string } {
  const observations: Observation[] = [];
  let declared: number | null = null;
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const f = line.split('\t');
    if (f[0] === 'observation' && f.length === 4) {
      if (declared !== null) return { ok: false, error: 'an observation follows the final count' };
      if (observations.some((o) => o.name === f[1])) return { ok: false, error: `observation \`${f[1]}\` repeated` };
      observations.push({ name: f[1]!, expected: f[2]!, observed: f[3]!, pass: f[2] === f[3] });
    } else if (f[0] === 'observations' && f.length === 2 && /^\d+$/.test(f[1]!)) {
      declared = Number(f[1]);
    } else return { ok: false, error: `unexpected observation output line: ${JSON.stringify(line.slice(0, 200))}` };
  }
  if (declared === null || declared !== observations.length)
    return { ok: false, error: 'the observation run did not finish (count line missing or wrong)' };
  const missing = expectedNames.filter((n) => !observations.some((o) => o.name === n));
  if (missing.length > 0) return { ok: false, error: `observations missing: ${missing.join(', ')}` };
  return { ok: true, observations };
}
