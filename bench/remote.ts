/**
 * `npm run bench:remote [-- --packages N] [--check-ms MS] [--runs R] [--cold-runs C] [--keep]`: filling a fresh machine from
 * a warm shared cache, vkit beside turbo 2.11. One generated workspace (default 1,000 checks, each
 * waiting 100 ms after reading its package's ten files) is built once on "machine A" by each tool
 * with its remote cache on: vkit signs and uploads to nginx (Bazel's HTTP protocol), turbo uploads
 * to `turborepo-remote-cache` (local storage). Then, R times, alternating which tool goes first:
 * machine B (a fresh clone with an empty store) builds with the warm remote, for vkit with every
 * signature, statement digest and blob digest verified and each receipt's full shape checked; and vkit's
 * cold local build of a fresh clone (no remote) for the ratio (the first C rounds; default 1). After
 * each heavy phase (the cold builds) it waits for the machine to settle (`sync`, load under 1.5,
 * at most 2 minutes) before filling. Prints the medians; exits 0 (a
 * report), non-zero only when a build does not do what is measured (ran or cached counts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { keyFiles } from '../test/_support/keys.js';
import { freePort, startNginx } from '../test/_support/nginx.js';
import {
  generateWorkspace,
  git,
  log,
  median,
  must,
  NODE,
  REPO,
  round,
  sleep,
  TURBO,
  TURBO_ENV,
  timed,
  VKIT,
} from './workspace.js';

const { values } = parseArgs({
  options: {
    packages: { type: 'string', default: '1000' },
    'check-ms': { type: 'string', default: '100' },
    runs: { type: 'string', default: '3' },
    'cold-runs': { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const N = Number(values.packages);
const CHECK_MS = Number(values['check-ms']);
const RUNS = Number(values.runs);
const COLD_RUNS = Math.min(RUNS, Number(values['cold-runs']));
const TOKEN = 'bench-token';
const TEAM = 'bench';

/** `turborepo-remote-cache` on a loopback port, storing artifacts in a temp directory. */
async function startTurboCache(dir: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child: ChildProcess = spawn(NODE, [join(REPO, 'node_modules', 'turborepo-remote-cache', 'dist', 'cli.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      TURBO_TOKEN: TOKEN,
      STORAGE_PROVIDER: 'local',
      STORAGE_PATH: dir,
      STORAGE_PATH_USE_TMP_FOLDER: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${url}/v8/artifacts/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (res.ok) break;
    } catch {}
    if (child.exitCode !== null || i > 200) throw new Error('turborepo-remote-cache did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

interface VkitReport {
  gate: { status: string };
  stats: { ran: number; cached: number; remote_hits?: number };
}

function vkitBuild(ws: string, remote: string[], env: NodeJS.ProcessEnv = {}): { ms: number; report: VkitReport } {
  const t = must(
    timed(NODE, [VKIT, 'build', '--root', ws, '--store', join(ws, '.vkit-store'), '--json', ...remote], {
      cwd: ws,
      env: { ...process.env, VKIT_DAEMON: '0', VKIT_SIGNING_KEY: '', ...env },
    }),
    'vkit build',
  );
  const report = JSON.parse(t.r.stdout) as VkitReport;
  if (report.gate.status !== 'READY') throw new Error(`vkit gate ${report.gate.status}\n${t.r.stderr.slice(-2000)}`);
  return { ms: t.ms, report };
}

function turboRun(ws: string, api: string): { ms: number; cached: number } {
  const t = must(
    timed(TURBO, ['run', 'check', '--cache-dir=.turbo/cache', '--output-logs=errors-only'], {
      cwd: ws,
      env: { ...TURBO_ENV, TURBO_API: api, TURBO_TOKEN: TOKEN, TURBO_TEAM: TEAM },
    }),
    'turbo run',
  );
  const m = /Cached:\s+(\d+) cached, (\d+) total/.exec(t.r.stdout);
  if (!m || Number(m[2]) !== N) throw new Error(`cannot read turbo's summary:\n${t.r.stdout.slice(-2000)}`);
  return { ms: t.ms, cached: Number(m[1]) };
}

/**
 * Waits (at most `maxS`) until the machine has settled after a heavy phase: dirty pages written
 * back, the one-minute load under 1.5. A fill measured while turbo's cold build (every task through
 * `npm run`) still loads the machine was 2x slower for vkit, which writes more files, and less so
 * for turbo: the ratio then measures the leftovers, not the tools.
 */
function settle(maxS = 120): void {
  must(timed('sync', []), 'sync');
  const until = Date.now() + maxS * 1000;
  while (loadavg()[0]! >= 1.5 && Date.now() < until) sleep(5000);
  log(
    `settled: load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

/** A fresh clone of the workspace: another machine's checkout, its own (empty) store and caches. */
function machine(ws: string, root: string, name: string): string {
  const dir = join(root, name);
  must(timed('git', ['clone', '-q', '--no-hardlinks', ws, dir]), 'git clone');
  sleep(2100); // the clone's mtimes leave vkit's racy window, as any real checkout's have
  return dir;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'vkit-bench-remote-'));
  const nginx = await startNginx();
  const turboCache = await startTurboCache(join(root, 'turbo-cache'));
  try {
    const npmVersion = must(timed('npm', ['--version']), 'npm --version').r.stdout.trim();
    const ws = join(root, 'a');
    generateWorkspace(ws, N, npmVersion, CHECK_MS);
    // Machine A's signing key (outside the repository), trusted in the committed lock.
    const { key, pub } = keyFiles(root, 'a');
    must(timed(NODE, [VKIT, 'policy', 'trust-signer', pub, '--name', 'a'], { cwd: ws }), 'trust-signer');
    git(ws, ['add', '-A']);
    git(ws, ['commit', '-q', '-m', 'trust a']);
    sleep(2100);
    log(`workspace: ${N} checks of ${CHECK_MS} ms, nginx ${nginx.url}, turborepo-remote-cache ${turboCache.url}`);

    const a = vkitBuild(ws, ['--remote', nginx.url], { VKIT_SIGNING_KEY: key });
    if (a.report.stats.ran !== N) throw new Error(`machine A ran ${a.report.stats.ran}, expected ${N}`);
    log(`machine A, vkit cold build + signed upload: ${round(a.ms / 1000)} s`);
    const aTurbo = turboRun(ws, turboCache.url);
    if (aTurbo.cached !== 0) throw new Error(`turbo on A found ${aTurbo.cached} cached`);
    log(`machine A, turbo cold build + upload: ${round(aTurbo.ms / 1000)} s`);
    settle();
    const blobs = readdirSync(join(nginx.data, 'cas')).length;

    const fill = { vkit: [] as number[], turbo: [] as number[], cold: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      const sides = i % 2 ? (['turbo', 'vkit'] as const) : (['vkit', 'turbo'] as const);
      for (const side of sides) {
        const dir = machine(ws, root, `b-${side}-${i}`);
        if (side === 'vkit') {
          const b = vkitBuild(dir, ['--remote', nginx.url, '--remote-only-read']);
          if (b.report.stats.ran !== 0 || b.report.stats.remote_hits !== N)
            throw new Error(`vkit on B ran ${b.report.stats.ran}, ${b.report.stats.remote_hits} remote hits`);
          fill.vkit.push(b.ms);
        } else {
          const b = turboRun(dir, turboCache.url);
          if (b.cached !== N) throw new Error(`turbo on B: ${b.cached} cached of ${N}`);
          fill.turbo.push(b.ms);
        }
        log(
          `B (${side}) fill ${i + 1}/${RUNS}: ${round((side === 'vkit' ? fill.vkit : fill.turbo).at(-1)! / 1000, 2)} s`,
        );
        rmSync(dir, { recursive: true, force: true });
      }
      if (i >= COLD_RUNS) continue;
      const dir = machine(ws, root, `cold-${i}`);
      const cold = vkitBuild(dir, []);
      if (cold.report.stats.ran !== N) throw new Error(`the cold local build ran ${cold.report.stats.ran}`);
      fill.cold.push(cold.ms);
      log(`vkit cold local build ${i + 1}/${RUNS}: ${round(cold.ms / 1000)} s`);
      rmSync(dir, { recursive: true, force: true });
      settle();
    }
    const v = median(fill.vkit);
    const t = median(fill.turbo);
    const c = median(fill.cold);
    const load = loadavg();
    const out = [
      `bench:remote: ${N} checks of ${CHECK_MS} ms (node check.js), medians of ${RUNS} (cold local: ${COLD_RUNS}); ${blobs} blobs on the vkit remote; load ${load.map((x) => x.toFixed(2)).join(' ')}`,
      `machine B, vkit fill from the warm remote (every signature and digest verified): ${round(v / 1000, 2)} s`,
      `machine B, turbo 2.11 fill from turborepo-remote-cache:                        ${round(t / 1000, 2)} s`,
      `  ratio vkit / turbo: ${round(v / t, 2)} (goal <= 1.0)`,
      ...(fill.cold.length
        ? [
            `vkit cold local build (no remote):                                              ${round(c / 1000, 2)} s`,
            `  ratio warm-remote fill / cold local: ${round(v / c, 3)}`,
          ]
        : ['vkit cold local build: not measured (--cold-runs 0)']),
      `machine A (once): vkit cold + signed upload ${round(a.ms / 1000, 1)} s, turbo cold + upload ${round(aTurbo.ms / 1000, 1)} s`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    turboCache.stop();
    await nginx.stop();
    if (!values.keep) rmSync(root, { recursive: true, force: true });
    else log(`kept ${root}`);
  }
}

await main();
