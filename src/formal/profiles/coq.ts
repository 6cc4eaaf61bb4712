/**
 * The `coq-linux-x86_64-v1` profile: vkit.resource-ledger's model and contracts in Coq, checked by
 * the real coqc of the worker image `localhost/vkit-coq-worker:1` in restricted containers.
 *
 * Procedure (each step a container; each must succeed before the next runs):
 *   1. package: coqc freshly checks the package's Coq files (model, facts, the LEDGER_API module
 *      type, the expected client functor, the model's own implementation, transfer); once per job
 *      when the job's runs share their work (a qualification's reference and mutants: the same
 *      package, the same image), its output bound read-only into each run's later steps;
 *   2. candidate: coqc checks `component.source.entry` against the compiled package;
 *   3. driver: a generated file binds the component's parameters (N, M), applies the candidate's
 *      functor, binds the six names to a module checked against `LEDGER_API`, applies the unchanged
 *      expected client to it, runs `Print Assumptions` on every client theorem and package claim,
 *      and extracts the bound module to OCaml. A component with `representation` (its own state
 *      type) also binds `state`, `view` and `of_ledger`; its module is checked against
 *      `LEDGER_REPR_API` (contracts through the view) and adapted to `LEDGER_API` by `ReprAdapter`,
 *      and the expected client and the extraction use the adapter;
 *   4. compile: ocamlopt builds the extracted module with the package's fixed observation driver;
 *   5. observe: the executable runs (its directory read-only) and prints the observations.
 * A candidate's failing obligation is BLOCKED with the claim unknown (as the reference says of a
 * failed verifier obligation); PASS needs every step, every obligation closed under the accepted
 * axioms, no proof escape in the candidate, and every observation as expected.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type {
  Bind,
  CheckerPlan,
  ContainerResult,
  FormalOutcome,
  FormalSections,
  Obligation,
  Profile,
  ProfileContext,
  Rejection,
  Sandbox,
} from '../types.js';
import {
  blankCommentsAndStrings,
  coqLocation,
  declarationIndex,
  firstCoqError,
  indexToLineColumn,
  lineStart,
  mismatchedField,
  parseAssumptions,
  parseObservationLines,
  scanCandidate,
  type CoqError,
} from '../../checkers/coq.js';

export const COQ_PROFILE_ID = 'coq-linux-x86_64-v1';
export const COQ_WORKER_IMAGE = 'localhost/vkit-coq-worker:1';
/** The checker is the whole /usr tree of the image: coqc, its library, OCaml, gcc, as and ld. */
export const COQ_TOOL_PATHS = ['/usr'];
const CONTRACT = 'ledger.source.v1';
const METHOD = 'coq_source';
const BINDINGS = ['new', 'reserve', 'release', 'reserve_batch', 'apply_command', 'run_commands'] as const;
/**
 * A represented component (`representation` set: its own state type) binds these too, checked against
 * LEDGER_REPR_API (Repr.v): its state type, `view` (state -> ledger) and `of_ledger` (ledger -> state),
 * whose proof `<of_ledger>_spec` is the conversion lemma LEDGER_REPR_API.view_of_ledger.
 */
