/**
 * The `tlc-linux-x86_64-v1` model-checking profile: TLC (the pinned TLA+ tools jar) on the pinned
 * Java runtime of a restricted worker image. Per property, TLC checks the captured model under the
 * captured configuration reduced to that one property (config.ts), breadth-first with one worker,
 * and its own report decides (output.ts): established only for a complete search with no violation;
 * a violation refutes the property only after the pinned TLC replayed the dumped JSON trace
 * (`-loadTrace json`) and the replay, dumped again, matched the witness step by step; anything else
 * leaves the property unknown.
 *
 * Neither the tools jar nor a Java runtime can be downloaded on the machines this was written on,
 * and the pins (pins.json) carry no digests, so `checker()` names missing assets here and `run()`
 * never starts a container: every property is unknown, the item BLOCKED, each asset named. There is
 * no stand-in TLC: the procedure below only ever runs the configured jar in the configured image.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { ContainerResult, Sandbox } from '../../../../src/checkers/container.js';
import type { Diagnostic } from '../../../../src/checkers/results.js';
import type { CheckerPlan } from '../../../../src/formal/types.js';
import {
  checkHostPath,
  checkImage,
  fileSha256,
  type ModelPin,
  pinnedCheckerPlan,
  pinsFile,
  platformProblem,
  readModelPins,
  unrecordedPin,
} from '../assets.js';
import type { ModelProperty, ResolvedModel } from '../../schema.js';
import type { Minimization, ModelContext, ModelOutcome, ModelProfile, ModelScope, PropertyResult } from '../types.js';
import { type DeclaredProperties, declaredProperties, propertyConfig } from './config.js';
import {
  compareTlcTraces,
  incompleteness,
  judgeTlcSearch,
  parseTlcReport,
  parseTlcTrace,
  printedStates,
  type TlcPropertyKind,
  type TlcReport,
  tlcDiagnostics,
} from './output.js';
import { TLC_LAYOUT, type TlcRun, tlcFiles, tlcReplayArgv, tlcSearchArgv } from './procedure.js';
import {
  checkerUnavailable,
  keepArtifact,
  stepLog as log,
  unknownProperty as unknown,
  unsupportedKinds,
} from '../results.js';

export const TLC_PROFILE_ID = 'tlc-linux-x86_64-v1';
const METHOD = 'tlc_model_check';
const KINDS = ['invariant', 'deadlock', 'ltl'] as const;
/** The image's tool tree that makes up the checker: the pinned Java runtime and the OS libraries it loads. */
const TOOL_PATHS = [TLC_LAYOUT.javaHome, '/usr/lib', '/lib', '/lib64'];
/** Memory the JVM needs beyond its heap, MiB (metaspace, code cache, TLC's off-heap fingerprints). */
const JVM_OVERHEAD_MB = 512;

/**
 * The missing or unusable assets, each one entry: the platform, the worker image (`VKIT_TLC_IMAGE`,
 * a full id), the tools jar (`VKIT_TLC_JAR`, a host file), and every pin without a digest or whose
 * digest the asset does not match. Reads only the host paths the environment names and asks the
 * sandbox about the image. Never throws.
 */
export async function tlcMissing(
  sandbox: Sandbox | undefined,
  env: Record<string, string | undefined>,
  pins: ReturnType<typeof readModelPins> = readModelPins(pinsFile('tlc'), TLC_PROFILE_ID),
  platform: { os: string; arch: string } = { os: process.platform, arch: process.arch },
): Promise<{ missing: string[]; image?: string; jar?: string }> {
  const missing: string[] = [];
  const os = platformProblem(platform);
  if (os) missing.push(os);
  const img = await checkImage(
    sandbox,
    'VKIT_TLC_IMAGE',
    env.VKIT_TLC_IMAGE,
    `TLC worker image (the pinned Java runtime at ${TLC_LAYOUT.javaHome})`,
  );
  if ('missing' in img) missing.push(img.missing);
  const jar = checkHostPath('VKIT_TLC_JAR', env.VKIT_TLC_JAR, 'file', 'the pinned TLA+ tools jar (tla2tools.jar)');
  if ('missing' in jar) missing.push(jar.missing);
  if ('error' in pins) missing.push(pins.error);
  else {
    const byAsset = new Map<string, ModelPin>(pins.pins.map((p) => [p.asset, p]));
    for (const asset of ['tla2tools.jar', 'java-runtime'])
      if (!byAsset.has(asset)) missing.push(`the TLC pins name no \`${asset}\``);
    for (const pin of pins.pins) {
      if (pin.sha256 === null) {
        missing.push(unrecordedPin(pin));
        continue;
      }
      try {
        if (pin.asset === 'tla2tools.jar' && 'path' in jar) {
          const actual = await fileSha256(jar.path);
          if (actual !== pin.sha256) missing.push(`VKIT_TLC_JAR ${jar.path} is ${actual}, pinned ${pin.sha256}`);
        }
        if (pin.asset === 'java-runtime' && 'image' in img && sandbox) {
          const tree = await sandbox.toolTree(img.image, [TLC_LAYOUT.javaHome]);
          if (tree.digest !== pin.sha256)
            missing.push(`the Java runtime of ${img.image} is ${tree.digest}, pinned ${pin.sha256}`);
        }
      } catch (e) {
        missing.push(`pinned ${pin.asset} not compared: ${(e as Error).message}`);
      }
    }
  }
  return {
    missing,
    ...('image' in img ? { image: img.image } : {}),
    ...('path' in jar ? { jar: jar.path } : {}),
  };
}

