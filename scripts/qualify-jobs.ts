/**
 * `npm run qualify:jobs`: runtime qualification of the job lifecycle through the production API and
 * real processes. Each scenario prints what it observed; any inconsistency makes the exit code 1.
 * This is observational evidence of the runs it made, nothing more: it does not establish every
 * interleaving (the Promela model in fixtures/lifecycle covers an abstraction of those).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../rules/index.js';
import { installKinds } from '../src/config/kind.js';
import { openWorkspace, type Workspace } from '../src/service/index.js';
import { Store, STALE_HEARTBEAT_NS, wallClockNs } from '../src/store/store.js';
import type { Job } from '../src/jobs/job.js';
import { runEngine } from '../src/engine/build.js';

installKinds(registry);

const VKIT = fileURLToPath(new URL('../../bin/vkit.js', import.meta.url));
const RANDOM_ROUNDS = Number(process.env.QUALIFY_ROUNDS ?? 12);

interface Row {
  scenario: string;
  observed: string;
  ok: boolean;
}
const rows: Row[] = [];

function record(scenario: string, observed: string, ok: boolean): void {
  rows.push({ scenario, observed, ok });
  process.stderr.write(`${ok ? 'ok  ' : 'FAIL'} ${scenario}: ${observed}\n`);
}

function repo(checks: Array<{ id: string; code: string }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-qualify-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  writeFileSync(
    join(dir, 'vkit.manifest.json'),
    JSON.stringify({ checks: checks.map((c) => ({ id: c.id, run: ['node', '-e', c.code], inputs: ['a.txt'] })) }),
  );
  return dir;
}

/** The job the engine would submit for `label`, planned by the engine's own code path and not run. */
async function plannedJob(ws: Workspace, label: string): Promise<Job> {
  let job: Job | undefined;
  const jobs = ws.jobs;
  const original = jobs.run.bind(jobs);
  jobs.run = (j: Job) => {
    job = j;
    return Promise.resolve({
      run: '',
      attempt: '',
      receipt: '',
      outcome: 'BLOCKED' as const,
      reason: 'planned only',
      artifacts: [],
      cached: false,
      ms: 0,
    });
  };
  try {
    await runEngine(ws, { mode: 'build', only: [label], fresh: [label], jobs: 1 });
  } finally {
    jobs.run = original;
  }
  if (!job) throw new Error(`the engine planned no job for ${label}`);
  return job;
}

