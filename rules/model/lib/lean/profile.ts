/**
 * The `lean-linux-x86_64-v1` profile: the pinned Lean toolchain in a restricted worker image builds
 * a private copy of the captured Lake project (`lake build`: the kernel checks every proof), then
 * `#print axioms` reports each required theorem's axioms (procedure.ts, output.ts). A theorem is
 * established only when the build succeeded and its axioms are all accepted (`propext`,
 * `Classical.choice`, `Quot.sound`); a failed build, `sorry` or another axiom leaves it unknown.
 * A rejected proof is never a refutation: this profile never refutes anything.
 *
 * No Lean toolchain can be downloaded on the machines this was written on, and the pin (pins.json)
 * carries no digest, so `checker()` names missing assets here and `run()` never starts a container:
 * every theorem is unknown, the item BLOCKED, the missing toolchain named.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ContainerResult, Sandbox } from '../../../../src/checkers/container.js';
import type { CheckerPlan } from '../../../../src/formal/types.js';
import {
  checkHostPath,
  checkImage,
  isFile,
  type ModelPin,
  pinnedCheckerPlan,
  pinsFile,
  platformProblem,
  readModelPins,
  treeSha256,
  unrecordedPin,
} from '../assets.js';
import type { ResolvedModel } from '../../schema.js';
import type { ModelContext, ModelOutcome, ModelProfile } from '../types.js';
import {
  judgeTheorem,
  LEAN_ACCEPTED_AXIOMS,
  leanDiagnostics,
  parseAxiomReports,
  parseLeanMessages,
  scanLeanProject,
  toolchainProblem,
} from './output.js';
import {
  axiomsFile,
  LEAN_LAYOUT,
  leanAxiomsArgv,
  leanBuildArgv,
  leanEnv,
  leanProjectRoot,
  moduleOf,
} from './procedure.js';
import { checkerUnavailable, stepLog as log, unknownProperty as unknown, unsupportedKinds } from '../results.js';

export const LEAN_PROFILE_ID = 'lean-linux-x86_64-v1';
const METHOD = 'lean_kernel_check';
const KINDS = ['theorem'] as const;
/** The image's tool tree that makes up the checker: the OS the toolchain's programs load. */
const TOOL_PATHS = ['/usr/lib', '/lib', '/lib64'];

/**
 * The missing or unusable assets, each one entry: the platform, the worker image (`VKIT_LEAN_IMAGE`,
 * a full id), the toolchain (`VKIT_LEAN_TOOLCHAIN`, a host directory holding `bin/lean` and
 * `bin/lake`), and the toolchain pin (no digest, or a tree that does not match it). Never throws.
 */
export async function leanMissing(
  sandbox: Sandbox | undefined,
  env: Record<string, string | undefined>,
  pins: ReturnType<typeof readModelPins> = readModelPins(pinsFile('lean'), LEAN_PROFILE_ID),
  platform: { os: string; arch: string } = { os: process.platform, arch: process.arch },
): Promise<{ missing: string[]; image?: string; toolchain?: string; pinned?: string }> {
  const missing: string[] = [];
  const os = platformProblem(platform);
  if (os) missing.push(os);
  const img = await checkImage(sandbox, 'VKIT_LEAN_IMAGE', env.VKIT_LEAN_IMAGE, 'Lean worker image');
  if ('missing' in img) missing.push(img.missing);
  const tc = checkHostPath(
    'VKIT_LEAN_TOOLCHAIN',
    env.VKIT_LEAN_TOOLCHAIN,
    'directory',
    'the expanded pinned Lean toolchain (holding bin/lean and bin/lake)',
  );
  if ('missing' in tc) missing.push(tc.missing);
  else
    for (const tool of ['lean', 'lake'])
      if (!isFile(join(tc.path, 'bin', tool))) missing.push(`VKIT_LEAN_TOOLCHAIN ${tc.path} holds no bin/${tool}`);
  let pinned: string | undefined;
  if ('error' in pins) missing.push(pins.error);
  else {
    const pin: ModelPin | undefined = pins.pins.find((p) => p.asset === 'lean-toolchain');
    if (!pin) missing.push('the Lean pins name no `lean-toolchain`');
    else {
      pinned = pin.version;
      if (pin.sha256 === null) missing.push(unrecordedPin(pin));
      else if ('path' in tc && !missing.length)
        try {
          const actual = await treeSha256(tc.path);
          if (actual !== pin.sha256) missing.push(`VKIT_LEAN_TOOLCHAIN ${tc.path} is ${actual}, pinned ${pin.sha256}`);
        } catch (e) {
          missing.push(`VKIT_LEAN_TOOLCHAIN ${tc.path} not compared with its pin: ${(e as Error).message}`);
        }
    }
  }
  return {
    missing,
    ...('image' in img ? { image: img.image } : {}),
    ...('path' in tc ? { toolchain: tc.path } : {}),
    ...(pinned ? { pinned } : {}),
  };
}