const REPR_BINDINGS = ['state', 'view', 'of_ledger'] as const;
const CONVERSION_CONTRACT = 'view_of_ledger';
/** Package files checked in step 1, in dependency order. */
export const PACKAGE_FILES = ['Ledger', 'Facts', 'Contracts', 'Client', 'Model', 'Transfer', 'Repr'];
export const COQC = '/usr/bin/coqc';
const OCAMLOPT = '/usr/bin/ocamlopt';
export const STEP_TIMEOUT_MS = 10 * 60_000;
/** Parameter bounds: N and M are unary naturals in the kernel, so they stay small. */
const MAX_PARAMETER = 1024;
const IDENT = /^[A-Za-z_][A-Za-z0-9_']*$/;

/* ------------------------------------------------------------------ the package's obligation list */

export interface CoqObligationSpec {
  bindings: Record<string, { contract: string; client: string[] }>;
  package_claims: { claim: string; theorems: string[] }[];
  not_established: { claim: string; note: string }[];
}

export function readObligationSpec(pkgDir: string): CoqObligationSpec {
  return JSON.parse(readFileSync(join(pkgDir, 'coq', 'obligations.json'), 'utf8')) as CoqObligationSpec;
}

/* ------------------------------------------------------------------ the component, checked (pure) */

export interface CoqComponentPlan {
  /** Captured-source path of the candidate entry, e.g. `src/allocation.v`. */
  entry: string;
  /** The candidate library's module name (the entry's file stem). */
  library: string;
  /** The candidate's functor (the common module path of every binding). */
  functor: string;
  /** Binding -> the field name inside the functor. */
  symbols: Record<string, string>;
  maxRecords: number;
  commandCount: number;
  /** The component's representation name, when its state is its own type (checked against LEDGER_REPR_API). */
  representation?: string;
}

/** The names a plan binds: the six, preceded by the representation's for a represented component. */
function boundNames(plan: { representation?: string }): string[] {
  return plan.representation === undefined ? [...BINDINGS] : [...REPR_BINDINGS, ...BINDINGS];
}

/** The module type a plan's bound module is checked against. */
function moduleType(plan: { representation?: string }): string {
  return plan.representation === undefined ? 'LEDGER_API' : 'LEDGER_REPR_API';
}

/** The contract field proved for a binding (`<name>_spec` in the candidate), if it has one. */
function contractOf(spec: CoqObligationSpec, binding: string): string | undefined {
  return binding === 'of_ledger' ? CONVERSION_CONTRACT : spec.bindings[binding]?.contract;
}

/**
 * Reads a component's entry, bindings and parameters into a plan, or the problems that make it
 * uncheckable. Everything here is pasted into generated Coq, so only plain identifiers pass.
 */
export function planComponent(
  component: ProfileContext['component'],
): { plan: CoqComponentPlan } | { problems: string[] } {
  const problems: string[] = [];
  const entry = component.source.entry;
  const segments = entry.split('/');
  const stem = basename(entry, '.v');
  if (!entry.endsWith('.v') || segments.some((s) => !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(s)) || !IDENT.test(stem)) {
    problems.push(`source.entry must be a relative path to a .v file whose name is a Coq identifier, got \`${entry}\``);
  }
  const represented = component.representation !== undefined;
  const symbols: Record<string, string> = {};
  const functors = new Set<string>();
  for (const b of boundNames(component)) {
    const path = component.bindings[b];
    if (path === undefined) {
      problems.push(
        represented && (REPR_BINDINGS as readonly string[]).includes(b)
          ? `binding \`${b}\` is missing: a component with representation \`${component.representation}\` binds ${REPR_BINDINGS.join(', ')} (its state type, state -> ledger, ledger -> state with \`<of_ledger>_spec\` proving LEDGER_REPR_API.${CONVERSION_CONTRACT}) besides the six`
          : `binding \`${b}\` is missing`,
      );
      continue;
    }
    const parts = path.split('.');
    if (parts.length < 2 || !parts.every((p) => IDENT.test(p))) {
      problems.push(`binding \`${b}\` must be Module.name (Coq identifiers), got \`${path}\``);
      continue;
    }
    functors.add(parts.slice(0, -1).join('.'));
    symbols[b] = parts[parts.length - 1]!;
  }
  if (functors.size > 1)
    problems.push(
      `all bindings must name fields of one functor over LEDGER_PARAMS, got ${[...functors].sort().join(', ')}`,
    );
  const n = component.parameters.max_records;
  const m = component.parameters.command_count;
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > MAX_PARAMETER)
    problems.push(`parameters.max_records must be an integer from 1 to ${MAX_PARAMETER}, got ${JSON.stringify(n)}`);
  if (!Number.isInteger(m) || (m as number) < 0 || (m as number) > MAX_PARAMETER)
    problems.push(`parameters.command_count must be an integer from 0 to ${MAX_PARAMETER}, got ${JSON.stringify(m)}`);
  if (problems.length) return { problems };
  return {
    plan: {
      entry,
      library: stem,
      functor: [...functors][0]!,
      symbols,
      maxRecords: n as number,
      commandCount: m as number,
      ...(represented ? { representation: component.representation } : {}),
    },
  };
}

/** Names of the `Print Assumptions` outputs (`<id>.out` under assumptions/). */
export function assumptionId(kind: 'client' | 'package', theorem: string): string {
  return `${kind}.${theorem}`;
}

/**
 * The driver: binds the parameters, applies the candidate's functor, checks the bound module
 * against LEDGER_API, applies the expected client, prints assumptions and extracts. `lines` maps a
 * one-based driver line to the binding it binds, so a typing error there names its obligation.
 */