async function concurrentAttempts(): Promise<void> {
  const dir = repo([{ id: 'same', code: 'setTimeout(() => {}, 300)' }]);
  try {
    // Two faces, two stores handles, two detached worker pools: the same job submitted at once.
    const [a, b] = await Promise.all([openWorkspace({ root: dir }), openWorkspace({ root: dir })]);
    const job = await plannedJob(a, 'check:same');
    const [ra, rb] = await Promise.all([a.jobs.run(job), b.jobs.run(job)]);
    const published = a.store.actions.cacheGet(job.key);
    const ok =
      ra.outcome === 'PASS' &&
      rb.outcome === 'PASS' &&
      ra.run !== rb.run &&
      (published === ra.receipt || published === rb.receipt);
    record(
      'concurrent attempts of one job (two services)',
      `runs ${ra.run.slice(-6)}/${rb.run.slice(-6)} both ${ra.outcome}; cache names one of their receipts`,
      ok,
    );
    a.close();
    b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function forcedRace(order: 'cancel-first' | 'complete-first'): Promise<void> {
  const dir = repo([{ id: 'race', code: '0' }]);
  try {
    let run = '';
    let cancelling: Promise<unknown> | undefined;
    let hookRan = false;
    const ws: Workspace = await openWorkspace({
      root: dir,
      hooks: {
        afterExecute: () => {
          hookRan = true;
          if (order === 'cancel-first') cancelling = ws.jobs.cancel(run);
        },
      },
    });
    const job = await plannedJob(ws, 'check:race');
    run = ws.jobs.submit(job).run;
    await ws.jobs.wait(run, 30_000);
    if (order === 'complete-first') cancelling = ws.jobs.cancel(run);
    await cancelling;
    const row = ws.store.lifecycle.getRun(run)!;
    const cached = ws.store.actions.cacheGet(job.key);
    const winner = row.state === 'done' ? 'completion' : row.reason === 'cancelled' ? 'cancellation' : `?${row.state}`;
    const expected = order === 'cancel-first' ? 'cancellation' : 'completion';
    const consistent = winner === 'completion' ? cached === row.receipt : cached === undefined;
    record(
      `cancel vs completion, forced ${order}`,
      hookRan
        ? `${winner} won (${row.state} ${row.outcome}${row.reason ? ` ${row.reason}` : ''})`
        : 'the forced order could not be produced',
      hookRan && winner === expected && consistent,
    );
    ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function randomRaces(): Promise<void> {
  const dir = repo([{ id: 'race', code: 'setTimeout(() => {}, 40)' }]);
  let cancels = 0;
  let completions = 0;
  let bad = 0;
  try {
    const ws = await openWorkspace({ root: dir });
    const job = await plannedJob(ws, 'check:race');
    for (let i = 0; i < RANDOM_ROUNDS; i++) {
      // The publication pointer: a completion publishes its own receipt; a cancellation leaves it as it was.
      const publishedBefore = ws.store.actions.cacheGet(job.key);
      const { run } = ws.jobs.submit(job);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 250)));
      await ws.jobs.cancel(run);
      await ws.jobs.wait(run, 30_000);
      const row = ws.store.lifecycle.getRun(run)!;
      const attempts = ws.store.lifecycle.attemptsOf(run);
      const published = ws.store.actions.cacheGet(job.key);
      if (
        row.state === 'done' &&
        row.outcome === 'PASS' &&
        attempts.every((a) => a.state === 'done') &&
        published === row.receipt
      )
        completions++;
      else if (
        row.state === 'interrupted' &&
        row.reason === 'cancelled' &&
        attempts.every((a) => a.state !== 'running' && a.state !== 'done') &&
        published === publishedBefore
      )
        cancels++;
      else bad++;
    }
    ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  record(
    `cancel vs completion, left to chance (${RANDOM_ROUNDS} rounds)`,
    `${completions} completions, ${cancels} cancellations, ${bad} inconsistent`,
    bad === 0,
  );
}

async function workerLoss(): Promise<void> {
  const dir = repo([{ id: 'lost', code: 'setTimeout(() => {}, 60000)' }]);
  try {
    const ws = await openWorkspace({ root: dir });
    const job = await plannedJob(ws, 'check:lost');
    const { run } = ws.jobs.submit(job);
    let attempt = ws.store.lifecycle.runningAttempt(run);
    for (let i = 0; i < 200 && !attempt?.child_pgid; i++) {
      await new Promise((r) => setTimeout(r, 50));
      attempt = ws.store.lifecycle.runningAttempt(run);
    }
    if (!attempt) throw new Error('the attempt never started');
    process.kill(attempt.pid, 'SIGKILL');
    if (attempt.child_pgid) process.kill(-attempt.child_pgid, 'SIGKILL');
    const before = ws.store.lifecycle.getRun(run)!.state;
    const { run: row } = await ws.jobs.wait(run, 20_000);
    record(
      'worker loss (SIGKILL mid-attempt)',
      `state ${before} while the heartbeat was fresh, then ${row.state} ${row.outcome} (${row.reason})`,
      before === 'running' &&
        row.state === 'interrupted' &&
        row.outcome === 'BLOCKED' &&
        ws.store.actions.cacheGet(job.key) === undefined,
    );
    ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function recoveryRespectsLiveWorkers(): Promise<void> {
  const dir = repo([{ id: 'live', code: 'setTimeout(() => {}, 1500)' }]);
  try {
    const ws = await openWorkspace({ root: dir });
    const job = await plannedJob(ws, 'check:live');
    const { run } = ws.jobs.submit(job);
    for (let i = 0; i < 100 && ws.store.lifecycle.getRun(run)!.state !== 'running'; i++)
      await new Promise((r) => setTimeout(r, 20));
    // Another opener with its clock 11 s ahead: the heartbeat looks stale, but the worker is alive.
    const later = wallClockNs() + STALE_HEARTBEAT_NS + 1_000_000_000n;
    const other = new Store(ws.store.dir, { now: () => later });
    const recovered = other.recovered.length;
    other.close();
    const { run: row } = await ws.jobs.wait(run, 20_000);
    record(
      'recovery never interrupts a live worker',
      `recovered ${recovered}; the run ended ${row.state} ${row.outcome}`,
      recovered === 0 && row.state === 'done' && row.outcome === 'PASS',
    );
    ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function retry(): Promise<void> {
  const dir = repo([{ id: 'r', code: '0' }]);
  try {
    const ws = await openWorkspace({ root: dir });
    const job = await plannedJob(ws, 'check:r');
    const first = await ws.jobs.run(job);
    const { run } = ws.jobs.retry(first.run);
    const { run: row } = await ws.jobs.wait(run, 20_000);
    record(
      'retry',
      `new run ${row.id !== first.run ? 'distinct' : 'SAME'}, same job ${row.job === job.key}, ${row.outcome}`,
      row.id !== first.run && row.job === job.key && row.outcome === 'PASS',
    );
    ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function cliAndMcpOnOneStore(): Promise<void> {
  const dir = repo([
    { id: 'x', code: 'setTimeout(() => {}, 200)' },
    { id: 'y', code: 'setTimeout(() => {}, 200)' },
  ]);
  try {
    const hasMcp = spawnSync(process.execPath, [VKIT, 'mcp', '--help'], { encoding: 'utf8' }).status === 0;
    if (!hasMcp) {
      record('a CLI build and two MCP servers on one store', 'vkit mcp is not available in this build', false);
      return;
    }
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const client = async () => {
      const c = new Client({ name: 'qualify', version: '1' });
      await c.connect(
        new StdioClientTransport({ command: process.execPath, args: [VKIT, 'mcp', '--root', dir], stderr: 'ignore' }),
      );
      return c;
    };
    const [c1, c2] = await Promise.all([client(), client()]);
    const cli = new Promise<number | null>((resolve) =>
      spawn(process.execPath, [VKIT, 'build', '--root', dir], { stdio: 'ignore' }).on('exit', resolve),
    );
    const call = (c: InstanceType<typeof Client>, name: string, args: Record<string, unknown>) =>
      c.callTool({ name, arguments: args }) as Promise<{ isError?: boolean; content: Array<{ text: string }> }>;
    const [r1, r2, code] = await Promise.all([
      call(c1, 'build', { wait_s: 50 }),
      call(c2, 'verify', { check: 'y', wait_s: 50 }),
      cli,
    ]);
    const g = JSON.parse((await call(c1, 'gate', {})).content[0]!.text) as { status: string };
    await Promise.all([c1.close(), c2.close()]);
    // A tool error is shown with its own text, so a failing row says what went wrong.
    const said = (r: { isError?: boolean; content: Array<{ text: string }> }) =>
      r.isError ? `error (${r.content[0]?.text.slice(0, 300)})` : 'ok';
    record(
      'a CLI build and two MCP servers on one store',
      `CLI exit ${code}, MCP build ${said(r1)}, MCP verify ${said(r2)}, gate ${g.status}`,
      code === 0 && !r1.isError && !r2.isError && g.status === 'READY',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await concurrentAttempts();
  await forcedRace('cancel-first');
  await forcedRace('complete-first');
  await randomRaces();
  await workerLoss();
  await recoveryRespectsLiveWorkers();
  await retry();
  await cliAndMcpOnOneStore();
  const width = Math.max(...rows.map((r) => r.scenario.length));
  process.stdout.write(`\n${'scenario'.padEnd(width)}  result  observed\n${'-'.repeat(width)}  ------  --------\n`);
  for (const r of rows)
    process.stdout.write(`${r.scenario.padEnd(width)}  ${r.ok ? 'ok    ' : 'FAIL  '}  ${r.observed}\n`);
  const failed = rows.filter((r) => !r.ok).length;
  process.stdout.write(`\n${failed === 0 ? 'all scenarios consistent' : `${failed} inconsistent scenario(s)`}\n`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`qualify:jobs crashed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
