/**
 * Waiting for a no-op record (D51) in tests. A command keeps a record only when every path its
 * answer stands on was settled (older than the racy window, 2 s) when it started, so a test that
 * wants a recalled answer runs the command again until one comes. It waits the window out only after
 * a run that kept no record (with `VKIT_NOOP_DEBUG=1` such a run says `no-op record: <why>`): after
 * one that kept it, waiting changes nothing the record stands on, so the next run is tried at once.
 */
import type { CliResult } from './repo.js';
import { sleep } from './wait.js';

/** Past the racy window: what was written before it is settled, and may be recorded. */
export const SETTLE_MS = 2100;

/** Whether a run made with `VKIT_NOOP_DEBUG=1` kept no record (it said why). */
export function keptNoRecord(stderr: string): boolean {
  return /^no-op record: /m.test(stderr);
}

/**
 * Whether a run made with `VKIT_NOOP_DEBUG=1` kept no record because a path it stands on had changed
 * less than the racy window before it: the one refusal that waiting can turn into a record. A test
 * that a record is never kept for another reason (a config reading its environment) waits only then:
 * were that reason wrongly let through, the run would keep a record or refuse for this one instead.
 */
export function refusedUnsettled(stderr: string): boolean {
  return /^no-op record: .*less than the racy window/m.test(stderr);
}

/**
 * Runs `attempt` (its environment must hold `VKIT_NOOP_DEBUG=1`) until its answer is recalled, at
 * most `tries` times, waiting out the racy window after each run that `waitAfter` says needs it (by
 * default each run that kept no record). Returns the last attempt.
 */
export async function retryUntilRecalled<T extends { r: CliResult; recalled: boolean }>(
  attempt: () => T,
  tries: number,
  waitAfter: (stderr: string) => boolean = keptNoRecord,
): Promise<T> {
  let last = attempt();
  for (let i = 1; i < tries && !last.recalled; i++) {
    if (waitAfter(last.r.stderr)) await sleep(SETTLE_MS);
    last = attempt();
  }
  return last;
}
