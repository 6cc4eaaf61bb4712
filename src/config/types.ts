/**
 * What users write (`UserConfig`) and what flows inward after defaults (`ResolvedConfig`, the
 * schema_version 3 manifest). Only resolved values reach the graph, the engine and the rules.
 */
import type { Rule, SandboxMode } from './rule.js';

/** A registered check: a command whose exit code is evidence about the declared inputs. */
export interface CheckConfig {
  /** Stable id; the gate item is `check:<id>`. Letters, digits, `.`, `_`, `-`. */
  id: string;
  /** argv array (run directly) or a shell string (run with `/bin/sh -c`). */
  run: string[] | string;
  /** Globs relative to the root naming every file the check reads. Required, non-empty; each must match a file. `!glob` excludes. */
  inputs: string[];
  /** Working directory relative to the root. @default "." */
  cwd?: string;
  /** Checks that must pass first; their results enter this check's key. @default [] */
  after?: string[];
  /** Globs relative to the root of files the check writes, retained as artifacts. @default [] */
  outputs?: string[];
  /** Wall-clock limit; a check that exceeds it is killed and BLOCKED. @default 600 */
  timeout_s?: number;
  /** Names of environment variables passed through; their value digests enter the key. @default [] */
  env?: string[];
  /** What counts as PASS. @default { exit_code: 0 } */
  expect?: { exit_code?: number };
  /**
   * How the check runs (README, "Sandbox"): `isolated` (store and `.git` read-only, private `/tmp`,
   * own PID namespace), `hermetic` (only its captured inputs, output directories and tool), or
   * `{ none: "why" }` to run it unsandboxed. @default the config's `sandbox`, else "isolated"
   */
  sandbox?: SandboxMode;
  /**
   * How the key sees text inputs: `normalise` hashes them with CRLF -> LF (an input turning CRLF
   * reuses the evidence), `raw` hashes their bytes (for a check whose verdict depends on line
   * endings, such as a "no CRLF" lint). @default "normalise"
   */
  line_endings?: 'normalise' | 'raw';
}

/** A formal component, as the reference describes it (checked by the formal issue). */
export interface ComponentConfig {
  id: string;
  package: { id: string; version: string; sha256: string };
  contract: string;
  source: { entry: string };
  profile: string;
  parameters?: Record<string, unknown>;
  bindings: Record<string, string>;
  representation?: string;
  /** Only required components change the gate. @default true */
  required?: boolean;
  /** Globs (root-relative) of every file the check reads: source, specification, configuration and trusted dependencies. Required, non-empty; the formal capture is exactly these files' raw bytes. */
  inputs: string[];
}

/** A node of a user-registered rule kind. */
export interface ActionConfig {
  id: string;
  /** The `kind` of a rule in `rules`. */
  rule: string;
  inputs: string[];
  after?: string[];
  /** Checked by the rule's own `attrs` schema. @default {} */
  attrs?: Record<string, unknown>;
}

/** A finite model comparison required to give `expect`. */
export interface CompareConfig {
  /** Stable id; the gate item is `compare:<id>`. */
  id: string;
  /** Path, relative to the root, of a `vkit model compare` request file. */
  request: string;
  expect: 'equivalent' | 'different';
}

/** An acceptance record checked as a graph action (see AcceptanceSchema). */
export interface AcceptanceConfig {
  /** Stable id; the gate item is `accept:<id>`. */
  id: string;
  /** Directory the paths inside the documents are relative to, as `--root`. @default "." */
  root?: string;
  /** The documents, relative to the project root. */
  spec: string;
  package: string;
  decision: string;
  /** Acceptor name -> directory of accepted libraries. @default {} */
  acceptors?: Record<string, string>;
  /** `COMMIT=DIR`: where the subject commit's bytes can be read. */
  tree?: string;
  /** Accept `accepted-with-conditions` decisions. @default false */
  allow_conditions?: boolean;
  /** Run every claim's self_verify command, each as its own cached `self-verify` item `accept:<id>/run:<claim>`. @default false */
  run_commands?: boolean;
  /** Globs the action reads; derived from the documents when absent. */
  inputs?: string[];
}

export interface ResolvedAcceptance extends Required<Omit<AcceptanceConfig, 'tree' | 'inputs'>> {
  tree?: string;
  inputs?: string[];
  /** Derived when the workspace opens, never part of the policy digest: the nodes the record expands into. */
  expansion?: AcceptanceExpansion;
}

/** A node an acceptance record expands into: one library's own acceptance, or one claim's self_verify run. */
export interface AcceptanceNode {
  /** `accept:<id>/<crate>`, `accept:<id>/run:<claim id>`. */
  label: string;
  kind: string;
  id: string;
  attrs: Record<string, unknown>;
  /** Root-relative globs, captured raw. */
  inputs: string[];
  /** Labels this node depends on. */
  after: string[];
}

export interface AcceptanceExpansion {
  nodes: AcceptanceNode[];
  /** Labels the record's own `accept:<id>` node depends on. */
  after: string[];
}

export interface UserConfig {
  /** The sandbox of every check that does not name its own. @default "isolated" */
  sandbox?: SandboxMode;
  checks?: CheckConfig[];
  formal?: { components?: ComponentConfig[] };
  /** User rules, made with `defineRule`. */
  rules?: Rule[];
  /** Nodes of user rule kinds. */
  actions?: ActionConfig[];
  /** Model comparisons; each is required. */
  compare?: CompareConfig[];
  /** Acceptance records; each is required. */
  acceptance?: AcceptanceConfig[];
}

export interface ResolvedCheck {
  id: string;
  run: string[] | string;
  inputs: string[];
  cwd: string;
  after: string[];
  outputs: string[];
  timeout_s: number;
  env: string[];
  expect: { exit_code: number };
  sandbox: SandboxMode;
  /** Absent means `normalise`, so manifests (and the policy digest) without it read as before. */
  line_endings?: 'normalise' | 'raw';
}

export interface ResolvedComponent extends Omit<ComponentConfig, 'required' | 'parameters'> {
  parameters: Record<string, unknown>;
  required: boolean;
}

export interface ResolvedAction {
  id: string;
  rule: string;
  inputs: string[];
  after: string[];
  attrs: Record<string, unknown>;
}

/** A user rule as the manifest records it: never a function. */
export interface RuleRecord {
  kind: string;
  version: number;
  source_sha256: string;
}

/** The manifest, schema_version 3. Its canonical digest is the policy digest. */
export interface Manifest {
  schema_version: 3;
  checks: ResolvedCheck[];
  formal: { components: ResolvedComponent[] };
  rules: RuleRecord[];
  actions: ResolvedAction[];
  compare: CompareConfig[];
  acceptance: ResolvedAcceptance[];
  /** Sections of kinds beyond the built-in ones (`src/config/kind.ts`). */
  [section: string]: unknown;
}
