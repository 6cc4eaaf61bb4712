/**
 * A job: the serialisable, content-derived description of one action. Its identity (the action key)
 * covers the rule kind and version, the node's own definition, its input capture, the value digests
 * of its declared environment, its checker identity and its dependencies' results; never host paths,
 * run ids or timings. A worker re-plans a job from the rule registry and refuses one whose key no
 * longer matches what it would compute.
 */
import type { CapturedFile, CheckerIdentity, DepResult } from '../config/rule.js';
import { jsonId, sha256Id } from '../hash/index.js';

/** Which rule plans an action. `source` is set for user rules: the digest of the config's module graph. */
export interface RuleIdentity {
  kind: string;
  version: number;
  source?: string;
}

export interface Job {
  schema: 'vkit.job/1';
  key: string;
  label: string;
  rule: RuleIdentity;
  id: string;
  attrs: Record<string, unknown>;
  /** Identity only: host-specific stat fingerprints are taken by the worker, never frozen. */
  /** `hash: 'raw'` when the capture kept CRLF bytes (acceptance); the worker re-hashes the same way. */
  /** `selector`: the input globs the files were selected with (not in the key): the worker selects again after the run, so a file that starts matching meanwhile is seen. */
  capture: { digest: string; files: CapturedFile[]; hash?: 'raw'; selector?: string[] };
  checker?: CheckerIdentity;
  deps: DepResult[];
  /** Whole-policy digest, recorded for provenance; not part of the key. */
  policy: string;
  /**
   * The environment variable names the job declares, sorted (their value digests are in the key):
   * the only ones its worker is given. Jobs frozen by earlier vkits lack it (read as none: such a
   * job's worker then refuses it as re-identified if it declared any).
   */
  env: string[];
}

export interface KeyMaterial {
  rule: RuleIdentity;
  capture: string;
  definition: Record<string, unknown>;
  env: Record<string, string | null>;
  checker: CheckerIdentity | null;
  deps: DepResult[];
}

export function actionKey(m: KeyMaterial): string {
  return jsonId({ schema: 'vkit.action-key/1', ...m, deps: [...m.deps].sort((a, b) => (a.label < b.label ? -1 : 1)) });
}

/** Value digests of declared variables, read from `env`. Unset is `null`, distinct from empty. */
export function envDigests(names: readonly string[], env: NodeJS.ProcessEnv): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const name of [...names].sort()) out[name] = env[name] === undefined ? null : sha256Id(env[name]!);
  return out;
}

/** What a dependency contributes to a dependent's key: its result digest material. */
export function depResult(
  label: string,
  key: string,
  outcome: DepResult['outcome'],
  artifacts: Array<{ name: string; sha256: string }>,
): DepResult {
  return { label, key, outcome, artifacts: artifacts.map((a) => ({ name: a.name, sha256: a.sha256 })) };
}

/**
 * The environment a worker process starts with: what vkit itself needs (PATH and HOME to find and
 * run tools, the temp and cache directories, vkit's own `VKIT_*` settings) plus the variables its
 * queue's jobs declare, and nothing else. A check can read its parent's environment through
 * `/proc/$PPID/environ`, so an undeclared secret of the vkit command must never reach a worker.
 */
export function workerEnv(env: NodeJS.ProcessEnv, declared: readonly string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (WORKER_NEEDS.has(name) || name.startsWith('VKIT_')) out[name] = value;
  for (const name of declared) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

const WORKER_NEEDS = new Set(['PATH', 'HOME', 'TMPDIR', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR']);
