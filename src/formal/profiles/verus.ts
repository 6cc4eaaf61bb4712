/**
 * The `verus-linux-x86_64-v1` profile (vkit-reference.md, the Verus paragraphs): the owned library, the
 * candidate and the unchanged expected client checked by the pinned official Verus in a restricted
 * container, then the fixed observations through a retained executable.
 *
 * Verus cannot be downloaded on the machines this was written on, and its pins carry no digests
 * (`src/formal/packages/resource-ledger/verus/pins.json`), so `checker()` always names missing assets
 * here and `run()` refuses: BLOCKED, claim unknown, each missing asset named. There is no stand-in
 * `verus`: the procedure below only ever runs the configured official tree inside the configured image.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { loadPackage } from '../packages.js';
import type {
  CheckerPlan,
  FormalOutcome,
  FormalSections,
  Profile,
  ProfileContext,
  Rejection,
  Sandbox,
} from '../types.js';
import {
  DEFAULT_LAYOUT,
  argvProblems,
  boundModule,
  failingFunctions,
  judgeStep,
  obligationsOf,
  parseDiagnostics,
  parseObservations,
  parseVerusReport,
  procedure,
  type Observation,
  type StepVerdict,
} from '../../checkers/verus.js';

export const VERUS_PROFILE_ID = 'verus-linux-x86_64-v1';
const CONTRACT = 'ledger.source.v1';
const METHOD = 'verus_source';
const BINDINGS = ['new', 'reserve', 'release', 'reserve_batch', 'apply_command', 'run_commands'] as const;
const PACKAGE_CLAIMS = ['transfer (atomic two-ledger model)', 'SharedLedger (vstd write lock)'] as const;

/** The fixed observations the driver must report, one per binding and rejection branch at least. */
export const OBSERVATIONS = [
  'new.clears_slots',
  'reserve.zero_amount',
  'reserve.ok',
  'reserve.duplicate_id',
  'reserve.over_capacity',
  'reserve.ok_second',
  'reserve.full',
  'reserve.order_duplicate_before_full',
  'release.not_found',
  'release.not_owner',
  'release.ok',
  'release.usage_after',
  'reserve_batch.too_many',
  'reserve_batch.first_failing_index',
  'reserve_batch.rollback',
  'reserve_batch.commit',
  'apply_command.reserve',
  'apply_command.release',
  'run_commands.trace',
  'run_commands.empty_preserves',
] as const;

const NEVER_CHECKED =
  "the package's Verus sources have never been checked on the machine that wrote them (no Verus there); see src/formal/packages/resource-ledger/verus/README.md";
const FULL_IMAGE_ID = /^sha256:[0-9a-f]{64}$/;

/** Tool paths inside the worker image that make up the checker (the OS part: loader, libc, linker). */
const IMAGE_TOOL_PATHS = ['/usr/bin', '/usr/lib', '/lib', '/lib64'];

export interface VerusPin {
  asset: string;
  version: string;
  what: string;
  sha256: string | null;
}

/**
 * Reads the pins (by default the installed vkit.resource-ledger 0.1.0's, located like every package);
 * anything unexpected is reported as a missing asset by the caller (fail closed).
 */