function baseOutcome(model: ResolvedModel): ModelOutcome {
  return {
    properties: [],
    versions: {},
    diagnostics: unsupportedKinds(model.properties, KINDS, 'Lean'),
    logical_trust: {
      finite_scope: [
        `not a finite model: each established theorem is checked by the Lean kernel as stated in the captured project ${leanProjectRoot(model.model)}`,
      ],
      not_covered: [
        'what a theorem states: vkit checks that each named declaration is accepted by the kernel with accepted axioms only, not that its statement says what was meant',
        'an independent replay of the environment (lean4checker): the .olean files lake build wrote are trusted when the axioms are reported',
        'anything the scan of the project does not see (it is a deny-list of metaprogramming, options and dependencies, not a proof)',
      ],
      trusted: [
        'the Lean kernel and elaborator of the pinned toolchain',
        'lake (the build driver)',
        `accepted axioms: ${LEAN_ACCEPTED_AXIOMS.join(', ')}`,
      ],
    },
    notes: [],
    artifacts: [],
  };
}

/**
 * Every regular file under `dir`, relative to it (`/`-separated), skipping every `.lake/` directory:
 * Lake's build products and fetched packages are never taken from the capture.
 */
function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (name === '.lake') continue;
    const st = lstatSync(join(dir, r));
    if (st.isDirectory()) out.push(...listFiles(dir, r));
    else if (st.isFile()) out.push(r);
  }
  return out;
}

/** Makes a copied tree writable by the container's uid 65534. */
function openUp(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  chmodSync(path, st.isDirectory() ? 0o777 : 0o666);
  if (st.isDirectory()) for (const name of readdirSync(path)) openUp(join(path, name));
}

function stopped(r: ContainerResult): string | undefined {
  if (r.startError) return `did not start: ${r.startError}`;
  if (r.cancelled) return 'cancelled';
  if (r.timedOut) return 'timed out';
  if (r.exitCode !== 0) return `exit ${r.exitCode}`;
  return undefined;
}

