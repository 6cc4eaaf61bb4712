/**
 * Runs the lifecycle model's checks through `npm run model:lifecycle`'s script (spin -a, gcc, pan in
 * a temp dir) and parses its summary lines. Also decides what a test does when spin or gcc is
 * missing: skip loudly, or fail when `VKIT_REQUIRE_SYSTEM=1` (as CI runs).
 */
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './repo.js';

/** The compiled zx script (scripts/check-lifecycle-model.ts). */
const CHECK_SCRIPT = join(REPO_ROOT, 'dist', 'scripts', 'check-lifecycle-model.js');

export interface ModelCheck {
  check: string;
  errors: number;
  states: number;
  transitions: number;
  depth: number;
  seconds: number;
  /** False when pan stopped early (memory or depth limit): then 0 errors proves nothing. */
  complete: boolean;
  /** pan's own output for this check. */
  output: string;
}

export interface CheckOptions {
  /** Model macros, e.g. `BUG_RECOVER_LIVE`. */
  defines?: string[];
  /** gcc optimisation level for pan: 0 compiles fastest, 1 runs a full search faster. @default 1 */
  opt?: 0 | 1 | 2;
  /** pan processes at once. @default 1 */
  jobs?: number;
}

/** The system tools the model checks need that are not on PATH. */
function missingTools(): string[] {
  return ['spin', 'gcc'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
}

/**
 * `{ skip }` options for a test that needs spin and gcc: a skip naming the setup script when they
 * are missing, or, under `VKIT_REQUIRE_SYSTEM=1`, no skip at all (the test then fails in `requireTools`).
 */
export function toolsSkip(): { skip: string | false } {
  const missing = missingTools();
  if (missing.length === 0 || process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false };
  const reason = `${missing.join(' and ')} not on PATH: run \`npm run setup:system\` to install them (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)`;
  process.stderr.write(`SKIP lifecycle model: ${reason}\n`);
  return { skip: reason };
}

/** Throws when spin or gcc is missing: what a test does when it must not be skipped. */
export function requireTools(): void {
  const missing = missingTools();
  if (missing.length > 0)
    throw new Error(
      `Expected spin and gcc on PATH (VKIT_REQUIRE_SYSTEM=1), missing ${missing.join(', ')}: run \`npm run setup:system\``,
    );
}

/** Runs the named checks (ltl block names, or `end-states`) on one variant of the model. */
export function checkModel(checks: string[], opts: CheckOptions = {}): Promise<ModelCheck[]> {
  const args = [CHECK_SCRIPT, '-O', String(opts.opt ?? 1), '-j', String(opts.jobs ?? 1)];
  for (const d of opts.defines ?? []) args.push('-D', d);
  args.push(...checks);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(
          new Error(
            `check-lifecycle-model ${args.slice(1).join(' ')} failed (${error.message.trim()}): ${stderr.trim()}`,
          ),
        );
        return;
      }
      try {
        resolve(parseChecks(stdout, checks));
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** Parses the script's output: one `=== NAME` block of pan output and one summary line per check. */
function parseChecks(stdout: string, checks: string[]): ModelCheck[] {
  const blocks = new Map<string, string>();
  let current: string | undefined;
  const summaries = new Map<string, Record<string, string>>();
  for (const line of stdout.split('\n')) {
    const header = /^=== (\S+)$/.exec(line);
    if (header) {
      current = header[1]!;
      blocks.set(current, '');
      continue;
    }
    if (line.startsWith('lifecycle-model: ')) {
      const fields = Object.fromEntries(
        line
          .slice('lifecycle-model: '.length)
          .split(' ')
          .map((kv) => kv.split('=') as [string, string]),
      );
      summaries.set(fields.check!, fields);
      current = undefined;
      continue;
    }
    if (current !== undefined) blocks.set(current, `${blocks.get(current)! + line}\n`);
  }
  return checks.map((check) => {
    const s = summaries.get(check);
    if (!s)
      throw new Error(
        `Expected a summary line for check \`${check}\` in the script's output, got:\n${stdout.slice(-2000)}`,
      );
    return {
      check,
      errors: Number(s.errors),
      states: Number(s.states),
      transitions: Number(s.transitions),
      depth: Number(s.depth),
      seconds: Number(s.seconds),
      complete: s.complete === 'yes',
      output: blocks.get(check) ?? '',
    };
  });
}

/** The lifecycle model's ltl properties. */
export const PROPERTIES = [
  'no_pass_without_completed_attempt',
  'one_publication_per_run',
  'recovery_spares_live_workers',
  'cancel_stays_in_its_run',
  'ended_stays_ended',
] as const;

/** Each seeded bug, and the check that must catch it. */
export const BUGS: Array<[define: string, check: (typeof PROPERTIES)[number] | 'end-states', what: string]> = [
  [
    'BUG_PUBLISH_BEFORE_FINISH',
    'no_pass_without_completed_attempt',
    'cachePut before finishAttempt publishes a running attempt',
  ],
  [
    'BUG_PUBLISH_IGNORES_FINISH',
    'one_publication_per_run',
    'cachePut after a lost finishAttempt publishes a cancelled run',
  ],
  ['BUG_FINISH_BEFORE_RECEIPT', 'no_pass_without_completed_attempt', 'a PASS run whose receipt is not written yet'],
  ['BUG_NONATOMIC_FINISH', 'one_publication_per_run', 'a late finisher overwrites a cancellation and publishes'],
  ['BUG_NONATOMIC_CLAIM', 'one_publication_per_run', 'two workers claim one run and both publish'],
  ['BUG_CACHE_BLOCKED', 'no_pass_without_completed_attempt', 'a BLOCKED receipt is published'],
  ['BUG_HIT_NO_VERIFY', 'no_pass_without_completed_attempt', 'a hit on a damaged receipt'],
  ['BUG_RECOVER_LIVE', 'recovery_spares_live_workers', 'recovery on a stale heartbeat alone interrupts a live worker'],
  [
    'BUG_CANCEL_KILLS_WORKER',
    'cancel_stays_in_its_run',
    "cancel kills the worker pid it read, now busy with another run's attempt",
  ],
  ['BUG_WAIT_WITHOUT_RECOVERY', 'end-states', 'a face waits forever on a run whose worker was lost'],
];
