/**
 * The `spin-linux-x86_64-v1` model-checking profile: Debian's Spin and gcc in the restricted worker
 * image `localhost/vkit-spin-worker:1` (built offline from a pinned package list; its tool tree is
 * the checker's identity). Per property: pan is generated and compiled with the item's macros, the
 * search runs with the property's check enabled, and pan's own report decides between established
 * (a full search of the whole state space, nothing found) and a violation. A violation refutes the
 * property only after its trail replayed twice against the frozen model and matched step by step
 * (see replay.ts); pan's iterative shortening then looks for a shorter witness within a budget, kept
 * only when it replays in turn. Everything else leaves the property unknown.
 */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative, sep } from 'node:path';
import type { ContainerResult } from '../../../../src/checkers/container.js';
import type { Diagnostic } from '../../../../src/checkers/results.js';
import type { CheckerPlan } from '../../../../src/formal/types.js';
import type { ModelProperty, ResolvedModel } from '../../schema.js';
import type { Minimization, ModelContext, ModelOutcome, ModelProfile, PropertyResult, Witness } from '../types.js';
import { checkedProperty, type PanReport, parsePanReport, violationRefutes } from './pan-report.js';
import { brief, compareReplays, parsePanReplay, parseSpinReplay, trailSteps } from './replay.js';
import {
  checkerUnavailable,
  keepArtifact,
  stepLog as log,
  unknownProperty as unknown,
  unsupportedKinds,
} from '../results.js';

export const SPIN_PROFILE_ID = 'spin-linux-x86_64-v1';
export const SPIN_WORKER_IMAGE = 'localhost/vkit-spin-worker:1';
const TOOL_PATHS = ['/usr'];
const METHOD = 'spin_model_check';
const KINDS = ['assert', 'ltl', 'never', 'deadlock'] as const;
/** Generating and compiling pan, and each replay, may take this long. */
const STEP_TIMEOUT_MS = 10 * 60_000;