export function renderDriver(
  plan: CoqComponentPlan,
  spec: CoqObligationSpec,
): { text: string; lines: Record<number, string> } {
  const out: string[] = [];
  const lines: Record<number, string> = {};
  const add = (s: string, binding?: string) => {
    out.push(s);
    if (binding) lines[out.length] = binding;
  };
  add('(* Generated by vkit (coq-linux-x86_64-v1). *)');
  add(
    `From VkitLedger Require Import Ledger Facts Contracts Client Model Transfer${plan.representation === undefined ? '' : ' Repr'}.`,
  );
  add(`From VkitCandidate Require ${plan.library}.`);
  add('Module Params <: LEDGER_PARAMS.');
  add(`  Definition max_records := ${plan.maxRecords}.`);
  add(`  Definition command_count := ${plan.commandCount}.`);
  add('  Lemma max_records_pos : 0 < max_records.');
  add('  Proof. unfold max_records. apply PeanoNat.Nat.lt_0_succ. Qed.');
  add('End Params.');
  add(`Module Candidate := ${plan.library}.${plan.functor} Params.`);
  if (plan.representation === undefined) {
    add('Module Bound <: LEDGER_API Params.');
    for (const b of BINDINGS) {
      const sym = plan.symbols[b]!;
      add(`  Definition ${b} := Candidate.${sym}.`, b);
      add(`  Definition ${spec.bindings[b]!.contract} := Candidate.${sym}_spec.`, b);
    }
    add('End Bound.');
  } else {
    // The candidate's own state: checked against LEDGER_REPR_API, then adapted to LEDGER_API.
    add(`(* representation: ${plan.representation.replace(/[^A-Za-z0-9_.-]/g, '_')} *)`);
    add('Module Represented <: LEDGER_REPR_API Params.');
    for (const b of boundNames(plan)) {
      const sym = plan.symbols[b]!;
      add(`  Definition ${b} := Candidate.${sym}.`, b);
      const contract = contractOf(spec, b);
      if (contract) add(`  Definition ${contract} := Candidate.${sym}_spec.`, b);
    }
    add('End Represented.');
    add('Module Bound := ReprAdapter Params Represented.');
  }
  add('Module Client := ExpectedClient Params Bound.');
  add('Module ModelCheck := ModelImpl Params.');
  for (const b of BINDINGS) {
    for (const t of spec.bindings[b]!.client)
      add(`Redirect "/work/assumptions/${assumptionId('client', t)}" Print Assumptions Client.${t}.`, b);
  }
  for (const c of spec.package_claims) {
    for (const t of c.theorems)
      add(`Redirect "/work/assumptions/${assumptionId('package', t)}" Print Assumptions ${t}.`);
  }
  add('Require Extraction.');
  add('Require Import ExtrOcamlBasic ExtrOcamlNatInt.');
  add('Extraction "/work/build/ledger.ml" Params Bound.');
  return { text: `${out.join('\n')}\n`, lines };
}

/* ------------------------------------------------------------------ the profile */

