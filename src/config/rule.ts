/**
 * The rule API. Built-in kinds' rules (`rules/<kind>/`, see kind.ts) and user rules registered in
 * `vkit.config.ts` use the same `defineRule`. A rule's `plan` is pure: it turns a node and its dependencies' results into an action
 * description; a worker, never the rule, calls `execute` with injected I/O handles.
 */
import type { GenericSchema } from 'valibot';
import type { Assurance, Claim, Outcome } from './evidence-terms.js';
import type { SandboxMode } from './sandbox.js';

export type { SandboxMode } from './sandbox.js';

/** How a check's process is confined: see `src/checkers/sandbox.ts` and docs/sandbox.md. */

/** What the engine hands a rule about one node. */
export interface PlanNode<A = Record<string, unknown>> {
  /** `check:unit-tests`, `wordcount:readme`. */
  label: string;
  id: string;
  /** The node's attributes, already validated by the rule's `attrs` schema. */
  attrs: A;
  /** Digest and file list of the node's selector capture. */
  capture: { digest: string; files: CapturedFile[] };
  /** Identity of the tool the node runs, when it runs one. */
  checker?: CheckerIdentity;
}

export interface CapturedFile {
  path: string;
  mode: string;
  sha256: string;
}

export interface CheckerIdentity {
  /** What was asked for: argv[0], or a shell string's certain first command (else the shell alone, said so). */
  tool: string;
  sha256: string;
  interpreter?: string;
  shell?: string;
  toolchain?: string;
  /** The check's installed npm dependencies (`deps.npm`), one entry per directory. */
  npm?: Array<{ dir: string; lock: string; installed: string; files: number }>;
}

/** A dependency's result as it enters a dependent's key: never run ids or timings. */
export interface DepResult {
  label: string;
  key: string;
  outcome: Outcome;
  artifacts: Array<{ name: string; sha256: string }>;
}

/** The I/O a worker lends an action. Real implementations live in src/checkers and src/store. */
export interface ExecuteIO {
  root: string;
  /**
   * The attempt's id. Whatever the action starts outside its own process group (a container) must
   * carry it in its name (`vkit-<attempt>-...`), so cancellation and recovery reach exactly that.
   */
  attempt: string;
  /** Runs a process with only the given environment; never throws for a failing process. */
  runProcess(req: ProcessRequest): Promise<ProcessResult>;
  /** Puts a file into the CAS, returning its identity and size. */
  putFile(path: string): Promise<{ sha256: string; size: number }>;
  putBytes(bytes: Uint8Array | string): Promise<{ sha256: string; size: number }>;
  /** Files under the root matching globs, for declared outputs. */
  listOutputs(globs: string[]): Promise<string[]>;
  /** Environment values the node declared (plus PATH and HOME). */
  env: Record<string, string>;
  signal: AbortSignal;
}

export interface ProcessRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Told the process group id once the process runs (the worker records it so a canceller can reach it). */
  onSpawn?(pgid: number): void;
  /**
   * How the process is confined (docs/sandbox.md): `isolated` when omitted (store and `.git`
   * read-only, private `/tmp`, own PID namespace), `hermetic` (only the captured inputs, the
   * `outputs` directories and the tool), or `{ none: reason }`.
   */
  sandbox?: SandboxMode;
  /** Output globs (root-relative) a hermetic process may write. */
  outputs?: readonly string[];
  /** Root-relative paths a hermetic process also sees read-only (a check's installed npm dependencies). */
  visible?: readonly string[];
}

export interface ProcessResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  spawnError?: string;
  stdoutPath: string;
  stderrPath: string;
  ms: number;
}

export interface ActionResult {
  outcome: Outcome;
  reason?: string;
  claim: Claim;
  artifacts: Array<{ name: string; sha256: string; size: number }>;
  exitCode?: number | null;
  /** How strongly the result is known. @default "empirical" */
  assurance?: Assurance;
  /**
   * What the result is about, beyond the captured files (e.g. the digests of compared models). A
   * `sections` object in it is what `vkit run show` shows for the receipt instead of the generic
   * test sections (a formal profile's diagnostics, obligations, provenance).
   */
  subject?: Record<string, unknown>;
}

export interface PlannedAction {
  /** Everything that identifies the work besides the rule kind and version; hashed into the key. */
  definition: Record<string, unknown>;
  /** Environment variable names the action may read; the engine puts their value digests in the key. */
  env: string[];
  /** Whether the job writes declared outputs it vouches for: the engine runs such a job alone. */
  writesOutputs?: boolean;
  execute(io: ExecuteIO): Promise<ActionResult>;
}

/** The tool a rule runs: argv[0] (or a shell string's first command), and the root-relative directories whose installed npm dependencies belong to it. */
export interface ToolOf {
  argv0: string;
  shell: boolean;
  npm?: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds rules of every attrs type; each rule checks its own with `attrs`.
export interface Rule<A = any> {
  kind: string;
  version: number;
  /** valibot schema for the node's `attrs`, with defaults. */
  attrs: GenericSchema<unknown, A>;
  /** Whether the node runs a tool whose identity must be resolved before planning. */
  tool?(attrs: A): ToolOf | undefined;
  plan(node: PlanNode<A>, deps: DepResult[]): PlannedAction;
  /**
   * Re-judges a retained result every time the gate is evaluated, for facts that change with the
   * calendar alone (an acceptance decision expires). Gets the receipt's outcome, reason and subject
   * and today's UTC date (`YYYY-MM-DD`), which never enters a key. Undefined keeps the outcome.
   */
  judge?(
    result: { outcome: Outcome; reason?: string | null; subject?: Record<string, unknown> },
    today: string,
  ): { status: 'PASS' | 'FAIL' | 'BLOCKED' | 'STALE'; reason: string } | undefined;
}

const KIND = /^[a-z][a-z0-9-]*$/;

export function defineRule<A>(rule: Rule<A>): Rule<A> {
  if (!KIND.test(rule.kind)) throw new TypeError(`Expected rule kind to match ${KIND}, got \`${rule.kind}\``);
  if (!Number.isInteger(rule.version) || rule.version < 1)
    throw new TypeError(`Expected rule version to be a positive integer, got \`${rule.version}\``);
  return Object.freeze(rule);
}
