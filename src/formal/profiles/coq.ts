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
 *
 * This file runs the procedure; beside it are the pure plan and driver (coq-plan.ts), the receipt
 * sections (coq-sections.ts), the containers (coq-steps.ts), the scratch directory (coq-scratch.ts)
 * and the naming of a rejected step's obligation (coq-failures.ts).
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bind, CheckerPlan, FormalOutcome, FormalSections, Profile, ProfileContext, Sandbox } from '../types.js';
import {
  type ForbiddenUse,
  indexToLineColumn,
  parseAssumptions,
  parseObservationLines,
  scanCandidate,
} from '../../checkers/coq.js';
import { candidateRejection, driverRejection, where } from './coq-failures.js';
import {
  assumptionId,
  type CoqComponentPlan,
  type CoqObligationSpec,
  planComponent,
  readObligationSpec,
  renderDriver,
} from './coq-plan.js';
import { hashes, keep, makeWritableDirs, readRegular, sha } from './coq-scratch.js';
import { baseSections, blocked, COQ_CONTRACT, COQ_METHOD, COQ_PROFILE_ID, countObligations } from './coq-sections.js';
import { COQC, compilePackage, OCAMLOPT, type Steps, stepFailure, stepRunner } from './coq-steps.js';

export { assumptionId, type CoqComponentPlan, type CoqObligationSpec, planComponent, readObligationSpec, renderDriver };
export { COQ_PROFILE_ID };
export { COQC, PACKAGE_FILES, STEP_TIMEOUT_MS } from './coq-steps.js';

export const COQ_WORKER_IMAGE = 'localhost/vkit-coq-worker:1';
/** The checker is the whole /usr tree of the image: coqc, its library, OCaml, gcc, as and ld. */
export const COQ_TOOL_PATHS = ['/usr'];

/* ------------------------------------------------------------------ the profile */