export const coqProfile: Profile = {
  id: COQ_PROFILE_ID,
  method: METHOD,
  assurance: 'kernel_proof',
  contracts: [CONTRACT],

  async checker(sandbox: Sandbox | undefined, _env): Promise<CheckerPlan> {
    if (!sandbox)
      return {
        toolPaths: COQ_TOOL_PATHS,
        missing: [`worker image ${COQ_WORKER_IMAGE} not checked: no container engine`],
      };
    try {
      const image = await sandbox.imageId(COQ_WORKER_IMAGE);
      if (!image)
        return {
          toolPaths: COQ_TOOL_PATHS,
          missing: [
            `worker image ${COQ_WORKER_IMAGE} is not installed in the container engine (${sandbox.socket}): build it from vkit's repository with \`npm run setup:system\` (\`vkit doctor\` says what this machine lacks)`,
          ],
        };
      return { image, toolPaths: COQ_TOOL_PATHS, missing: [] };
    } catch (error) {
      return {
        toolPaths: COQ_TOOL_PATHS,
        missing: [`worker image ${COQ_WORKER_IMAGE} could not be looked up: ${(error as Error).message}`],
      };
    }
  },

  async run(ctx: ProfileContext): Promise<FormalOutcome> {
    const plan = await coqProfile.checker(ctx.sandbox, ctx.env);
    let spec: CoqObligationSpec;
    try {
      spec = readObligationSpec(ctx.pkg.dir);
    } catch (error) {
      return blocked(
        `the package's Coq obligation list is unreadable: ${(error as Error).message}`,
        baseSections(ctx, undefined, null, []),
      );
    }
    if (plan.missing.length || !plan.image)
      return blocked(
        `Coq checker unavailable: ${plan.missing.join('; ') || 'no worker image'}`,
        baseSections(ctx, spec, null, plan.missing),
      );
    const component = planComponent(ctx.component);
    if ('problems' in component)
      return blocked(
        `component cannot be checked by ${COQ_PROFILE_ID}: ${component.problems.join('; ')}`,
        baseSections(ctx, spec, plan.image, component.problems),
      );
    const scratch = mkdtempSync(join(tmpdir(), 'vkit-coq-'));
    try {
      return await runProcedure(ctx, plan.image, component.plan, spec, scratch);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

type StepName = 'package' | 'candidate' | 'driver' | 'compile' | 'observe';

interface Steps {
  run(step: StepName, argv: string[], binds: Bind[], workdir: string): Promise<ContainerResult>;
  logs: string[];
}

async function runProcedure(
  ctx: ProfileContext,
  image: string,
  plan: CoqComponentPlan,
  spec: CoqObligationSpec,
  scratch: string,
): Promise<FormalOutcome> {
  const sections = baseSections(ctx, spec, image, []);
  const artifacts: string[] = [];
  const dirs = ['cand', 'check', 'assumptions', 'build', 'tmp'];
  // Host-made and world-writable, so files the container (uid 65534) writes can be removed by us.
  for (const d of ['', ...dirs]) {
    mkdirSync(join(scratch, d), { recursive: true });
    chmodSync(join(scratch, d), 0o777);
  }
  const tmp: Bind = { host: join(scratch, 'tmp'), container: '/work/tmp', readOnly: false };
  const steps = stepRunner(ctx, image);
  // The candidate is scanned first: constructs that change what the checker or extraction does are
  // never run; proof escapes are reported after the run (Print Assumptions must agree).
  const entryBytes = readFileSync(join(ctx.source, plan.entry));
  const entryText = entryBytes.toString('utf8');
  const forbidden = scanCandidate(entryText);
  for (const f of forbidden)
    sections.diagnostics.push({
      severity: 'error',
      message: `\`${f.token}\` ${f.reason}`,
      file: plan.entry,
      ...indexToLineColumn(entryText, f.index),
    });
  const subvert = forbidden.find((f) => f.kind === 'subvert');
  if (subvert)
    return blocked(
      `the candidate uses \`${subvert.token}\` (${subvert.reason}) at ${where(plan.entry, entryText, subvert.index)}; it is not run`,
      sections,
    );

  // 1. The package, freshly: once per job when the job's runs share their work (a qualification's
  // candidates), bound read-only into every later step either way.
  const pkgBuild = ctx.shared
    ? await ctx.shared.once(`coq package ${ctx.pkg.id} ${ctx.pkg.sha256} in ${image}`, (dir) =>
        compilePackage(ctx, image, dir),
      )
    : await compilePackage(ctx, image, join(scratch, 'package'));
  if (ctx.shared) steps.logs.push("== (the package step below ran once for this job's runs)");
  steps.logs.push(...pkgBuild.log);
  const at = (d: string, readOnly: boolean): Bind => ({
    host: d === 'pkg' ? pkgBuild.vo : join(scratch, d),
    container: `/work/${d}`,
    readOnly,
  });
  const pkgRun = pkgBuild.run;
  const stop = stepFailure(pkgRun, 'package');
  const [coqVersion, ocamlVersion] = pkgRun.stdout.split('\n');
  if (coqVersion) sections.inventory.versions.coqc = coqVersion.trim();
  if (ocamlVersion) sections.inventory.versions.ocamlopt = ocamlVersion.trim();
  if (stop) return finish(blocked(`the package ${ctx.pkg.id} ${ctx.pkg.version} did not check: ${stop}`, sections));

  // 2. The candidate against the compiled package (read-only now).
  const candArgv = [
    COQC,
    '-q',
    '-no-glob',
    '-Q',
    '/work/pkg',
    'VkitLedger',
    '-Q',
    '/work/cand',
    'VkitCandidate',
    `/src/${plan.entry}`,
    '-o',
    `/work/cand/${plan.library}.vo`,
  ];
  const candRun = await steps.run(
    'candidate',
    candArgv,
    [{ host: ctx.source, container: '/src', readOnly: true }, at('pkg', true), at('cand', false), tmp],
    '/work/tmp',
  );
  const candStop = stepFailure(candRun, 'candidate');
  if (candStop) {
    // Only coqc's own rejection names a failed obligation: a step that timed out, was cancelled or
    // never started decided nothing (qualification counts a failed obligation as a detected mutant).
    const err = rejectedByChecker(candRun) ? firstCoqError(`${candRun.stderr}\n${candRun.stdout}`) : undefined;
    const located = err ? locateInEntry(err, entryBytes, plan.entry) : undefined;
    const failing = located && err ? obligationAt(err, entryBytes, plan, spec) : undefined;
    markCandidateFailure(sections, failing?.binding);
    sections.diagnostics.push({
      severity: 'error',
      message: err?.message ?? candStop,
      ...(located ? { file: plan.entry, line: located.line, column: located.column } : {}),
    });
    const named = failing
      ? `obligation \`${failing.name}\`${failing.binding ? ` (${failing.binding} contract)` : ''}`
      : 'the candidate';
    return finish(
      blocked(
        `${named} failed${located ? ` at ${plan.entry}:${located.line}:${located.column}` : ''}: ${err?.message ?? candStop}`,
        sections,
        failing?.proof ? { kind: 'obligation', name: failing.name } : undefined,
      ),
    );
  }

  // 3. The driver: functor application, the expected client, assumptions, extraction.
  const driver = renderDriver(plan, spec);
  writeFileSync(join(scratch, 'check', 'Check.v'), driver.text, { mode: 0o644 });
  const drvArgv = [
    COQC,
    '-q',
    '-no-glob',
    '-Q',
    '/work/pkg',
    'VkitLedger',
    '-Q',
    '/work/cand',
    'VkitCandidate',
    '/work/check/Check.v',
    '-o',
    '/work/check/Check.vo',
  ];
  const drvRun = await steps.run(
    'driver',
    drvArgv,
    [at('pkg', true), at('cand', true), at('check', false), at('assumptions', false), at('build', false), tmp],
    '/work/check',
  );
  keep(scratch, 'check/Check.v', ctx.out, 'driver/Check.v', artifacts);
  const drvStop = stepFailure(drvRun, 'driver');
  if (drvStop) {
    const err = rejectedByChecker(drvRun) ? firstCoqError(`${drvRun.stderr}\n${drvRun.stdout}`) : undefined;
    const field = err ? mismatchedField(err.message) : undefined;
    const api = moduleType(plan);
    const binding = field
      ? boundNames(plan).find((b) => b === field.field || contractOf(spec, b) === field.field)
      : err
        ? driver.lines[err.line]
        : undefined;
    const contract = binding ? contractOf(spec, binding) : undefined;
    const isContract = field !== undefined && binding !== undefined && contract === field.field;
    const obligationName = binding
      ? (isContract || !field) && contract
        ? `${binding} contract (${api}.${contract})`
        : `${binding} (${api}.${binding})`
      : 'the expected client';
    markCandidateFailure(sections, binding);
    // The candidate's own declaration is where the author must look.
    const symbol = binding ? (isContract ? `${plan.symbols[binding]}_spec` : plan.symbols[binding]!) : undefined;
    const idx = symbol ? declarationIndex(entryText, symbol) : undefined;
    const loc = idx !== undefined ? indexToLineColumn(entryText, idx) : undefined;
    sections.diagnostics.push({
      severity: 'error',
      message: `${obligationName}: ${err?.message ?? drvStop}`,
      ...(loc ? { file: plan.entry, ...loc } : {}),
    });
    return finish(
      blocked(
        `obligation ${obligationName} failed${loc ? ` at ${plan.entry}:${loc.line}:${loc.column}` : ''}: ${err?.message ?? drvStop}`,
        sections,
        binding ? { kind: 'obligation', name: obligationName } : undefined,
      ),
    );
  }

  // Assumptions: every client theorem and package claim must be closed, or rely only on accepted axioms.
  const accepted = new Set(ctx.pkg.acceptedAxioms[COQ_PROFILE_ID] ?? []);
  const reported = new Set<string>();
  const trustProblems: string[] = [];
  for (const item of sections.obligations.items) {
    const [kind, theorem] = item.id.split(':') as ['contract' | 'client' | 'package', string];
    if (kind === 'contract') {
      item.status = 'proved'; // the module typing of Bound succeeded (its proofs are audited through the client)
      continue;
    }
    const file = join(scratch, 'assumptions', `${assumptionId(kind, theorem)}.out`);
    const text = readRegular(file);
    keep(
      scratch,
      `assumptions/${assumptionId(kind, theorem)}.out`,
      ctx.out,
      `assumptions/${assumptionId(kind, theorem)}.out`,
      artifacts,
    );
    if (text === undefined) {
      item.status = 'unknown';
      trustProblems.push(`no assumptions reported for ${theorem}`);
      continue;
    }
    const a = parseAssumptions(text);
    for (const ax of a.axioms) reported.add(ax);
    const unaccepted = a.axioms.filter((x) => !accepted.has(x));
    if (a.unparsed || a.otherGroups.length || unaccepted.length) {
      item.status = 'unknown';
      trustProblems.push(
        `${theorem} relies on ${[...unaccepted, ...a.otherGroups].join(', ') || 'an assumption report vkit cannot read'}`,
      );
    } else item.status = 'proved';
  }
  sections.provenance.logical_trust.engine_reported_axioms = [...reported].sort();
  sections.provenance.logical_trust.accepted_policy_assumptions = [...reported].filter((x) => accepted.has(x)).sort();
  countObligations(sections);

  // 4 and 5. Compile the extracted candidate with the fixed driver and observe.
  copyFileSync(join(ctx.pkg.dir, 'coq', 'observe.ml'), join(scratch, 'build', 'observe.ml'));
  chmodSync(join(scratch, 'build', 'observe.ml'), 0o644);
  const compileArgv = [OCAMLOPT, '-w', '-a', 'ledger.mli', 'ledger.ml', 'observe.ml', '-o', 'observe'];
  const compRun = await steps.run('compile', compileArgv, [at('build', false), tmp], '/work/build');
  for (const f of ['ledger.ml', 'ledger.mli', 'observe.ml'])
    keep(scratch, `build/${f}`, ctx.out, `build/${f}`, artifacts);
  const compilation: NonNullable<FormalSections['compilation']> = {
    sources: { [plan.entry]: sha(entryBytes), ...hashes(scratch, ['build/ledger.ml', 'build/ledger.mli']) },
    driver: hashes(scratch, ['check/Check.v', 'build/observe.ml']),
    artifacts: {},
    arguments: [candArgv.join(' '), drvArgv.join(' '), compileArgv.join(' '), '/work/build/observe'],
    observations: [],
    trusts: [
      'Coq extraction to OCaml (with ExtrOcamlNatInt: nat as native int, sound for the values below 2^32 used here)',
      'the OCaml native compiler ocamlopt, the assembler and the linker of the worker image',
    ],
  };
  sections.compilation = compilation;
  const compStop = stepFailure(compRun, 'compile');
  if (compStop) return finish(blocked(`the extracted candidate did not compile: ${compStop}`, sections));
  keep(scratch, 'build/observe', ctx.out, 'build/observe', artifacts);
  compilation.artifacts = hashes(scratch, ['build/observe']);
  const obsRun = await steps.run('observe', ['/work/build/observe'], [at('build', true)], '/work/build');
  compilation.observations = parseObservationLines(obsRun.stdout);
  const obsStop = stepFailure(obsRun, 'observe');
  if (obsStop) return finish(blocked(`the observations did not run to the end: ${obsStop}`, sections));
  const wrong = compilation.observations.filter((o) => !o.pass);
  if (compilation.observations.length === 0)
    return finish(blocked('the observation driver reported nothing', sections));
  if (wrong.length)
    return finish(
      blocked(
        `compiled observations disagree with the contract: ${wrong.map((o) => `${o.name} expected \`${o.expected}\`, observed \`${o.observed}\``).join('; ')}`,
        sections,
        { kind: 'observation', name: wrong.map((o) => o.name).join(', ') },
      ),
    );

  const escapes = forbidden.filter((f) => f.kind === 'escape');
  if (escapes.length)
    return finish(
      blocked(
        `the candidate leaves proofs unchecked: \`${escapes[0]!.token}\` at ${where(plan.entry, entryText, escapes[0]!.index)}${trustProblems.length ? `; ${trustProblems.join('; ')}` : ''}`,
        sections,
      ),
    );
  if (trustProblems.length)
    return finish(blocked(`assumptions outside the package's accepted list: ${trustProblems.join('; ')}`, sections));
  if (sections.obligations.proved !== sections.obligations.total)
    return finish(blocked('not every obligation was proved', sections));
  for (const c of sections.coverage.bindings) c.established = true;
  for (const c of sections.coverage.package_claims) if (c.note === undefined) c.established = true;
  return finish({
    outcome: 'PASS',
    claim: 'established',
    reason: `coqc checked ${sections.obligations.total} obligations closed under the accepted axioms; ${compilation.observations.length} observations as expected`,
    assurance: 'kernel_proof',
    method: METHOD,
    sections,
    artifacts,
  });

  function finish(outcome: FormalOutcome): FormalOutcome {
    mkdirSync(join(ctx.out, 'logs'), { recursive: true });
    writeFileSync(join(ctx.out, 'logs', 'steps.log'), steps.logs.join('\n'));
    return { ...outcome, artifacts: [...new Set([...artifacts, 'logs/steps.log'])].sort() };
  }
}

/**
 * The package's Coq files compiled by coqc in the worker image: the .vo files in `<dir>/vo`, the
 * step's result, and its log lines.
 */
async function compilePackage(
  ctx: ProfileContext,
  image: string,
  dir: string,
): Promise<{ vo: string; run: ContainerResult; log: string[] }> {
  const vo = join(dir, 'vo');
  const tmp = join(dir, 'tmp');
  // Host-made and world-writable, so files the container (uid 65534) writes can be removed by us.
  for (const d of [dir, vo, tmp]) {
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o777);
  }
  const versions = 'coqc --version | head -1; ocamlopt -version';
  const script = [
    'set -e',
    versions,
    ...PACKAGE_FILES.map((f) => `${COQC} -q -no-glob -Q /work/pkg VkitLedger /pkg/coq/${f}.v -o /work/pkg/${f}.vo`),
  ].join('\n');
  const steps = stepRunner(ctx, image);
  const run = await steps.run(
    'package',
    ['/bin/sh', '-c', script],
    [
      { host: ctx.pkg.dir, container: '/pkg', readOnly: true },
      { host: vo, container: '/work/pkg', readOnly: false },
      { host: tmp, container: '/work/tmp', readOnly: false },
    ],
    '/work/tmp',
  );
  return { vo, run, log: steps.logs };
}