/** What about the item keeps TLC from checking it at all (each its own entry). */
export function tlcModelProblems(m: Pick<ResolvedModel, 'model' | 'config' | 'defines'>): string[] {
  const out: string[] = [];
  if (!m.model.endsWith('.tla')) out.push(`the model \`${m.model}\` is not a TLA+ module (\`.tla\`)`);
  if (m.config === undefined) out.push('no `config`: TLC needs the model configuration (`.cfg`) as a captured input');
  else if (!m.config.endsWith('.cfg')) out.push(`the configuration \`${m.config}\` is not a \`.cfg\` file`);
  if (m.defines.length)
    out.push(`\`defines\` (${m.defines.join(', ')}): TLA+ has no macros; use CONSTANTS in the configuration`);
  return out;
}

function baseOutcome(model: ResolvedModel): ModelOutcome {
  return {
    properties: [],
    versions: {},
    diagnostics: unsupportedKinds(model.properties, KINDS, 'TLC'),
    logical_trust: {
      finite_scope: [
        `the model ${model.model} under the configuration ${model.config ?? '(none)'} as captured (its CONSTANTS, CONSTRAINTS, SYMMETRY and VIEW included), one property per run`,
        'exactly the states reachable under that configuration: nothing larger is covered',
        `at most ${model.bounds.memory_mb} MiB of Java heap and ${model.bounds.timeout_s} s per property (a run that stops early is not complete)`,
      ],
      not_covered: [
        "states TLC could not tell apart: it stores 64-bit fingerprints of states; TLC's own estimate of a collision (in each scope's tool report) is the chance that a reachable state was never explored",
        'a CONSTRAINT or ACTION_CONSTRAINT prunes the state space (states beyond it are not covered); SYMMETRY and VIEW merge states TLC then treats as one',
        'liveness, except what an ltl property (a PROPERTY of the configuration) states; fairness only as the specification states it',
        'real time: a TLA+ model has no clocks unless the specification models one',
        'that any implementation behaves like the model (no refinement or trace conformance is checked)',
      ],
      trusted: ['TLC (the SANY parser, the model checker and its report)', 'the Java runtime of the worker image'],
    },
    notes: [],
    artifacts: [],
  };
}