export const coqProfile: Profile = {
  id: COQ_PROFILE_ID,
  method: COQ_METHOD,
  assurance: 'kernel_proof',
  contracts: [COQ_CONTRACT],

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
            `worker image ${COQ_WORKER_IMAGE} is not installed in the container engine (${sandbox.socket}): build it with \`vkit image build coq\` (as root; needs debootstrap and podman), and \`vkit doctor\` says what this machine lacks`,
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

/* ------------------------------------------------------------------ the procedure */

/** What the steps of one run share. */
interface CoqRun {
  ctx: ProfileContext;
  plan: CoqComponentPlan;
  spec: CoqObligationSpec;
  scratch: string;
  sections: FormalSections;
  /** The retained files (relative to `ctx.out`) the outcome names. */
  artifacts: string[];
  steps: Steps;
  entryBytes: Buffer;
  entryText: string;
}

/** A run whose package compiled: `at` binds a scratch directory, or `pkg` (the compiled package), at `/work/<d>`. */
interface CompiledRun extends CoqRun {
  at(d: string, readOnly: boolean): Bind;
  tmp: Bind;
}

type Compilation = NonNullable<FormalSections['compilation']>;

const SCRATCH_DIRS = ['cand', 'check', 'assumptions', 'build', 'tmp'];

async function runProcedure(
  ctx: ProfileContext,
  image: string,
  plan: CoqComponentPlan,
  spec: CoqObligationSpec,
  scratch: string,
): Promise<FormalOutcome> {
  const sections = baseSections(ctx, spec, image, []);
  makeWritableDirs(['', ...SCRATCH_DIRS].map((d) => join(scratch, d)));
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
  const run: CoqRun = { ctx, plan, spec, scratch, sections, artifacts: [], steps, entryBytes, entryText };
  const outcome = await checkAndObserve(run, image, forbidden);
  // Whatever the steps decided, their log is kept with the outcome.
  mkdirSync(join(ctx.out, 'logs'), { recursive: true });
  writeFileSync(join(ctx.out, 'logs', 'steps.log'), steps.logs.join('\n'));
  return { ...outcome, artifacts: [...new Set([...run.artifacts, 'logs/steps.log'])].sort() };
}

/** Steps 1 to 5, each run only when the one before succeeded, then the verdict. */
async function checkAndObserve(base: CoqRun, image: string, forbidden: ForbiddenUse[]): Promise<FormalOutcome> {
  const { ctx, scratch, sections, steps } = base;
  // 1. The package, freshly: once per job when the job's runs share their work (a qualification's
  // candidates), bound read-only into every later step either way.
  const pkgBuild = ctx.shared
    ? await ctx.shared.once(`coq package ${ctx.pkg.id} ${ctx.pkg.sha256} in ${image}`, (dir) =>
        compilePackage(ctx, image, dir),
      )
    : await compilePackage(ctx, image, join(scratch, 'package'));
  if (ctx.shared) steps.logs.push("== (the package step below ran once for this job's runs)");
  steps.logs.push(...pkgBuild.log);
  const run: CompiledRun = {
    ...base,
    at: (d, readOnly) => ({ host: d === 'pkg' ? pkgBuild.vo : join(scratch, d), container: `/work/${d}`, readOnly }),
    tmp: { host: join(scratch, 'tmp'), container: '/work/tmp', readOnly: false },
  };
  const pkgRun = pkgBuild.run;
  const stop = stepFailure(pkgRun, 'package');
  const [coqVersion, ocamlVersion] = pkgRun.stdout.split('\n');
  if (coqVersion) sections.inventory.versions.coqc = coqVersion.trim();
  if (ocamlVersion) sections.inventory.versions.ocamlopt = ocamlVersion.trim();
  if (stop) return blocked(`the package ${ctx.pkg.id} ${ctx.pkg.version} did not check: ${stop}`, sections);

  const candidateRejected = await checkCandidate(run);
  if (candidateRejected) return candidateRejected;
  const driverRejected = await checkDriver(run);
  if (driverRejected) return driverRejected;
  const trustProblems = auditAssumptions(run);
  const compiled = await compileAndObserve(run);
  if ('blocked' in compiled) return compiled.blocked;
  return verdict(run, forbidden, trustProblems, compiled.compilation);
}

/** coqc with the package and the candidate bound to their logical names, compiling `file` to `out`. */
function coqcArgv(file: string, out: string): string[] {
  return [
    COQC,
    '-q',
    '-no-glob',
    '-Q',
    '/work/pkg',
    'VkitLedger',
    '-Q',
    '/work/cand',
    'VkitCandidate',
    file,
    '-o',
    out,
  ];
}

function candidateArgv(plan: CoqComponentPlan): string[] {
  return coqcArgv(`/src/${plan.entry}`, `/work/cand/${plan.library}.vo`);
}

function driverArgv(): string[] {
  return coqcArgv('/work/check/Check.v', '/work/check/Check.vo');
}

function compileArgv(): string[] {
  return [OCAMLOPT, '-w', '-a', 'ledger.mli', 'ledger.ml', 'observe.ml', '-o', 'observe'];
}

/** 2. The candidate against the compiled package (read-only now): its rejection, or undefined. */
async function checkCandidate(run: CompiledRun): Promise<FormalOutcome | undefined> {
  const { ctx, plan, spec, entryBytes, entryText, sections } = run;
  const result = await run.steps.run(
    'candidate',
    candidateArgv(plan),
    [{ host: ctx.source, container: '/src', readOnly: true }, run.at('pkg', true), run.at('cand', false), run.tmp],
    '/work/tmp',
  );
  const stop = stepFailure(result, 'candidate');
  if (!stop) return undefined;
  return candidateRejection({ result, stop, plan, spec, entryBytes, entryText, sections });
}

/** 3. The driver: functor application, the expected client, assumptions, extraction. Its rejection, or undefined. */
async function checkDriver(run: CompiledRun): Promise<FormalOutcome | undefined> {
  const { ctx, plan, spec, scratch, entryBytes, entryText, sections } = run;
  const driver = renderDriver(plan, spec);
  writeFileSync(join(scratch, 'check', 'Check.v'), driver.text, { mode: 0o644 });
  const result = await run.steps.run(
    'driver',
    driverArgv(),
    [
      run.at('pkg', true),
      run.at('cand', true),
      run.at('check', false),
      run.at('assumptions', false),
      run.at('build', false),
      run.tmp,
    ],
    '/work/check',
  );
  keep(scratch, 'check/Check.v', ctx.out, 'driver/Check.v', run.artifacts);
  const stop = stepFailure(result, 'driver');
  if (!stop) return undefined;
  return driverRejection({ result, stop, plan, spec, entryBytes, entryText, sections, driverLines: driver.lines });
}

/**
 * Assumptions: every client theorem and package claim must be closed, or rely only on accepted
 * axioms. Sets each obligation's status; returns what keeps any of them from being proved.
 */
function auditAssumptions(run: CoqRun): string[] {
  const { ctx, scratch, sections } = run;
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
      run.artifacts,
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
  return trustProblems;
}

/**
 * 4 and 5. Compile the extracted candidate with the fixed driver and observe: the compilation with
 * every observation as expected, or why not.
 */
async function compileAndObserve(run: CompiledRun): Promise<{ blocked: FormalOutcome } | { compilation: Compilation }> {
  const { ctx, plan, scratch, sections, entryBytes } = run;
  copyFileSync(join(ctx.pkg.dir, 'coq', 'observe.ml'), join(scratch, 'build', 'observe.ml'));
  chmodSync(join(scratch, 'build', 'observe.ml'), 0o644);
  const compRun = await run.steps.run('compile', compileArgv(), [run.at('build', false), run.tmp], '/work/build');
  for (const f of ['ledger.ml', 'ledger.mli', 'observe.ml'])
    keep(scratch, `build/${f}`, ctx.out, `build/${f}`, run.artifacts);
  const compilation: Compilation = {
    sources: { [plan.entry]: sha(entryBytes), ...hashes(scratch, ['build/ledger.ml', 'build/ledger.mli']) },
    driver: hashes(scratch, ['check/Check.v', 'build/observe.ml']),
    artifacts: {},
    arguments: [candidateArgv(plan).join(' '), driverArgv().join(' '), compileArgv().join(' '), '/work/build/observe'],
    observations: [],
    trusts: [
      'Coq extraction to OCaml (with ExtrOcamlNatInt: nat as native int, sound for the values below 2^32 used here)',
      'the OCaml native compiler ocamlopt, the assembler and the linker of the worker image',
    ],
  };
  sections.compilation = compilation;
  const compStop = stepFailure(compRun, 'compile');
  if (compStop) return { blocked: blocked(`the extracted candidate did not compile: ${compStop}`, sections) };
  keep(scratch, 'build/observe', ctx.out, 'build/observe', run.artifacts);
  compilation.artifacts = hashes(scratch, ['build/observe']);
  const obsRun = await run.steps.run('observe', ['/work/build/observe'], [run.at('build', true)], '/work/build');
  compilation.observations = parseObservationLines(obsRun.stdout);
  const obsStop = stepFailure(obsRun, 'observe');
  if (obsStop) return { blocked: blocked(`the observations did not run to the end: ${obsStop}`, sections) };
  const wrong = compilation.observations.filter((o) => !o.pass);
  if (compilation.observations.length === 0)
    return { blocked: blocked('the observation driver reported nothing', sections) };
  if (wrong.length)
    return {
      blocked: blocked(
        `compiled observations disagree with the contract: ${wrong.map((o) => `${o.name} expected \`${o.expected}\`, observed \`${o.observed}\``).join('; ')}`,
        sections,
        { kind: 'observation', name: wrong.map((o) => o.name).join(', ') },
      ),
    };
  return { compilation };
}

/**
 * Every step succeeded: PASS only with no proof escape in the candidate, no assumption outside the
 * accepted list and every obligation proved.
 */
function verdict(
  run: CoqRun,
  forbidden: ForbiddenUse[],
  trustProblems: string[],
  compilation: Compilation,
): FormalOutcome {
  const { plan, entryText, sections } = run;
  const escapes = forbidden.filter((f) => f.kind === 'escape');
  if (escapes.length)
    return blocked(
      `the candidate leaves proofs unchecked: \`${escapes[0]!.token}\` at ${where(plan.entry, entryText, escapes[0]!.index)}${trustProblems.length ? `; ${trustProblems.join('; ')}` : ''}`,
      sections,
    );
  if (trustProblems.length)
    return blocked(`assumptions outside the package's accepted list: ${trustProblems.join('; ')}`, sections);
  if (sections.obligations.proved !== sections.obligations.total)
    return blocked('not every obligation was proved', sections);
  for (const c of sections.coverage.bindings) c.established = true;
  for (const c of sections.coverage.package_claims) if (c.note === undefined) c.established = true;
  return {
    outcome: 'PASS',
    claim: 'established',
    reason: `coqc checked ${sections.obligations.total} obligations closed under the accepted axioms; ${compilation.observations.length} observations as expected`,
    assurance: 'kernel_proof',
    method: COQ_METHOD,
    sections,
    artifacts: run.artifacts,
  };
}