export const spinProfile: ModelProfile = {
  id: SPIN_PROFILE_ID,
  method: METHOD,
  propertyKinds: KINDS,
  assurance: 'finite_model',

  async checker(sandbox, _env): Promise<CheckerPlan> {
    if (!sandbox)
      return { toolPaths: TOOL_PATHS, missing: [`worker image ${SPIN_WORKER_IMAGE} not checked: no container engine`] };
    try {
      const image = await sandbox.imageId(SPIN_WORKER_IMAGE);
      if (!image)
        return {
          toolPaths: TOOL_PATHS,
          missing: [
            `worker image ${SPIN_WORKER_IMAGE} is not installed in the container engine (${sandbox.socket}): build it with \`vkit image build spin\` (as root; needs debootstrap and podman), and \`vkit doctor\` says what this machine lacks`,
          ],
        };
      return { image, toolPaths: TOOL_PATHS, missing: [] };
    } catch (error) {
      return {
        toolPaths: TOOL_PATHS,
        missing: [`worker image ${SPIN_WORKER_IMAGE} could not be looked up: ${(error as Error).message}`],
      };
    }
  },

  async run(ctx: ModelContext): Promise<ModelOutcome> {
    const outcome = baseOutcome(ctx.model);
    const plan = await spinProfile.checker(ctx.sandbox, ctx.env);
    if (plan.missing.length || !plan.image)
      return checkerUnavailable(outcome, ctx.model.properties, plan.missing, 'no worker image');
    const scratch = mkdtempSync(join(tmpdir(), 'vkit-spin-'));
    try {
      // The containers run as uid 65534: the scratch directory must be writable by it.
      chmodSync(scratch, 0o777);
      const run = new Runner(ctx, plan.image, scratch, outcome);
      // The model as checked travels with its witnesses (an evidence bundle carries both).
      run.keepSource();
      const results = new Map<string, PropertyResult>();
      for (const [gi, group] of groups(ctx.model).entries()) {
        for (const r of await run.group(`g${gi}`, group)) results.set(r.name, r);
        if (ctx.signal.aborted) break;
      }
      outcome.properties = ctx.model.properties.map(
        (p) =>
          results.get(p.name) ??
          unknown(
            p,
            (KINDS as readonly string[]).includes(p.kind)
              ? 'not run (cancelled)'
              : `the SPIN profile does not check properties of kind ${p.kind}`,
          ),
      );
      return outcome;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

/** Properties that share one compiled pan: the same macros, and claims (ltl, never) or none (assert, deadlock). */
interface Group {
  claims: boolean;
  defines: string[];
  properties: ModelProperty[];
}

function groups(model: ResolvedModel): Group[] {
  const out = new Map<string, Group>();
  for (const p of model.properties) {
    if (!(KINDS as readonly string[]).includes(p.kind)) continue;
    const claims = p.kind === 'ltl' || p.kind === 'never';
    const defines = [...model.defines, ...p.defines];
    const key = JSON.stringify([claims, defines]);
    if (!out.has(key)) out.set(key, { claims, defines, properties: [] });
    out.get(key)!.properties.push(p);
  }
  return [...out.values()];
}

function baseOutcome(model: ResolvedModel): ModelOutcome {
  return {
    properties: [],
    versions: {},
    diagnostics: unsupportedKinds(model.properties, KINDS, 'SPIN'),
    logical_trust: {
      finite_scope: [
        `the model ${model.model} as captured, preprocessed with ${model.defines.length ? model.defines.map((d) => `-D${d}`).join(' ') : 'no macros'} (plus each property's own)`,
        'exactly the processes, channel capacities and data ranges the model declares: nothing larger is covered',
        `search depth at most ${model.bounds.depth} steps and ${model.bounds.memory_mb} MiB (a search that reaches either is not complete)`,
      ],
      not_covered: [
        'liveness, except what an ltl property states and pan checks as acceptance cycles (-a)',
        'fairness: weak fairness is not assumed (pan -f is not used), so an acceptance cycle may rely on an unfair schedule',
        'real time: the model has no clocks; timeouts and delays are nondeterministic choices',
        'that any implementation behaves like the model (no refinement or trace conformance is checked)',
      ],
      trusted: ['spin (parser and verifier generator)', 'gcc (compiles pan)', 'pan (the search and its report)'],
    },
    notes: [],
    artifacts: [],
  };
}

/** The steps of one run: containers, their logs, and what is kept. */
class Runner {
  constructor(
    private readonly ctx: ModelContext,
    private readonly image: string,
    private readonly scratch: string,
    private readonly outcome: ModelOutcome,
  ) {}

  /** Runs `script` with `sh -c` in the model's directory of the group's copy. */
  private async sh(step: string, script: string, timeoutMs: number): Promise<ContainerResult> {
    return this.ctx.sandbox.run({
      image: this.image,
      argv: ['/bin/sh', '-c', script],
      binds: [
        { host: this.ctx.source, container: '/src', readOnly: true },
        { host: this.scratch, container: '/work', readOnly: false },
      ],
      workdir: '/work',
      env: { TMPDIR: '/work', HOME: '/work', LANG: 'C' },
      timeoutMs,
      signal: this.ctx.signal,
      name: `${this.ctx.containerPrefix}-${step}`,
    });
  }

  /** Keeps a file (the scratch copy, written by the container) or text (written here) as an artifact. */
  private keep(as: string, from: { file: string } | { text: string }): void {
    keepArtifact(this.ctx.out, this.outcome, as, from, (f) => existsSync(f) && lstatSync(f).isFile());
  }

  /** Every captured input, as `model/<path>`. */
  keepSource(): void {
    for (const e of readdirSync(this.ctx.source, { recursive: true, withFileTypes: true }))
      if (e.isFile()) {
        const rel = relative(this.ctx.source, join(e.parentPath, e.name)).split(sep).join('/');
        this.keep(`model/${rel}`, { file: join(e.parentPath, e.name) });
      }
  }

  async group(name: string, g: Group): Promise<PropertyResult[]> {
    const model = this.ctx.model.model;
    const dir = posix.join('/work', name, posix.dirname(model));
    const file = posix.basename(model);
    const defines = g.defines.map((d) => `-D${d}`);
    const cflags = [
      '-w',
      '-O1',
      `-DMEMLIM=${this.ctx.model.bounds.memory_mb}`,
      ...(g.claims ? [] : ['-DSAFETY', '-DNOCLAIM']),
    ];
    const compile = [
      'set -e',
      `mkdir -p /work/${name}`,
      `cp -R /src/. /work/${name}/`,
      `cd ${q(dir)}`,
      `spin ${defines.map(q).join(' ')} -a ${q(file)}`,
      `gcc ${cflags.join(' ')} -o pan pan.c`,
    ].join('\n');
    const built = await this.sh(`${name}-compile`, compile, STEP_TIMEOUT_MS);
    this.keep(`compile/${name}.txt`, { text: log(compile, built) });
    const stop = failure(built);
    if (stop) {
      this.outcome.diagnostics.push(...spinDiagnostics(`${built.stdout}\n${built.stderr}`, posix.dirname(model)));
      return g.properties.map((p) =>
        unknown(p, `the model did not compile with ${defines.join(' ') || 'no macros'}: ${stop}`),
      );
    }
    const results: PropertyResult[] = [];
    for (const [pi, p] of g.properties.entries()) {
      if (this.ctx.signal.aborted) break;
      results.push(await this.property(name, `p${pi}`, dir, file, g, p));
    }
    return results;
  }

  private flags(p: ModelProperty): string[] {
    if (p.kind === 'ltl' || p.kind === 'never') return ['-a', '-N', p.name];
    // An assert search ignores invalid end states, a deadlock search ignores assertions: each
    // property is decided by its own check only.
    return p.kind === 'assert' ? ['-E'] : ['-A'];
  }

  private async property(
    group: string,
    suf: string,
    dir: string,
    file: string,
    g: Group,
    p: ModelProperty,
  ): Promise<PropertyResult> {
    const b = this.ctx.model.bounds;
    const argv = ['./pan', `-m${b.depth}`, ...this.flags(p), `-t${suf}.trail`];
    const script = `cd ${q(dir)}\n${argv.map(q).join(' ')}`;
    const ran = await this.sh(`${group}-${suf}-search`, script, b.timeout_s * 1000);
    this.keep(`search/${p.name}.txt`, { text: log(script, ran) });
    if (ran.cancelled) return unknown(p, 'cancelled');
    if (ran.timedOut) return unknown(p, `the search did not finish within ${b.timeout_s} s`);
    if (ran.startError) return unknown(p, `the search did not start: ${ran.startError}`);
    const report = parsePanReport(`${ran.stdout}\n${ran.stderr}`);
    const scope = {
      bounds: { depth: b.depth, memory_mb: b.memory_mb, timeout_s: b.timeout_s },
      defines: g.defines,
      states: report.states,
      transitions: report.transitions,
      depth: report.depth,
      search: report.search,
      complete: report.incomplete.length === 0,
      tool_report: [...report.checked, ...report.incomplete],
    };
    const base = { name: p.name, kind: p.kind, required: p.required, scope, witness: null };
    if (!checkedProperty(report, p))
      return { ...base, claim: 'unknown', reason: `pan's report does not say it checked ${p.kind} ${p.name}` };
    if (report.errors === 0) {
      if (report.incomplete.length)
        return { ...base, claim: 'unknown', reason: `incomplete search: ${report.incomplete.join('; ')}` };
      return {
        ...base,
        claim: 'established',
        reason: `full search, ${report.states} states and ${report.transitions} transitions, no violation`,
      };
    }
    if (report.errors === null || report.violation === null)
      return {
        ...base,
        claim: 'unknown',
        reason: `pan did not report a violation it could name (exit ${ran.exitCode})`,
      };
    return this.refute(group, suf, dir, file, g, p, report, base);
  }

  /** A violation: refuted only when its trail replays; then the shorter-witness search. */
  private async refute(
    group: string,
    suf: string,
    dir: string,
    file: string,
    g: Group,
    p: ModelProperty,
    report: PanReport,
    base: Omit<PropertyResult, 'claim' | 'reason'>,
  ): Promise<PropertyResult> {
    const trail = `${file}.${suf}.trail`;
    const host = join(this.scratch, group, posix.dirname(this.ctx.model.model), trail);
    if (!existsSync(host))
      return { ...base, claim: 'unknown', reason: `pan reported ${brief(report.violation)} but wrote no trail` };
    const original = await this.replay(`${group}-${suf}`, p.name, dir, file, g, p, trail, report.violation!);
    const artifact = `witnesses/${p.name}.trail`;
    const b = this.ctx.model.bounds;
    const notMinimal = (note: string, attempted = false): Minimization => ({
      budget_s: b.minimize_s,
      attempted,
      completed: false,
      original_steps: original.steps,
      steps: original.steps,
      verdict: 'not shown minimal',
      note,
    });
    if (!original.ok) {
      this.keep(`witnesses/${p.name}.unreplayed.trail`, { file: host });
      return {
        ...base,
        claim: 'unknown',
        reason: `pan reported ${brief(report.violation)}, but its witness did not replay: ${original.comparison.mismatch}`,
        unreplayed: {
          artifact: `witnesses/${p.name}.unreplayed.trail`,
          format: 'spin-trail',
          steps: original.steps,
          replay: original.comparison,
          minimization: notMinimal('no minimization of a witness that did not replay'),
        },
      };
    }
    let witness: Witness = {
      artifact,
      format: 'spin-trail',
      steps: original.steps,
      replay: original.comparison,
      minimization: notMinimal('no budget for a shorter witness (bounds.minimize_s = 0)'),
    };
    this.keep(artifact, { file: host });
    if (b.minimize_s > 0) witness = await this.minimize(group, suf, dir, file, g, p, report.violation!, witness);
    return {
      ...base,
      claim: 'refuted',
      reason: `${brief(original.comparison.violation.replayed)} after ${witness.steps} steps (witness replayed by pan -r and spin -t, ${witness.replay.steps.compared} steps compared)`,
      witness,
    };
  }

  /** Both replays of one trail, compared. */
  private async replay(
    step: string,
    label: string,
    dir: string,
    file: string,
    g: Group,
    p: ModelProperty,
    trail: string,
    expected: string,
  ) {
    const claim = p.kind === 'ltl' || p.kind === 'never' ? p.name : null;
    const panArgv = ['./pan', '-r', trail, ...(claim ? ['-N', claim] : [])];
    const spinArgv = ['spin', ...g.defines.map((d) => `-D${d}`), '-t', '-p', '-g', '-k', trail, file];
    const out = `${trail}.replay`;
    const script = [
      `cd ${q(dir)}`,
      `${panArgv.map(q).join(' ')} >${q(`${out}-pan.txt`)} 2>&1`,
      `${spinArgv.map(q).join(' ')} >${q(`${out}-spin.txt`)} 2>&1`,
      'exit 0',
    ].join('\n');
    const ran = await this.sh(`${step}-replay`, script, STEP_TIMEOUT_MS);
    const hostDir = join(this.scratch, dir.slice('/work/'.length));
    const read = (f: string) => (existsSync(join(hostDir, f)) ? readFileSync(join(hostDir, f), 'utf8') : '');
    const steps = trailSteps(read(trail));
    const panText = read(`${out}-pan.txt`);
    const spinText = read(`${out}-spin.txt`);
    this.keep(`witnesses/${label}.pan-r.txt`, { text: `$ ${panArgv.join(' ')}\n${panText}` });
    this.keep(`witnesses/${label}.spin-t.txt`, { text: `$ ${spinArgv.join(' ')}\n${spinText}` });
    const stop = failure(ran);
    const verifier = parsePanReplay(panText, claim);
    const simulation = parseSpinReplay(spinText);
    const comparison = stop
      ? {
          matched: false,
          violation: { expected, replayed: null },
          steps: { witness: steps, replayed: 0, compared: 0 },
          values_compared: 0,
          mismatch: `the replay did not run: ${stop}`,
        }
      : compareReplays(expected, steps, verifier, simulation);
    // A matching replay of a violation this property is not about (a model assertion during an ltl
    // search) still decides nothing about the property.
    const relevant = comparison.matched && violationRefutes(expected, p, simulation.inClaim);
    if (comparison.matched && !relevant)
      comparison.mismatch = `the replayed violation (${brief(simulation.violation)}${simulation.inClaim ? ', in the never claim' : ''}) is not one that refutes ${p.kind} ${p.name}`;
    return { ok: relevant, steps, comparison: { ...comparison, matched: relevant } };
  }

  /** pan's iterative shortening (-i, compiled with -DREACH) within the budget; a shorter trail is kept only after it replays. */
  private async minimize(
    group: string,
    suf: string,
    dir: string,
    file: string,
    g: Group,
    p: ModelProperty,
    violation: string,
    witness: Witness,
  ): Promise<Witness> {
    const b = this.ctx.model.bounds;
    const cflags = ['-w', '-O1', `-DMEMLIM=${b.memory_mb}`, '-DREACH', ...(g.claims ? [] : ['-DSAFETY', '-DNOCLAIM'])];
    const min = `${suf}-min`;
    const argv = ['./pan_reach', `-m${b.depth}`, ...this.flags(p), '-i', `-t${min}.trail`];
    const script = [
      `cd ${q(dir)}`,
      `[ -x pan_reach ] || gcc ${cflags.join(' ')} -o pan_reach pan.c`,
      argv.map(q).join(' '),
    ].join('\n');
    const ran = await this.sh(`${group}-${suf}-minimize`, script, b.minimize_s * 1000);
    this.keep(`witnesses/${p.name}.minimize.txt`, { text: log(script, ran) });
    const completed = !failure(ran) && parsePanReport(`${ran.stdout}\n${ran.stderr}`).errors !== null;
    const trail = `${file}.${min}.trail`;
    const host = join(this.scratch, group, posix.dirname(this.ctx.model.model), trail);
    const budgetNote = completed
      ? ''
      : `the ${b.minimize_s} s budget ran out (or the search failed) before the shortening finished`;
    if (!existsSync(host))
      return {
        ...witness,
        minimization: { ...witness.minimization, attempted: true, note: budgetNote || 'pan -i wrote no trail' },
      };
    const shorter = await this.replay(`${group}-${min}`, `${p.name}.shortened`, dir, file, g, p, trail, violation);
    if (!shorter.ok || shorter.steps > witness.steps)
      return {
        ...witness,
        minimization: {
          ...witness.minimization,
          attempted: true,
          completed,
          note: `the shortened trail was not kept: ${shorter.ok ? 'it is not shorter' : `it did not replay (${shorter.comparison.mismatch})`}${budgetNote ? `; ${budgetNote}` : ''}`,
        },
      };
    this.keep(witness.artifact, { file: host });
    return {
      ...witness,
      steps: shorter.steps,
      replay: shorter.comparison,
      minimization: {
        budget_s: b.minimize_s,
        attempted: true,
        completed,
        original_steps: witness.steps,
        steps: shorter.steps,
        verdict: completed ? 'shown minimal' : 'not shown minimal',
        note: completed
          ? 'shortest error path pan -i finds with -DREACH within the depth bound; it replayed'
          : `a shorter trail that replayed is kept; ${budgetNote}`,
      },
    };
  }
}

/** Why a container step failed, or undefined when it ran to exit 0. */
function failure(r: ContainerResult): string | undefined {
  if (r.startError) return `did not start: ${r.startError}`;
  if (r.cancelled) return 'cancelled';
  if (r.timedOut) return 'timed out';
  if (r.exitCode !== 0) return `exit ${r.exitCode}: ${lastLines(`${r.stdout}\n${r.stderr}`)}`;
  return undefined;
}

const lastLines = (s: string) => s.trim().split('\n').slice(-3).join(' | ');

/** A word quoted for `sh` (arguments come from validated config, quoted anyway). */
function q(word: string): string {
  return /^[A-Za-z0-9_./=:+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** spin's errors (`spin: file.pml:12, Error: syntax error ...`) with the file relative to the root. */
export function spinDiagnostics(text: string, modelDir: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const line of text.split('\n')) {
    const m = /^spin: (\S+?):(\d+), Error: (.*)$/.exec(line.trim());
    if (!m) continue;
    out.push({ severity: 'error', message: m[3]!.trim(), file: posix.join(modelDir, m[1]!), line: Number(m[2]) });
  }
  return out;
}
