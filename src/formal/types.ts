/**
 * The contracts between the parts of formal checking (vkit-reference.md, "Formal components"):
 * the sandbox that runs restricted containers, mathematical packages, profiles (the procedure a
 * verifier follows) and the result sections a receipt keeps. The rule `rules/formal/rule.ts` wires them:
 * capture -> materialise -> profile.run(sandbox) -> retained sections and artifacts.
 */
import type { Assurance, Claim, Outcome } from '../config/evidence-terms.js';
import type { ResolvedComponent } from './component-schema.js';

/* ---------------------------------------------------------------- sandbox (src/checkers/container.ts) */

export interface Bind {
  /** Absolute host path. */
  host: string;
  /** Absolute path inside the container. */
  container: string;
  readOnly: boolean;
}

export interface ContainerRequest {
  /** Full `sha256:` image id (never a tag: a tag can move). */
  image: string;
  argv: string[];
  binds: Bind[];
  workdir: string;
  env?: Record<string, string>;
  timeoutMs: number;
  /** Defaults: 2 GiB memory, 512 pids. */
  memoryBytes?: number;
  pidsLimit?: number;
  signal: AbortSignal;
  /**
   * The container's name, derived from the attempt (`vkit-<attempt id>-<step>`): cancellation and
   * recovery find and kill only the attempt's own containers by this prefix.
   */
  name: string;
}

export interface ContainerResult {
  /** null when killed (timeout, cancel) or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the engine refused to create or start the container. */
  startError?: string;
}

/** The one thing profiles use to execute: a restricted container (no network, read-only root, uid 65534, no capabilities). */
export interface Sandbox {
  /** Socket the engine answers on, for messages. */
  readonly socket: string;
  run(req: ContainerRequest): Promise<ContainerResult>;
  /** The full image id of a local image reference, or undefined when it is not installed. */
  imageId(ref: string): Promise<string | undefined>;
  /**
   * Digest of the tool tree inside an image: sorted (path, mode, sha256) of every regular file and
   * symlink under `paths`, so an image rebuilt from the same packages matches. Cached per image id.
   */
  toolTree(imageId: string, paths: readonly string[]): Promise<ToolTree>;
}

export interface ToolTree {
  /** `sha256:<hex>` over the canonical listing. */
  digest: string;
  entries: number;
  /** Version lines of the main tools (e.g. `coqc --version`), for the receipt's inventory. */
  versions?: Record<string, string>;
}

/* ---------------------------------------------------------------- packages (src/formal/packages.ts) */

export interface MathPackage {
  id: string;
  version: string;
  /** `sha256:<hex>`: deterministic over the package's files (sorted relative path, mode, sha256). */
  sha256: string;
  /** Absolute directory holding the package's files. */
  dir: string;
  files: string[];
  /** Contract names the package defines (e.g. `ledger.source.v1`). */
  contracts: string[];
  /** The six binding names (or whatever the contract requires). */
  bindings: string[];
  /** Axioms a profile may report without blocking (accepted policy assumptions), per profile id. */
  acceptedAxioms: Record<string, string[]>;
}

/* ---------------------------------------------------------------- results (receipt sections) */

export interface Obligation {
  id: string;
  /** What it checks, in words. */
  description: string;
  status: 'proved' | 'failed' | 'unknown';
  /** Which binding or package claim it belongs to. */
  binding?: string;
}

export interface Diagnostic {
  severity: 'error' | 'warning' | 'info';
  message: string;
  /** Path inside the captured source (or the package), with one-based line and column. */
  file?: string;
  line?: number;
  column?: number;
}

export interface FormalSections {
  obligations: {
    /** Null denominators when the run did not report them (partial). */
    total: number | null;
    proved: number;
    failed: number;
    unknown: number | null;
    items: Obligation[];
  };
  scope: { contract: string; package: string; profile: string; parameters: Record<string, unknown>; notes: string[] };
  inventory: { image: string | null; tool_tree: string | null; versions: Record<string, string> };
  coverage: {
    /** Binding -> the candidate symbol and the behaviours established for it. */
    bindings: { binding: string; symbol: string; established: boolean; behaviours: string[] }[];
    /** Package claims (e.g. transfer) listed separately from candidate API coverage. */
    package_claims: { claim: string; established: boolean; note?: string }[];
    /** What the result says nothing about. */
    unclaimed: string[];
  };
  provenance: {
    method: string;
    logical_trust: {
      engine_reported_axioms: string[];
      accepted_policy_assumptions: string[];
      unchecked_dependencies: string[];
      unreported: string[];
    };
    notes: string[];
  };
  compilation: null | {
    sources: Record<string, string>;
    driver: Record<string, string>;
    artifacts: Record<string, string>;
    arguments: string[];
    observations: { name: string; expected: string; observed: string; pass: boolean }[];
    trusts: string[];
  };
  diagnostics: Diagnostic[];
}

export interface FormalOutcome {
  outcome: Outcome;
  claim: Claim;
  reason: string;
  /** A formal profile's result is never empirical: a kernel checked it, or a trusted engine did. */
  assurance: Extract<Assurance, 'kernel_proof' | 'trusted_engine'>;
  method: string;
  sections: FormalSections;
  /** Files under the output directory to retain (relative paths); anything else there is rejected. */
  artifacts: string[];
}

/* ---------------------------------------------------------------- profiles (src/formal/profiles/*) */

export interface ProfileContext {
  component: ResolvedComponent;
  pkg: MathPackage;
  /** Absolute host directory holding the materialised frozen capture (readable by uid 65534). */
  source: string;
  /** Absolute host directory the profile may write (mounted read-write, private to the attempt). */
  out: string;
  sandbox: Sandbox;
  /** Host configuration (VKIT_VERUS_IMAGE, ...); never part of a job's identity. */
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /** Prefix for container names (`vkit-<attempt id>`). */
  containerPrefix: string;
}

export interface CheckerPlan {
  /** Full image id of the worker image, when installed. */
  image?: string;
  /** Tool tree paths inside the image that make up the checker. */
  toolPaths: string[];
  /** Missing or unpinned assets; any entry keeps the profile BLOCKED, named. */
  missing: string[];
}

export interface Profile {
  id: string;
  method: string;
  assurance: FormalOutcome['assurance'];
  /** Which package contracts this profile can check. */
  contracts: string[];
  /** Resolves the checker (image, tool paths) from host configuration; never throws. */
  checker(sandbox: Sandbox | undefined, env: Record<string, string | undefined>): Promise<CheckerPlan>;
  run(ctx: ProfileContext): Promise<FormalOutcome>;
}

/** A candidate source other than the working tree, set by `verify --request` (git-commit). */
export interface CandidateSelection {
  kind: 'git-commit';
  commit: string;
  /** Digest of the commit capture the request was planned against. */
  digest: string;
}

/** A node's attributes: the component's manifest entry, plus a candidate for commit requests. */
export type VerifyAttrs = ResolvedComponent & { candidate?: CandidateSelection };
