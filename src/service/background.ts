/**
 * Builds a long-lived face (the MCP server) starts in the background: `start` returns a build id at
 * once and the build goes on in this process; `wait` answers with the report when it is done, or says
 * it is still running when a bounded wait ends first. The map is this process's memory only: the runs
 * a build submits are in the store like any other run, so every process sees those, but the build id
 * itself means something only to the server that started it.
 */
import type { BuildReport } from '../engine/schema.js';
import { invalid } from '../errors.js';
import type { BackgroundWork } from '../kit/host.js';
import { newId } from '../store/store.js';
import { build, type BuildRequest, type OpenOptions } from './index.js';

/** Still running, or the work's result: a build's report, or what a kind's work (a qualification) answered. */
export type BackgroundAnswer = { build: string; state: 'running' } | BuildReport | object;

interface Entry {
  id: string;
  settled: Promise<void>;
  outcome?: { report: object } | { error: unknown };
}

/** Finished builds kept for a later `wait`; older ones are forgotten first. */
const KEEP_FINISHED = 64;

export class BackgroundBuilds implements BackgroundWork {
  private readonly entries = new Map<string, Entry>();

  /** True for ids this kind of helper hands out (`build_...`), whether or not this process knows them. */
  static isBuildId(id: string): boolean {
    return id.startsWith('build_');
  }

  /** Starts a build and returns its id without waiting. A failure is kept for `wait` to rethrow. */
  start(open: OpenOptions, req: BuildRequest): { build: string; state: 'running' } {
    return this.startWork(build(open, req));
  }

  /** Tracks a kind's work the same way (a package qualification): its id is a build id too, so `run_wait` waits on it. */
  startWork(work: Promise<object>): { build: string; state: 'running' } {
    const id = newId('build', BigInt(Date.now()) * 1_000_000n);
    const entry: Entry = { id, settled: Promise.resolve() };
    entry.settled = work
      .then(
        (report) => {
          entry.outcome = { report };
        },
        (error: unknown) => {
          entry.outcome = { error };
        },
      )
      .finally(() => this.forgetOld());
    this.entries.set(id, entry);
    return { build: id, state: 'running' };
  }

  /**
   * Waits up to `timeoutMs` for a build: its report when done, `{build, state: 'running'}` when the
   * wait ends first (the build goes on). A build that failed rethrows its error here.
   */
  async wait(id: string, timeoutMs: number): Promise<BackgroundAnswer> {
    const entry = this.entries.get(id);
    if (!entry) {
      throw invalid(
        'ERR_USAGE',
        `No background build \`${id}\` in this server`,
        { path: 'run' },
        'A build id is known only to the MCP server that started it, and finished builds are forgotten after a while; list the runs with runs_list.',
      );
    }
    if (!entry.outcome && timeoutMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([entry.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    }
    if (!entry.outcome) return { build: id, state: 'running' };
    if ('error' in entry.outcome) throw entry.outcome.error;
    return entry.outcome.report;
  }

  /** Builds still going, for a face that wants to let them settle before it exits. */
  running(): Promise<void>[] {
    return [...this.entries.values()].filter((e) => !e.outcome).map((e) => e.settled);
  }

  private forgetOld(): void {
    const finished = [...this.entries.values()].filter((e) => e.outcome);
    for (const e of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.entries.delete(e.id);
  }
}
