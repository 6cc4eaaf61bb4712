/**
 * The contracts between the parts of formal checking (vkit-reference.md, "Formal components"):
 * the sandbox that runs restricted containers, mathematical packages, profiles (the procedure a
 * verifier follows) and the result sections a receipt keeps. The rule `rules/formal/rule.ts` wires them:
 * capture -> materialise -> profile.run(sandbox) -> retained sections and artifacts.
 */
import type { Assurance, Claim, Outcome } from '../config/evidence-terms.js';
import type { Sandbox } from '../checkers/container.js';
import type { Diagnostic, Obligations } from '../checkers/results.js';
import type { ResolvedComponent } from './component-schema.js';

// The sandbox contract lives with its implementation (src/checkers/container.ts) and the parsers'
// findings with the parsers (src/checkers/results.ts): the base layer cannot import this library.
export type { Bind, ContainerRequest, ContainerResult, Sandbox, ToolTree } from '../checkers/container.js';
export type { Obligation } from '../checkers/results.js';

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
  /** Extra bindings a component with a `representation` binds (e.g. `state`, `view`, `of_ledger`). */
  representationBindings?: string[];
  /** Axioms a profile may report without blocking (accepted policy assumptions), per profile id. */
  acceptedAxioms: Record<string, string[]>;
}

/* ---------------------------------------------------------------- results (receipt sections) */

export interface FormalSections {
  obligations: Obligations;
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
  /**
   * Set only when the checker itself rejected the candidate (coqc refused an obligation or the module
   * type, or a compiled observation differed), never for a timeout, a cancel or a tool failure: what
   * package qualification counts as a detected mutant.
   */
  rejectedBy?: Rejection;
}

/** What rejected a candidate: a named obligation, or the observations that differed. */
export interface Rejection {
  kind: 'obligation' | 'observation';
  name: string;
}

/* ---------------------------------------------------------------- profiles (src/formal/profiles/*) */

/** Where and how any profile run happens: a formal profile's and a model-checking profile's alike. */
export interface RunSetting {
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

export interface ProfileContext extends RunSetting {
  component: ResolvedComponent;
  pkg: MathPackage;
  /**
   * Work the runs of one job may share (a qualification checks a reference and its mutants against
   * one package): absent, a run does all of its work itself.
   */
  shared?: SharedWork;
}

/**
 * A memo for the runs of one job: `make` runs once per key, in a fresh host directory writable by
 * the containers (uid 65534) that lives until the job's runs are all done; every run asking for the
 * key gets the same result. A profile keys it by everything the work depends on.
 */
export interface SharedWork {
  once<T>(key: string, make: (dir: string) => Promise<T>): Promise<T>;
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
export type FormalCheckAttrs = ResolvedComponent & { candidate?: CandidateSelection };