export const tlcProfile: ModelProfile = {
  id: TLC_PROFILE_ID,
  method: METHOD,
  propertyKinds: KINDS,
  assurance: 'finite_model',

  checker(sandbox, env): Promise<CheckerPlan> {
    return pinnedCheckerPlan('TLC', TOOL_PATHS, () => tlcMissing(sandbox, env));
  },

  async run(ctx: ModelContext): Promise<ModelOutcome> {
    const outcome = baseOutcome(ctx.model);
    const { missing, image, jar } = await tlcMissing(ctx.sandbox, ctx.env);
    if (missing.length || !image || !jar)
      return checkerUnavailable(outcome, ctx.model.properties, missing, 'no TLC worker image or jar resolved');
    const problems = tlcModelProblems(ctx.model);
    let declared: DeclaredProperties | { error: string } = { error: 'not read' };
    let cfgText = '';
    if (!problems.length) {
      try {
        cfgText = readFileSync(join(ctx.source, ctx.model.config!), 'utf8');
        declared = declaredProperties(cfgText);
        if ('error' in declared)
          problems.push(`the configuration ${ctx.model.config} cannot be read: ${declared.error}`);
      } catch (e) {
        problems.push(`the configuration ${ctx.model.config} cannot be read: ${(e as Error).message}`);
      }
    }
    if (problems.length || 'error' in declared) {
      outcome.diagnostics.push(...problems.map((message) => ({ severity: 'error' as const, message })));
      outcome.properties = ctx.model.properties.map((p) => unknown(p, problems.join('; ')));
      return outcome;
    }
    const scratch = mkdtempSync(join(tmpdir(), 'vkit-tlc-'));
    try {
      // The containers run as uid 65534: what they write must be writable by it.
      chmodSync(scratch, 0o777);
      mkdirSync(join(scratch, 'tmp'), { mode: 0o777 });
      chmodSync(join(scratch, 'tmp'), 0o777);
      const runner = new Runner(ctx, image, jar, scratch, outcome);
      for (const [i, p] of ctx.model.properties.entries()) {
        if (ctx.signal.aborted) {
          outcome.properties.push(unknown(p, 'not run (cancelled)'));
          continue;
        }
        outcome.properties.push(await runner.property(`p${i}`, p, cfgText, declared));
      }
      return outcome;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

/** Why a container step did not run to its end, or undefined when it did (any exit status). */
function stopped(r: ContainerResult): string | undefined {
  if (r.startError) return `did not start: ${r.startError}`;
  if (r.cancelled) return 'cancelled';
  if (r.timedOut) return 'timed out';
  return undefined;
}

/** The runs of one model: containers, their logs, and what is kept. */
class Runner {
  constructor(
    private readonly ctx: ModelContext,
    private readonly image: string,
    private readonly jar: string,
    private readonly scratch: string,
    private readonly outcome: ModelOutcome,
  ) {}

  private exec(step: string, argv: string[], dir: string, timeoutMs: number): Promise<ContainerResult> {
    const L = TLC_LAYOUT;
    return this.ctx.sandbox.run({
      image: this.image,
      argv,
      binds: [
        { host: this.jar, container: L.jar, readOnly: true },
        { host: this.ctx.source, container: L.source, readOnly: true },
        { host: this.scratch, container: L.work, readOnly: false },
      ],
      workdir: dir,
      env: { HOME: L.work, TMPDIR: posix.join(L.work, 'tmp'), JAVA_HOME: L.javaHome, LANG: 'C' },
      timeoutMs,
      memoryBytes: (this.ctx.model.bounds.memory_mb + JVM_OVERHEAD_MB) * 1024 ** 2,
      signal: this.ctx.signal,
      name: `${this.ctx.containerPrefix}-${step}`,
    });
  }

  private keep(as: string, from: { file: string } | { text: string }): void {
    keepArtifact(this.ctx.out, this.outcome, as, from);
  }

  private scope(r: TlcReport, exitCode: number | null): ModelScope {
    const b = this.ctx.model.bounds;
    const complete = incompleteness(r, exitCode).length === 0 && !r.violation;
    return {
      bounds: { memory_mb: b.memory_mb, timeout_s: b.timeout_s },
      defines: [],
      states: r.distinct,
      // TLC counts "states generated": every successor it computed, duplicates included.
      transitions: r.generated,
      depth: r.depth,
      search: complete ? 'exhaustive' : 'unknown',
      complete,
      tool_report: r.lines,
    };
  }

  async property(
    dir: string,
    p: ModelProperty,
    cfgText: string,
    declared: DeclaredProperties,
  ): Promise<PropertyResult> {
    if (!(KINDS as readonly string[]).includes(p.kind))
      return unknown(p, `the TLC profile does not check properties of kind ${p.kind}`);
    const kind = p.kind as TlcPropertyKind;
    if (kind === 'invariant' && !declared.invariants.includes(p.name))
      return unknown(p, `${p.name} is not an INVARIANT of ${this.ctx.model.config}`);
    if (kind === 'ltl' && !declared.properties.includes(p.name))
      return unknown(p, `${p.name} is not a PROPERTY of ${this.ctx.model.config}`);
    const cfg = propertyConfig(cfgText, { kind, name: p.name });
    if ('error' in cfg) return unknown(p, `no configuration for ${p.name}: ${cfg.error}`);
    const hostDir = join(this.scratch, dir);
    mkdirSync(hostDir, { mode: 0o777 });
    chmodSync(hostDir, 0o777);
    writeFileSync(join(hostDir, 'property.cfg'), cfg.config, { mode: 0o644 });
    this.keep(`search/${p.name}.cfg`, { text: cfg.config });

    const run: TlcRun = {
      model: this.ctx.model.model,
      dir,
      checkDeadlock: kind === 'deadlock',
      memoryMb: this.ctx.model.bounds.memory_mb,
    };
    const files = tlcFiles(run);
    const argv = tlcSearchArgv(run);
    const b = this.ctx.model.bounds;
    const ran = await this.exec(`${dir}-search`, argv, files.dir, b.timeout_s * 1000);
    this.keep(`search/${p.name}.txt`, { text: log(argv, ran) });
    const stop = stopped(ran);
    if (stop) return unknown(p, `the search ${stop === 'timed out' ? `did not finish within ${b.timeout_s} s` : stop}`);
    const report = parseTlcReport(`${ran.stdout}\n${ran.stderr}`);
    if (report.version) this.outcome.versions.tlc = report.version;
    this.outcome.diagnostics.push(...this.diagnostics(report));
    const scope = this.scope(report, ran.exitCode);
    const verdict = judgeTlcSearch(report, ran.exitCode, { kind, name: p.name });
    if (verdict.verdict !== 'violation')
      return {
        ...unknown(p, verdict.reason, scope),
        claim: verdict.verdict === 'established' ? 'established' : 'unknown',
      };

    // A violation: refuted only when the pinned TLC replays the dumped witness and the replay matches it.
    const base = unknown(p, '', scope);
    const tracePath = join(hostDir, 'trace.json');
    if (!existsSync(tracePath)) return { ...base, reason: `TLC reported ${verdict.violation} but wrote no JSON trace` };
    const witness = parseTlcTrace(readFileSync(tracePath, 'utf8'));
    const minimization = (steps: number): Minimization => ({
      budget_s: b.minimize_s,
      attempted: false,
      completed: false,
      original_steps: steps,
      steps,
      verdict: 'not shown minimal',
      note: 'no shortening search is run for TLC: its breadth-first search with one worker reaches each state along a shortest path from an initial state, but vkit does not check that, so the witness is not shown minimal',
    });
    const unreplayed = (mismatch: string, steps: number) => {
      this.keep(`witnesses/${p.name}.unreplayed.json`, { file: tracePath });
      return {
        ...base,
        reason: `TLC reported ${verdict.violation}, but its witness did not replay: ${mismatch}`,
        unreplayed: {
          artifact: `witnesses/${p.name}.unreplayed.json`,
          format: 'tlc-json-trace',
          steps,
          replay: {
            matched: false,
            violation: { expected: verdict.violation, replayed: null },
            steps: { witness: steps, replayed: 0, compared: 0 },
            values_compared: 0,
            mismatch,
          },
          minimization: minimization(steps),
        },
      };
    };
    if ('error' in witness) return unreplayed(`the dumped trace is unusable: ${witness.error}`, 0);

    const replayArgv = tlcReplayArgv(run);
    const replayed = await this.exec(`${dir}-replay`, replayArgv, files.dir, b.timeout_s * 1000);
    this.keep(`witnesses/${p.name}.replay.txt`, { text: log(replayArgv, replayed) });
    const steps = witness.trace.states.length;
    const replayStop = stopped(replayed);
    if (replayStop) return unreplayed(`the replay ${replayStop}`, steps);
    const replayReport = parseTlcReport(`${replayed.stdout}\n${replayed.stderr}`);
    const again = judgeTlcSearch(replayReport, replayed.exitCode, { kind, name: p.name });
    const replayPath = join(hostDir, 'replay.json');
    const replayTrace = existsSync(replayPath) ? parseTlcTrace(readFileSync(replayPath, 'utf8')) : null;
    if (again.verdict !== 'violation') return unreplayed(`the replay did not reproduce it: ${again.reason}`, steps);
    if (replayTrace && 'error' in replayTrace)
      return unreplayed(`the replay's trace is unusable: ${replayTrace.error}`, steps);
    const comparison = compareTlcTraces(
      { violation: verdict.violation, trace: witness.trace, printed: printedStates(report) },
      { violation: again.violation, trace: replayTrace?.trace ?? null },
    );
    if (!comparison.matched) {
      const r = unreplayed(comparison.mismatch!, steps);
      return { ...r, unreplayed: { ...r.unreplayed, replay: comparison } };
    }
    const artifact = `witnesses/${p.name}.json`;
    this.keep(artifact, { file: tracePath });
    this.keep(`witnesses/${p.name}.replay.json`, { file: replayPath });
    return {
      ...base,
      claim: 'refuted',
      reason: `${verdict.violation} after ${steps} states (witness replayed by the pinned TLC with -loadTrace json, ${comparison.steps.compared} states and ${comparison.values_compared} values compared)`,
      witness: { artifact, format: 'tlc-json-trace', steps, replay: comparison, minimization: minimization(steps) },
    };
  }

  private diagnostics(r: TlcReport): Diagnostic[] {
    const modelDir = posix.dirname(this.ctx.model.model);
    return tlcDiagnostics(r, modelDir, (path) => existsSync(join(this.ctx.source, path)));
  }
}