export const leanProfile: ModelProfile = {
  id: LEAN_PROFILE_ID,
  method: METHOD,
  propertyKinds: KINDS,
  assurance: 'kernel_proof',

  checker(sandbox, env): Promise<CheckerPlan> {
    return pinnedCheckerPlan('Lean', TOOL_PATHS, () => leanMissing(sandbox, env));
  },

  async run(ctx: ModelContext): Promise<ModelOutcome> {
    const outcome = baseOutcome(ctx.model);
    const { missing, image, toolchain, pinned } = await leanMissing(ctx.sandbox, ctx.env);
    if (missing.length || !image || !toolchain || !pinned)
      return checkerUnavailable(outcome, ctx.model.properties, missing, 'no Lean worker image or toolchain resolved');
    const root = leanProjectRoot(ctx.model.model);
    const hostRoot = join(ctx.source, root);
    const problems: string[] = [];
    if (ctx.model.defines.length) problems.push(`\`defines\` (${ctx.model.defines.join(', ')}): Lean has no macros`);
    let files: string[] = [];
    try {
      files = listFiles(hostRoot);
    } catch (e) {
      problems.push(`the project root ${root} cannot be read: ${(e as Error).message}`);
    }
    if (!problems.length) {
      const toolchainFile = join(hostRoot, 'lean-toolchain');
      const tc = toolchainProblem(existsSync(toolchainFile) ? readFileSync(toolchainFile, 'utf8') : null, pinned);
      if (tc) problems.push(tc);
      const scanned = files.map((f) => ({
        path: f,
        text: f.endsWith('.lean') || f.endsWith('lakefile.toml') ? readFileSync(join(hostRoot, f), 'utf8') : '',
      }));
      for (const x of scanLeanProject(scanned)) {
        const file = root === '.' ? x.file : `${root}/${x.file}`;
        outcome.diagnostics.push({
          severity: 'error',
          message: `refused \`${x.token}\`: ${x.why}`,
          file,
          line: x.line,
          column: x.column,
        });
        if (!problems.some((q) => q.startsWith('the project scan refused')))
          problems.push('the project scan refused it (see diagnostics)');
      }
    }
    if (problems.length) {
      outcome.diagnostics.push(...problems.map((message) => ({ severity: 'error' as const, message })));
      outcome.properties = ctx.model.properties.map((p) => unknown(p, problems.join('; ')));
      return outcome;
    }

    const scratch = mkdtempSync(join(tmpdir(), 'vkit-lean-'));
    try {
      const L = LEAN_LAYOUT;
      const hostProject = join(scratch, 'project');
      // Only the listed files: no `.lake/` of the capture reaches the build.
      for (const f of files) {
        mkdirSync(dirname(join(hostProject, f)), { recursive: true });
        copyFileSync(join(hostRoot, f), join(hostProject, f));
      }
      mkdirSync(hostProject, { recursive: true });
      openUp(scratch);
      const exec = (step: string, argv: string[]) =>
        ctx.sandbox.run({
          image,
          argv,
          binds: [
            { host: toolchain, container: L.toolchain, readOnly: true },
            { host: scratch, container: L.work, readOnly: false },
          ],
          workdir: L.project,
          env: leanEnv(L),
          timeoutMs: ctx.model.bounds.timeout_s * 1000,
          memoryBytes: ctx.model.bounds.memory_mb * 1024 ** 2,
          signal: ctx.signal,
          name: `${ctx.containerPrefix}-${step}`,
        });
      const keep = (as: string, text: string) => {
        mkdirSync(dirname(join(ctx.out, as)), { recursive: true });
        writeFileSync(join(ctx.out, as), text);
        outcome.artifacts.push(as);
      };

      const buildArgv = leanBuildArgv(L);
      const built = await exec('lake-build', buildArgv);
      keep('build.txt', log(buildArgv, built));
      outcome.diagnostics.push(
        ...leanDiagnostics(parseLeanMessages(`${built.stdout}\n${built.stderr}`), L.project, root),
      );
      const buildStop = stopped(built);
      const theorems = ctx.model.properties.filter((p) => p.kind === 'theorem');
      let reports = new Map<string, string[]>();
      let axiomErrors: string[] = [];
      if (!buildStop && theorems.length && !ctx.signal.aborted) {
        const modules = files.map(moduleOf).filter((m): m is string => m !== null);
        const text = axiomsFile(
          modules,
          theorems.map((t) => t.name),
        );
        writeFileSync(join(scratch, 'VkitAxioms.lean'), text, { mode: 0o644 });
        keep('axioms/VkitAxioms.lean', text);
        const axArgv = leanAxiomsArgv(L);
        const ax = await exec('lean-axioms', axArgv);
        keep('axioms/output.txt', log(axArgv, ax));
        const out = `${ax.stdout}\n${ax.stderr}`;
        const messages = parseLeanMessages(out);
        axiomErrors = messages
          .filter((m) => m.severity === 'error')
          .map((m) => `${m.file}:${m.line}:${m.column}: ${m.text}`);
        const axStop = stopped(ax);
        if (axStop) axiomErrors.unshift(`the axiom report ${axStop}`);
        // A report counts only from a run that ended cleanly: a crash mid-way decides nothing.
        if (!axStop) reports = parseAxiomReports(out);
        outcome.diagnostics.push(...leanDiagnostics(messages, L.project, root));
      }
      outcome.properties = ctx.model.properties.map((p) => {
        if (p.kind !== 'theorem') return unknown(p, `the Lean profile does not check properties of kind ${p.kind}`);
        if (ctx.signal.aborted) return unknown(p, 'not run (cancelled)');
        const v = judgeTheorem(
          p.name,
          buildStop ? { ok: false, reason: `lake build ${buildStop}` } : { ok: true },
          reports,
          axiomErrors,
        );
        if (v.axioms)
          outcome.logical_trust.trusted.push(
            `${p.name}: ${v.axioms.length ? `depends on axioms ${v.axioms.join(', ')}` : 'depends on no axioms'} (#print axioms)`,
          );
        return { ...unknown(p, v.reason), claim: v.claim };
      });
      return outcome;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