function stepRunner(ctx: ProfileContext, image: string): Steps {
  const logs: string[] = [];
  return {
    logs,
    async run(step, argv, binds, workdir) {
      const result = await ctx.sandbox.run({
        image,
        argv,
        binds,
        workdir,
        env: { TMPDIR: '/work/tmp', HOME: '/work/tmp', LANG: 'C.UTF-8' },
        timeoutMs: STEP_TIMEOUT_MS,
        signal: ctx.signal,
        name: `${ctx.containerPrefix}-${step}`,
      });
      logs.push(
        `== ${step}: ${argv.join(' ')}`,
        `exit ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}${result.cancelled ? ' (cancelled)' : ''}${result.startError ? ` (not started: ${result.startError})` : ''}`,
        '-- stdout',
        result.stdout,
        '-- stderr',
        result.stderr,
      );
      return result;
    },
  };
}

/** Why a step did not succeed, or undefined when it exited 0. */
/** The step ran to its end and the checker said no (as opposed to a timeout, a cancel or a start failure). */
function rejectedByChecker(r: ContainerResult): boolean {
  return !r.startError && !r.cancelled && !r.timedOut && r.exitCode !== 0;
}

function stepFailure(r: ContainerResult, step: StepName): string | undefined {
  if (r.startError) return `the ${step} container did not start: ${r.startError}`;
  if (r.cancelled) return `cancelled during the ${step} step`;
  if (r.timedOut) return `the ${step} step timed out`;
  if (r.exitCode !== 0)
    return `the ${step} step exited ${r.exitCode}: ${(r.stderr || r.stdout).trim().split('\n').slice(-6).join(' ').slice(0, 600)}`;
  return undefined;
}