export function readPins(file?: string): { pins: VerusPin[] } | { error: string } {
  if (file === undefined) {
    try {
      file = join(loadPackage('vkit.resource-ledger', '0.1.0').dir, 'verus', 'pins.json');
    } catch (e) {
      return { error: `Verus pins unavailable: ${(e as Error).message}` };
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return { error: `Verus pins file unreadable (${file}): ${(e as Error).message}` };
  }
  const pins = (raw as { pins?: unknown }).pins;
  if (!Array.isArray(pins) || pins.length === 0) return { error: `Verus pins file ${file} has no \`pins\` list` };
  const out: VerusPin[] = [];
  for (const p of pins as Record<string, unknown>[]) {
    if (typeof p?.asset !== 'string' || typeof p.version !== 'string' || typeof p.what !== 'string')
      return { error: `Verus pins file ${file}: a pin lacks asset/version/what` };
    if (p.sha256 !== null && !(typeof p.sha256 === 'string' && /^sha256:[0-9a-f]{64}$/.test(p.sha256)))
      return { error: `Verus pins file ${file}: pin \`${p.asset}\` has a malformed sha256` };
    out.push({ asset: p.asset, version: p.version, what: p.what, sha256: p.sha256 as string | null });
  }
  return { pins: out };
}

async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return `sha256:${h.digest('hex')}`;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The missing or unusable assets, each one named entry. Pure except for reading the host paths the
 * environment names, asking the sandbox whether the image is installed, and hashing the archive when
 * its pin has a digest. Never throws.
 */
export async function verusMissing(
  sandbox: Sandbox | undefined,
  env: Record<string, string | undefined>,
  pinsResult: ReturnType<typeof readPins> = readPins(),
  platform: { os: string; arch: string } = { os: process.platform, arch: process.arch },
): Promise<{ missing: string[]; image?: string }> {
  const missing: string[] = [];
  let image: string | undefined;
  if (platform.os !== 'linux' || platform.arch !== 'x64')
    missing.push(`this profile requires Linux x86_64, this host is ${platform.os}/${platform.arch}`);

  const imageRef = env.VKIT_VERUS_IMAGE?.trim();
  if (!imageRef)
    missing.push('VKIT_VERUS_IMAGE not set: give the full `sha256:` id of the installed Verus worker image');
  else if (!FULL_IMAGE_ID.test(imageRef))
    missing.push(`VKIT_VERUS_IMAGE must be a full \`sha256:<64 hex>\` image id (a tag can move), got \`${imageRef}\``);
  else if (!sandbox) missing.push(`VKIT_VERUS_IMAGE ${imageRef} not checked: no container engine answering`);
  else {
    try {
      const id = await sandbox.imageId(imageRef);
      if (id === undefined)
        missing.push(`VKIT_VERUS_IMAGE ${imageRef} is not installed in the container engine (${sandbox.socket})`);
      else if (id !== imageRef) missing.push(`VKIT_VERUS_IMAGE ${imageRef} changed: the engine resolves it to ${id}`);
      else image = id;
    } catch (e) {
      missing.push(`VKIT_VERUS_IMAGE ${imageRef} not checked: the container engine failed (${(e as Error).message})`);
    }
  }

  const archive = env.VKIT_VERUS_ARCHIVE?.trim();
  if (!archive)
    missing.push('VKIT_VERUS_ARCHIVE not set: give the absolute path of the official Verus release archive');
  else if (!isAbsolute(archive) || !isFile(archive))
    missing.push(`VKIT_VERUS_ARCHIVE ${archive} is not an absolute path to an existing file`);

  const root = env.VKIT_VERUS_ROOT?.trim();
  if (!root) missing.push('VKIT_VERUS_ROOT not set: give the absolute path of the expanded official Verus release');
  else if (!isAbsolute(root) || !isDir(root))
    missing.push(`VKIT_VERUS_ROOT ${root} is not an absolute path to an existing directory`);
  else if (!isFile(join(root, 'verus'))) missing.push(`VKIT_VERUS_ROOT ${root} holds no \`verus\` program`);

  for (const name of ['VKIT_RUSTUP_HOME', 'VKIT_CARGO_HOME'] as const) {
    const dir = env[name]?.trim();
    if (!dir)
      missing.push(
        `${name} not set: give the absolute path of the ${name === 'VKIT_RUSTUP_HOME' ? 'rustup home holding the pinned toolchain' : 'cargo home'}`,
      );
    else if (!isAbsolute(dir) || !isDir(dir))
      missing.push(`${name} ${dir} is not an absolute path to an existing directory`);
  }

  if ('error' in pinsResult) missing.push(pinsResult.error);
  else {
    for (const pin of pinsResult.pins) {
      if (pin.sha256 === null) {
        missing.push(`pin digest not recorded: ${pin.asset} ${pin.version} (${pin.what})`);
        continue;
      }
      // Only the archive can be compared cheaply here; trees are compared by the worker before checking.
      if (pin.asset === 'verus' && archive && isFile(archive)) {
        try {
          const actual = await fileSha256(archive);
          if (actual !== pin.sha256)
            missing.push(`VKIT_VERUS_ARCHIVE ${archive} changed: ${actual}, pinned ${pin.sha256}`);
        } catch (e) {
          missing.push(`VKIT_VERUS_ARCHIVE ${archive} unreadable: ${(e as Error).message}`);
        }
      }
    }
  }
  return image === undefined ? { missing } : { missing, image };
}

/** Sections for a result that says nothing established: null denominators, every binding unestablished. */
export function emptySections(
  ctx: Pick<ProfileContext, 'component' | 'pkg'> | undefined,
  notes: string[],
  image: string | null,
): FormalSections {
  const bindings = ctx?.component.bindings ?? {};
  return {
    obligations: { total: null, proved: 0, failed: 0, unknown: null, items: [] },
    scope: {
      contract: CONTRACT,
      package: ctx ? `${ctx.pkg.id}@${ctx.pkg.version} ${ctx.pkg.sha256}` : 'vkit.resource-ledger',
      profile: VERUS_PROFILE_ID,
      parameters: ctx?.component.parameters ?? {},
      notes,
    },
    inventory: { image, tool_tree: null, versions: {} },
    coverage: {
      bindings: BINDINGS.map((b) => ({
        binding: b,
        symbol: bindings[b] ?? '(unbound)',
        established: false,
        behaviours: [],
      })),
      package_claims: PACKAGE_CLAIMS.map((claim) => ({
        claim,
        established: false,
        note: 'not checked: Verus did not run',
      })),
      unclaimed: ['extra exports and surrounding application code of the candidate'],
    },
    provenance: {
      method: METHOD,
      logical_trust: {
        engine_reported_axioms: [],
        accepted_policy_assumptions: [],
        unchecked_dependencies: ['Verus', 'Rust', 'vstd', 'Z3 (SMT solving)'],
        unreported: [
          'Verus does not report a complete axiom audit; its trusted engine dependencies are recorded instead',
        ],
      },
      notes: [NEVER_CHECKED],
    },
    compilation: null,
    diagnostics: [],
  };
}

function blocked(reason: string, sections: FormalSections, rejectedBy?: Rejection): FormalOutcome {
  return {
    outcome: 'BLOCKED',
    claim: 'unknown',
    reason,
    assurance: 'trusted_engine',
    method: METHOD,
    sections,
    artifacts: [],
    ...(rejectedBy ? { rejectedBy } : {}),
  };
}

/**
 * Whether Verus itself rejected the candidate at this step: complete verification errors (no VIR
 * error, the entire crate) in the candidate's own crate or in the expected client checked against
 * it. The owned library failing, a partial run, a tool error, a timeout: none of them is the
 * candidate's rejection (package qualification counts only this as a detected mutant).
 */
export function rejectionAt(step: string, verdict: StepVerdict, failing: readonly string[]): Rejection | undefined {
  if (verdict.verdict !== 'failed' || (step !== 'candidate' && step !== 'client')) return undefined;
  return { kind: 'obligation', name: failing.length ? failing.map((f) => `${step}:${f}`).join(', ') : step };
}

export const verusProfile: Profile = {
  id: VERUS_PROFILE_ID,
  method: METHOD,
  assurance: 'trusted_engine',
  contracts: [CONTRACT],

  async checker(sandbox, env): Promise<CheckerPlan> {
    try {
      const { missing, image } = await verusMissing(sandbox, env);
      return image === undefined
        ? { toolPaths: IMAGE_TOOL_PATHS, missing }
        : { image, toolPaths: IMAGE_TOOL_PATHS, missing };
    } catch (e) {
      return { toolPaths: IMAGE_TOOL_PATHS, missing: [`Verus checker could not be resolved: ${(e as Error).message}`] };
    }
  },

  async run(ctx: ProfileContext): Promise<FormalOutcome> {
    const plan = await verusProfile.checker(ctx.sandbox, ctx.env);
    if (plan.missing.length > 0 || plan.image === undefined) {
      const missing = plan.missing.length > 0 ? plan.missing : ['no Verus worker image resolved'];
      return blocked(
        `Verus checker unavailable: ${missing.join('; ')}`,
        emptySections(ctx, missing, plan.image ?? null),
      );
    }
    return runProcedure(ctx, plan.image);
  },
};

/**
 * The procedure itself, reached only when every asset is present and pinned (never on the machines
 * this was written on). Each step must verify before the next runs; any other result is BLOCKED with
 * the claim unknown (a failed Verus obligation included, as the reference says).
 */
async function runProcedure(ctx: ProfileContext, image: string): Promise<FormalOutcome> {
  const notes: string[] = [];
  const sections = emptySections(ctx, notes, image);
  const verusRoot = ctx.env.VKIT_VERUS_ROOT!;
  const pkgVerus = join(ctx.pkg.dir, 'verus');
  let bound: string;
  try {
    bound = boundModule(BINDINGS, ctx.component.bindings);
  } catch (e) {
    return blocked(`bindings unusable: ${(e as Error).message}`, sections);
  }
  // The client and driver are copied unchanged; the generated bound.rs sits beside them.
  const clientDir = join(ctx.out, 'client');
  mkdirSync(clientDir, { recursive: true });
  for (const f of ['client.rs', 'observe.rs'])
    writeFileSync(join(clientDir, f), readFileSync(join(pkgVerus, 'client', f)));
  writeFileSync(join(clientDir, 'bound.rs'), bound);

  const L = DEFAULT_LAYOUT;
  const binds = [
    { host: verusRoot, container: L.verusRoot, readOnly: true },
    { host: ctx.env.VKIT_RUSTUP_HOME!, container: '/opt/rustup', readOnly: true },
    { host: ctx.env.VKIT_CARGO_HOME!, container: '/opt/cargo', readOnly: true },
    { host: pkgVerus, container: L.packageDir, readOnly: true },
    { host: ctx.source, container: L.sourceDir, readOnly: true },
    { host: ctx.out, container: L.outDir, readOnly: false },
  ];
  const env = {
    RUSTUP_HOME: '/opt/rustup',
    CARGO_HOME: '/opt/cargo',
    TMPDIR: L.outDir,
    PATH: `${L.verusRoot}:/opt/cargo/bin:/usr/bin:/bin`,
  };
  let total = 0;
  let proved = 0;
  let observations: Observation[] = [];
  for (const step of procedure(ctx.component.source.entry, L)) {
    if (step.report) {
      const problems = argvProblems(step.argv);
      if (problems.length > 0)
        return blocked(`refusing a non-strict Verus step ${step.step}: ${problems.join('; ')}`, sections);
    }
    const res = await ctx.sandbox.run({
      image,
      argv: step.argv,
      binds,
      workdir: L.outDir,
      env,
      timeoutMs: 30 * 60_000,
      signal: ctx.signal,
      name: `${ctx.containerPrefix}-verus-${step.step}`,
    });
    if (res.startError) return blocked(`step ${step.step} did not start: ${res.startError}`, sections);
    if (res.cancelled) return blocked(`step ${step.step} cancelled`, sections);
    if (res.timedOut) return blocked(`step ${step.step} timed out`, sections);
    writeFileSync(join(ctx.out, `${step.step}.stdout`), res.stdout);
    writeFileSync(join(ctx.out, `${step.step}.stderr`), res.stderr);
    if (!step.report) {
      const parsed = parseObservations(res.stdout, OBSERVATIONS);
      if (res.exitCode !== 0 || !parsed.ok)
        return blocked(`observation run incomplete: ${parsed.ok ? `exit ${res.exitCode}` : parsed.error}`, sections);
      observations = parsed.observations;
      continue;
    }
    const report = parseVerusReport(res.stdout);
    const verdict = judgeStep(res.exitCode, report);
    const obligations = obligationsOf(report, step.step);
    sections.obligations.items.push(...obligations.items);
    sections.diagnostics.push(...parseDiagnostics(res.stderr, L.sourceDir));
    if (report.ok)
      for (const [k, v] of Object.entries(report.report.build)) sections.inventory.versions[`verus.${k}`] = v;
    if (verdict.verdict !== 'verified') {
      sections.obligations.proved = proved + obligations.proved;
      sections.obligations.failed = obligations.failed;
      const failing = report.ok ? failingFunctions(report.report) : [];
      return blocked(
        `Verus step ${step.step}: ${verdict.reason}${failing.length ? ` (failing: ${failing.join(', ')})` : ''}`,
        sections,
        rejectionAt(step.step, verdict, failing),
      );
    }
    total += obligations.total!;
    proved += obligations.proved;
  }
  sections.obligations = { ...sections.obligations, total, proved, failed: 0, unknown: 0 };
  const failedObs = observations.filter((o) => !o.pass);
  sections.compilation = {
    sources: {},
    driver: {
      'client/observe.rs': sha256(readFileSync(join(clientDir, 'observe.rs'))),
      'client/bound.rs': sha256(Buffer.from(bound)),
    },
    artifacts: existsSync(join(ctx.out, 'observe')) ? { observe: sha256(readFileSync(join(ctx.out, 'observe'))) } : {},
    arguments: procedure(ctx.component.source.entry, L).find((s) => s.step === 'compile')!.argv,
    observations: observations.map((o) => ({ name: o.name, expected: o.expected, observed: o.observed, pass: o.pass })),
    trusts: ['Verus erasure', 'rustc', 'the linker'],
  };
  if (failedObs.length > 0)
    return blocked(`observations disagree with the model: ${failedObs.map((o) => o.name).join(', ')}`, sections, {
      kind: 'observation',
      name: failedObs.map((o) => o.name).join(', '),
    });
  for (const b of sections.coverage.bindings) {
    b.established = true;
    b.behaviours = ['owned postcondition under the accepted precondition (expected client)'];
  }
  for (const c of sections.coverage.package_claims) {
    c.established = true;
    c.note = 'checked in the owned library';
  }
  return {
    outcome: 'PASS',
    claim: 'established',
    reason: `library, candidate and expected client verified (${proved} obligations); ${observations.length} observations agree`,
    assurance: 'trusted_engine',
    method: METHOD,
    sections,
    artifacts: [
      'observe',
      ...procedure(ctx.component.source.entry, L).flatMap((s) => [`${s.step}.stdout`, `${s.step}.stderr`]),
    ],
  };
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
