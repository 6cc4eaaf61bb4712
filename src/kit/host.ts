/**
 * What the core lends a kind's verbs and tools beyond their arguments: a few named operations on
 * projects (where a command works, accepting a project's policy, building it) and the MCP server's
 * background work. A kind never imports the service or the engine (dependency-cruiser's
 * `kind-through-registry`); it asks for exactly these, handed in by the face that runs it
 * (`src/service/kind-host.ts` implements them). Types only: nothing here loads the service.
 */
import type { Outcome } from '../config/evidence-terms.js';

/** A project vkit can open: its root, and the store and environment to open it with. */
export interface ProjectPlace {
  root: string;
  /** Store directory; default the root's (`<git common dir>/vkit`, or `<root>/.vkit` without git). */
  store?: string;
  env?: NodeJS.ProcessEnv;
}

/** One action of a build as the engine reported it, with its receipt read back from the store. */
export interface BuiltAction {
  label: string;
  outcome: Outcome;
  reason: string | null;
  run: string | null;
  receipt: string | null;
  /** The receipt's subject when it reads intact; otherwise why it does not (a receipt not intact stands for nothing). */
  read: { state: 'intact'; subject: unknown } | { state: 'missing' | 'altered' } | null;
}

export interface KindHost {
  /** The root a command without `--root` works in: the nearest directory up from here holding a vkit config. */
  defaultRoot(): string;
  /** The evidence store of `root` when no `--store` is given. */
  defaultStoreDir(root: string): Promise<string>;
  /** `vkit policy accept` at a project, its acceptances dated `at`: each entry it refused, with why. */
  accept(project: ProjectPlace, at: Date): Promise<Array<{ key: string; reasons: string[] }>>;
  /** One `vkit build` of a project (every job in the restricted worker): its actions, receipts read back. */
  build(project: ProjectPlace, opts: { signal?: AbortSignal }): Promise<BuiltAction[]>;
}

/**
 * Work a long-lived face (the MCP server) runs in the background: `startWork` answers at once with
 * an id, which `wait` (and the `run_wait` tool) answers with the work's result when it ends.
 */
export interface BackgroundWork {
  startWork(work: Promise<object>): { build: string; state: 'running' };
  wait(id: string, timeoutMs: number): Promise<object>;
}