function locateInEntry(err: CoqError, bytes: Buffer, entry: string) {
  if (!err.file.endsWith(`/src/${entry}`) && err.file !== `/src/${entry}`) return undefined;
  return coqLocation(bytes, err.line, err.startByte);
}

/** The candidate declaration (lemma, definition) enclosing a located error, and its binding. */
function obligationAt(
  err: CoqError,
  bytes: Buffer,
  plan: CoqComponentPlan,
  spec: CoqObligationSpec,
): { name: string; binding?: string; proof: boolean } | undefined {
  const start = lineStart(bytes, err.line);
  if (start === undefined) return undefined;
  // The error's place as a string index: decode the bytes before it.
  const index = bytes.subarray(0, Math.min(bytes.length, start + err.startByte)).toString('utf8').length;
  const code = blankCommentsAndStrings(bytes.toString('utf8')).slice(0, index);
  let name: string | undefined;
  let keyword: string | undefined;
  for (const m of code.matchAll(
    /\b(Lemma|Theorem|Definition|Fact|Remark|Corollary|Proposition|Example|Fixpoint)\s+([A-Za-z_][A-Za-z0-9_']*)/g,
  )) {
    keyword = m[1];
    name = m[2];
  }
  if (!name) return undefined;
  const binding = boundNames(plan).find(
    (b) => (contractOf(spec, b) && `${plan.symbols[b]}_spec` === name) || plan.symbols[b] === name,
  );
  const contract = binding ? contractOf(spec, binding) : undefined;
  const isContract = binding !== undefined && contract !== undefined && `${plan.symbols[binding]}_spec` === name;
  return {
    name: isContract ? `${name} (${moduleType(plan)}.${contract})` : name,
    binding,
    // A statement with a proof, as opposed to a definition that does not typecheck.
    proof: keyword !== 'Definition' && keyword !== 'Fixpoint',
  };
}

/** After a failed candidate or driver step: the named binding's contract failed, the rest is unknown. */
function markCandidateFailure(sections: FormalSections, binding: string | undefined): void {
  for (const item of sections.obligations.items) {
    if (item.id.startsWith('package:')) continue;
    item.status = item.id.startsWith('contract:') && item.binding === binding ? 'failed' : 'unknown';
  }
  countObligations(sections);
}

function countObligations(sections: FormalSections): void {
  const items = sections.obligations.items;
  sections.obligations.total = items.length;
  sections.obligations.proved = items.filter((i) => i.status === 'proved').length;
  sections.obligations.failed = items.filter((i) => i.status === 'failed').length;
  sections.obligations.unknown = items.filter((i) => i.status === 'unknown').length;
}

function where(entry: string, text: string, index: number): string {
  const { line, column } = indexToLineColumn(text, index);
  return `${entry}:${line}:${column}`;
}

function sha(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A regular file's text (never through a link the container may have planted), or undefined. */
function readRegular(path: string): string | undefined {
  try {
    return lstatSync(path).isFile() ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function hashes(scratch: string, rels: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of rels) {
    const p = join(scratch, rel);
    if (existsSync(p) && lstatSync(p).isFile()) out[rel] = sha(readFileSync(p));
  }
  return out;
}

/** Copies a regular file from the scratch directory into the retained output (links are skipped). */
function keep(scratch: string, rel: string, out: string, as: string, artifacts: string[]): void {
  const from = join(scratch, rel);
  if (!existsSync(from) || !lstatSync(from).isFile()) return;
  const to = join(out, as);
  mkdirSync(join(to, '..'), { recursive: true });
  copyFileSync(from, to);
  artifacts.push(as);
}

/* ------------------------------------------------------------------ sections */

function baseSections(
  ctx: ProfileContext,
  spec: CoqObligationSpec | undefined,
  image: string | null,
  notes: string[],
): FormalSections {
  const items: Obligation[] = [];
  const behaviours: Record<string, string[]> = {};
  const representation = ctx.component.representation;
  const api = moduleType(ctx.component);
  if (representation !== undefined && spec)
    items.push({
      id: `contract:${CONVERSION_CONTRACT}`,
      binding: 'of_ledger',
      status: 'unknown',
      description: `the candidate's of_ledger proves ${api}.${CONVERSION_CONTRACT} exactly (module typing): viewing the state built from a ledger gives the ledger back`,
    });
  for (const b of BINDINGS) {
    const s = spec?.bindings[b];
    if (!s) continue;
    items.push({
      id: `contract:${s.contract}`,
      binding: b,
      status: 'unknown',
      description: `the candidate's ${b} proves ${api}.${s.contract} exactly (module typing)${representation === undefined ? '' : ', through the view'}`,
    });
    for (const t of s.client)
      items.push({ id: `client:${t}`, binding: b, status: 'unknown', description: `expected client theorem ${t}` });
    behaviours[b] = s.client;
  }
  for (const c of spec?.package_claims ?? [])
    for (const t of c.theorems)
      items.push({ id: `package:${t}`, status: 'unknown', description: `package claim: ${c.claim}` });
  const sections: FormalSections = {
    obligations: {
      total: spec ? items.length : null,
      proved: 0,
      failed: 0,
      unknown: spec ? items.length : null,
      items,
    },
    scope: {
      contract: CONTRACT,
      package: `${ctx.pkg.id}@${ctx.pkg.version} ${ctx.pkg.sha256}`,
      profile: COQ_PROFILE_ID,
      parameters: ctx.component.parameters,
      notes: [
        'source verification in Coq: the bound functions of the candidate against the owned model (naturals below 2^32 for u32)',
        'not a source-to-binary theorem: the compiled observations are empirical',
        ...(representation === undefined
          ? []
          : [
              `representation \`${representation}\`: the candidate's state is its own type, checked against LEDGER_REPR_API through its view and adapted to LEDGER_API (ReprAdapter) for the expected client and the observations`,
            ]),
        ...notes,
      ],
    },
    inventory: { image, tool_tree: null, versions: {} },
    coverage: {
      bindings: boundNames(ctx.component).map((b) => ({
        binding: b,
        symbol: ctx.component.bindings[b] ?? '(unbound)',
        established: false,
        behaviours: behaviours[b] ?? [],
      })),
      package_claims: [
        ...(spec?.package_claims ?? []).map((c) => ({ claim: c.claim, established: false })),
        ...(spec?.not_established ?? []).map((c) => ({ claim: c.claim, established: false, note: c.note })),
      ],
      unclaimed: [
        'definitions and exports of the candidate beyond the six bindings',
        'surrounding application code',
        'the compiled executable beyond the fixed observations',
      ],
    },
    provenance: {
      method: METHOD,
      logical_trust: {
        engine_reported_axioms: [],
        accepted_policy_assumptions: [],
        unchecked_dependencies: [],
        unreported: [
          'the soundness of coqc and its kernel themselves (trusted; Print Assumptions audits axioms, not the checker)',
        ],
      },
      notes: ['Print Assumptions ran on every expected-client theorem and package claim'],
    },
    compilation: null,
    diagnostics: [],
  };
  return sections;
}

function blocked(reason: string, sections: FormalSections, rejectedBy?: Rejection): FormalOutcome {
  return {
    outcome: 'BLOCKED',
    claim: 'unknown',
    reason,
    assurance: 'kernel_proof',
    method: METHOD,
    sections,
    artifacts: [],
    ...(rejectedBy ? { rejectedBy } : {}),
  };
}
