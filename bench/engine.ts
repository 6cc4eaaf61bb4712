/**
 * `npm run bench:engine`: vkit side by side with turbo 2.11 on one generated workspace, plus cold
 * capture throughput against `sha256sum` and CLI startup against `node -e 0`. It is a report: it
 * prints a table, writes `bench/.work/results.json`, and exits 0 even when a target is missed.
 *
 * Flags: `--packages N` (default 1000), `--big N` (default 10000; 0 skips), `--capture-mib M`
 * (default 1024), `--turbo-big auto|yes|no` (default auto: turbo's 10,000-package no-op is measured only
 * when its cold run, estimated from the small one, fits `--turbo-budget-s`, default 150), `--quick`
 * (N = 200, big = 1000, 256 MiB, fewer repeats), `--keep` (keep generated workspaces), `--out FILE`.
 * See bench/README.md for the method and its caveats.
 */
import { randomFillSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  FILES_PER_PACKAGE,
  generateWorkspace,
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

const CAPTURE_FILE_MIB = 4;

interface Options {
  packages: number;
  big: number;
  captureMib: number;
  turboBig: 'auto' | 'yes' | 'no';
  turboBudgetS: number;
  noopRuns: number;
  edits: number;
  checkRuns: number;
  versionRuns: number;
  captureRuns: number;
  keep: boolean;
  quick: boolean;
  work: string;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const quick = argv.includes('--quick');
  const work = join(REPO, 'bench', '.work');
  const o: Options = {
    packages: quick ? 200 : 1000,
    big: quick ? 1000 : 10_000,
    captureMib: quick ? 256 : 1024,
    turboBig: 'auto',
    turboBudgetS: 150,
    noopRuns: quick ? 3 : 7,
    edits: quick ? 3 : 5,
    checkRuns: quick ? 5 : 11,
    versionRuns: quick ? 10 : 30,
    captureRuns: quick ? 1 : 3,
    keep: argv.includes('--keep'),
    quick,
    work,
    out: join(work, 'results.json'),
  };
  const num = (flag: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`Expected ${flag} to be an integer >= ${min}, got \`${v}\``);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => argv[++i];
    if (a === '--packages') o.packages = num(a, next(), 2);
    else if (a === '--big') o.big = num(a, next(), 0);
    else if (a === '--capture-mib') o.captureMib = num(a, next(), CAPTURE_FILE_MIB);
    else if (a === '--turbo-budget-s') o.turboBudgetS = num(a, next(), 1);
    else if (a === '--turbo-big') {
      const v = next();
      if (v !== 'auto' && v !== 'yes' && v !== 'no') throw new Error(`Expected --turbo-big auto|yes|no, got \`${v}\``);
      o.turboBig = v;
    } else if (a === '--out') o.out = next()!;
    else if (a === '--quick' || a === '--keep') continue;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'usage: node dist/bench/engine.js [--quick] [--packages N] [--big N] [--capture-mib M] [--turbo-big auto|yes|no] [--turbo-budget-s S] [--keep] [--out FILE]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown flag \`${a}\``);
  }
  return o;
}

// The two tools ----------------------------------------------------------------------------------

interface ToolRun {
  ms: number;
  ran: number;
  cached: number;
  hashed?: number;
}

/** A `vkit build` in its own process (VKIT_DAEMON=0), or served by the root's resident build process. */
function vkitBuild(ws: string, timeoutMs?: number, served = false): ToolRun {
  const t = must(
    timed(NODE, [VKIT, 'build', '--root', ws, '--store', join(ws, '.vkit-store'), '--json'], {
      cwd: ws,
      timeoutMs,
      env: { ...process.env, VKIT_DAEMON: served ? '1' : '0' },
    }),
    'vkit build',
  );
  const report = JSON.parse(t.r.stdout) as {
    gate: { status: string };
    stats: { ran: number; cached: number; hashed: number };
  };
  if (report.gate.status !== 'READY') throw new Error(`vkit gate is ${report.gate.status}, expected READY`);
  return { ms: t.ms, ran: report.stats.ran, cached: report.stats.cached, hashed: report.stats.hashed };
}

function turboRun(ws: string, timeoutMs?: number): ToolRun {
  // --no-daemon is deprecated in 2.11 (the daemon is no longer used by `turbo run`), so it is not passed.
  const t = must(
    timed(TURBO, ['run', 'check', '--cache-dir=.turbo/cache', '--output-logs=errors-only'], {
      cwd: ws,
      env: TURBO_ENV,
      timeoutMs,
    }),
    'turbo run',
  );
  const m = /Cached:\s+(\d+) cached, (\d+) total/.exec(t.r.stdout);
  if (!m) throw new Error(`cannot read turbo's summary:\n${t.r.stdout.slice(-2000)}`);
  const cached = Number(m[1]);
  return { ms: t.ms, ran: Number(m[2]) - cached, cached };
}

/**
 * `turbo run --dry-run=json`: turbo hashes every task and looks each up in its cache, but runs
 * nothing. Where turbo's cache cannot be filled in time it is the proxy for its no-op (a lower bound:
 * a real no-op also restores each hit); at the small N it is measured beside the real no-op.
 */
function turboDryRun(ws: string, n: number): number {
  const t = must(
    timed(TURBO, ['run', 'check', '--dry-run=json', '--cache-dir=.turbo/cache'], { cwd: ws, env: TURBO_ENV }),
    'turbo --dry-run',
  );
  const tasks = (JSON.parse(t.r.stdout) as { tasks: unknown[] }).tasks.length;
  if (tasks !== n) throw new Error(`turbo --dry-run planned ${tasks} tasks, expected ${n}`);
  return t.ms;
}

function expect(run: ToolRun, tool: string, what: string, ran: number, cached: number): void {
  if (run.ran !== ran || run.cached !== cached)
    throw new Error(`${tool} ${what}: expected ${ran} ran / ${cached} cached, got ${run.ran} / ${run.cached}`);
}

// Measurements --------------------------------------------------------------------------------------

interface NoopResult {
  vkit: number[];
  /** The same build served by `vkit daemon` (warmed by three unmeasured requests first). */
  served: number[];
  turbo: number[];
  vkitHashed: number[];
}

function daemon(ws: string, verb: 'start' | 'stop' | 'status'): { served?: number } {
  return JSON.parse(
    must(
      timed(NODE, [VKIT, 'daemon', verb, '--root', ws, '--json', ...(verb === 'start' ? ['--idle-s', '900'] : [])]),
      `vkit daemon ${verb}`,
    ).r.stdout,
  ) as { served?: number };
}

function noops(ws: string, n: number, runs: number, withTurbo: boolean): NoopResult {
  // One unmeasured pass each first: it lets vkit's file-state entries leave git's racy window (a
  // file hashed within 2 s of its mtime is hashed again), which any later real no-op would see.
  vkitBuild(ws);
  if (withTurbo) turboRun(ws);
  daemon(ws, 'start');
  for (let i = 0; i < 3; i++) vkitBuild(ws, undefined, true);
  const servedBefore = daemon(ws, 'status').served ?? 0;
  const out: NoopResult = { vkit: [], served: [], turbo: [], vkitHashed: [] };
  for (let i = 0; i < runs; i++) {
    // Rotate which tool goes first so none always inherits the others' warm caches.
    const order = [
      ['vkit', 'served', 'turbo'],
      ['turbo', 'vkit', 'served'],
      ['served', 'turbo', 'vkit'],
    ][i % 3]!;
    for (const tool of order) {
      if (tool === 'vkit' || tool === 'served') {
        const r = vkitBuild(ws, undefined, tool === 'served');
        expect(r, 'vkit', 'no-op', 0, n);
        if (tool === 'served') out.served.push(r.ms);
        else {
          out.vkit.push(r.ms);
          out.vkitHashed.push(r.hashed ?? -1);
        }
      } else if (withTurbo) {
        const r = turboRun(ws);
        expect(r, 'turbo', 'no-op', 0, n);
        out.turbo.push(r.ms);
      }
    }
  }
  const servedCount = (daemon(ws, 'status').served ?? 0) - servedBefore;
  daemon(ws, 'stop');
  if (servedCount !== runs) throw new Error(`vkit daemon served ${servedCount} of the ${runs} served no-op builds`);
  return out;
}

function checkOwnTime(ws: string, pkg: string, runs: number): number {
  const xs: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const t = must(timed(NODE, ['check.js', pkg], { cwd: ws }), 'node check.js');
    if (i > 0) xs.push(t.ms); // the first run warms the page cache
  }
  return median(xs);
}

/** `npm run check` in one package, which is how turbo runs every task; its cost grows with the workspace. */
function npmRunOwnTime(ws: string, pkg: string, runs: number): number {
  const xs: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const t = must(timed('npm', ['run', '--silent', 'check'], { cwd: join(ws, 'packages', pkg) }), 'npm run check');
    if (i > 0) xs.push(t.ms);
  }
  return median(xs);
}

interface EditResult {
  pkg: string;
  checkMs: number;
  vkitMs: number;
  turboMs: number;
  vkitOverhead: number;
  turboOverhead: number;
}

function edits(ws: string, n: number, count: number, checkRuns: number): EditResult[] {
  const out: EditResult[] = [];
  for (let i = 0; i < count; i++) {
    const k = Math.min(n - 1, Math.floor(((i + 0.5) * n) / count));
    const pkg = `p${k}`;
    const checkMs = checkOwnTime(ws, pkg, checkRuns);
    // New content every time, so neither tool can find the edited state in its cache.
    const file = join(ws, 'packages', pkg, 'src', 'f3.js');
    writeFileSync(file, `${readFileSync(file, 'utf8')}export const edit_${i}_${Date.now()} = ${i};\n`);
    let vkitMs = 0;
    let turboMs = 0;
    for (const tool of i % 2 === 0 ? ['vkit', 'turbo'] : ['turbo', 'vkit']) {
      if (tool === 'vkit') {
        const r = vkitBuild(ws);
        expect(r, 'vkit', `edit of ${pkg}`, 1, n - 1);
        vkitMs = r.ms;
      } else {
        const r = turboRun(ws);
        expect(r, 'turbo', `edit of ${pkg}`, 1, n - 1);
        turboMs = r.ms;
      }
    }
    out.push({ pkg, checkMs, vkitMs, turboMs, vkitOverhead: vkitMs - checkMs, turboOverhead: turboMs - checkMs });
    log(
      `edit ${i + 1}/${count} (${pkg}): check ${round(checkMs)} ms, vkit ${round(vkitMs)} ms, turbo ${round(turboMs)} ms`,
    );
  }
  return out;
}

interface CaptureResult {
  bytes: number;
  files: number;
  vkitMs: number[];
  peerMs: number[];
  peerSingleMs: number;
  vkitHashed: number;
}

/**
 * Cold capture: one check whose inputs are the whole tree, built with an empty store, so every file is
 * hashed once, exactly as a first build would. No git (vkit falls back to walking the directory), so
 * git never reads the gigabyte. The page cache cannot be dropped here: both sides are warm.
 */
function capture(mib: number, runs: number, keep: boolean): CaptureResult {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-bench-capture-'));
  try {
    const tree = join(dir, 'tree');
    const data = join(tree, 'data');
    mkdirSync(data, { recursive: true });
    const files = Math.max(1, Math.round(mib / CAPTURE_FILE_MIB));
    const buf = Buffer.allocUnsafe(CAPTURE_FILE_MIB << 20);
    for (let i = 0; i < files; i++) {
      randomFillSync(buf);
      writeFileSync(join(data, `f${String(i).padStart(4, '0')}.bin`), buf);
    }
    writeFileSync(
      join(tree, 'vkit.manifest.json'),
      `${JSON.stringify({ checks: [{ id: 'capture', run: ['true'], inputs: ['data/**'] }] })}\n`,
    );
    const bytes = files * (CAPTURE_FILE_MIB << 20);
    // Warm the page cache for both sides alike.
    for (const f of readdirSync(data)) readFileSync(join(data, f));
    const peerCmd = `find '${data}' -type f -print0 | xargs -0 -P2 -n 8 sha256sum > /dev/null`;
    const out: CaptureResult = { bytes, files, vkitMs: [], peerMs: [], peerSingleMs: 0, vkitHashed: 0 };
    for (let i = 0; i < runs; i++) {
      const store = join(dir, `store-${i}`);
      const v = must(
        timed(NODE, [VKIT, 'build', '--root', tree, '--store', store, '--json'], { cwd: tree }),
        'vkit capture build',
      );
      const stats = (JSON.parse(v.r.stdout) as { stats: { ran: number; hashed: number } }).stats;
      if (stats.ran !== 1) throw new Error(`capture build ran ${stats.ran} actions, expected 1`);
      out.vkitHashed = stats.hashed;
      out.vkitMs.push(v.ms);
      rmSync(store, { recursive: true, force: true });
      out.peerMs.push(must(timed('sh', ['-c', peerCmd]), 'sha256sum').ms);
    }
    // For reference only: the literal `xargs -P2` without `-n` hands every file to one sha256sum.
    out.peerSingleMs = must(
      timed('sh', ['-c', `find '${data}' -type f -print0 | xargs -0 -P2 sha256sum > /dev/null`]),
      'sha256sum',
    ).ms;
    return out;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

function startup(runs: number): { vkit: number[]; node: number[] } {
  const out = { vkit: [] as number[], node: [] as number[] };
  must(timed(NODE, [VKIT, '--version']), 'vkit --version');
  must(timed(NODE, ['-e', '0']), 'node -e 0');
  for (let i = 0; i < runs; i++) {
    out.vkit.push(must(timed(NODE, [VKIT, '--version']), 'vkit --version').ms);
    out.node.push(must(timed(NODE, ['-e', '0']), 'node -e 0').ms);
  }
  return out;
}

// The report ------------------------------------------------------------------------------------

interface Row {
  metric: string;
  unit: string;
  vkit: number | null;
  peer: number | null;
  peerName: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  note?: string;
}

function row(
  metric: string,
  unit: string,
  vkit: number | null,
  peer: number | null,
  peerName: string,
  target?: { op: '<=' | '>='; x: number },
  note?: string,
): Row {
  const ratio = vkit !== null && peer !== null && peer !== 0 ? vkit / peer : null;
  const met = target && ratio !== null ? (target.op === '<=' ? ratio <= target.x : ratio >= target.x) : null;
  return { metric, unit, vkit, peer, peerName, ratio, target: target ? `${target.op} ${target.x}x` : '-', met, note };
}

function printTable(rows: Row[]): void {
  const fmt = (x: number | null, unit: string) =>
    x === null ? 'n/a' : `${x >= 100 ? Math.round(x) : round(x, 1)} ${unit}`;
  const cells = rows.map((r) => [
    r.metric,
    fmt(r.vkit, r.unit),
    r.peer === null ? 'n/a' : `${fmt(r.peer, r.unit)} (${r.peerName})`,
    r.ratio === null ? '-' : `${round(r.ratio, 2)}x`,
    r.target,
    r.met === null ? '-' : r.met ? 'met' : 'MISSED',
  ]);
  const head = ['metric', 'vkit', 'peer', 'ratio', 'target', 'met?'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((s, i) => s.padEnd(widths[i]!)).join('  ');
  process.stdout.write(
    `\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${cells.map(line).join('\n')}\n`,
  );
  for (const r of rows) if (r.note) process.stdout.write(`  * ${r.metric}: ${r.note}\n`);
  const missed = rows.filter((r) => r.met === false);
  process.stdout.write(
    missed.length
      ? `\nMISSED ${missed.length} target(s): ${missed.map((r) => r.metric).join('; ')}\n`
      : '\nall targets met\n',
  );
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(join(REPO, 'dist', 'src', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run `npx tsc -p tsconfig.json` first');
  if (!existsSync(TURBO)) throw new Error(`turbo is not installed at ${TURBO}: run \`npm ci\``);
  mkdirSync(o.work, { recursive: true });
  const npmVersion = must(timed('npm', ['--version']), 'npm --version').r.stdout.trim();
  const turboVersion = must(timed(TURBO, ['--version'], { env: TURBO_ENV }), 'turbo --version').r.stdout.trim();
  const vkitVersion = must(timed(NODE, [VKIT, '--version']), 'vkit --version').r.stdout.trim();
  const started = Date.now();
  const loadStart = loadavg();
  if (loadStart[0]! > availableParallelism())
    log(
      `warning: load average ${loadStart.map((x) => round(x, 2)).join(' ')} on ${availableParallelism()} cores: other work is running and will skew the timings`,
    );
  log(
    `${vkitVersion}, turbo ${turboVersion}, node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}); N = ${o.packages}, big = ${o.big}, capture ${o.captureMib} MiB${o.quick ? ' (quick)' : ''}`,
  );

  // 1. N packages: cold, no-op, one-file edits.
  const ws = join(o.work, `ws-${o.packages}`);
  let t0 = performance.now();
  generateWorkspace(ws, o.packages, npmVersion);
  log(`generated ${o.packages} packages x ${FILES_PER_PACKAGE} files in ${round((performance.now() - t0) / 1000)} s`);
  sleep(2100); // let the fresh files' mtimes leave the racy window, as any real checkout's have
  const coldTurbo = turboRun(ws);
  expect(coldTurbo, 'turbo', 'cold', o.packages, 0);
  log(`turbo cold: ${round(coldTurbo.ms / 1000, 2)} s`);
  const coldVkit = vkitBuild(ws);
  expect(coldVkit, 'vkit', 'cold', o.packages, 0);
  log(`vkit cold: ${round(coldVkit.ms / 1000, 2)} s`);
  const noop = noops(ws, o.packages, o.noopRuns, true);
  log(
    `no-op medians: vkit ${round(median(noop.vkit))} ms, served by vkit daemon ${round(median(noop.served))} ms, turbo ${round(median(noop.turbo))} ms`,
  );
  const dryN: number[] = [];
  for (let i = 0; i < (o.quick ? 2 : 3); i++) dryN.push(turboDryRun(ws, o.packages));
  log(`turbo --dry-run at ${o.packages}: ${round(median(dryN))} ms`);
  const edited = edits(ws, o.packages, o.edits, o.checkRuns);
  const npmRunMs = npmRunOwnTime(ws, edited[0]!.pkg, Math.min(o.checkRuns, 5));
  if (!o.keep) rmSync(ws, { recursive: true, force: true });

  // 2. Growth: no-op at the big N.
  let big: {
    n: number;
    genS: number;
    coldVkitMs: number;
    noop: NoopResult;
    turboCold: ToolRun | null;
    turboSkipped: string | null;
    turboDryMs: number[];
    npmRunMs: number;
  } | null = null;
  if (o.big > 0) {
    const wsBig = join(o.work, `ws-${o.big}`);
    t0 = performance.now();
    generateWorkspace(wsBig, o.big, npmVersion);
    const genS = (performance.now() - t0) / 1000;
    log(`generated ${o.big} packages in ${round(genS)} s`);
    sleep(2100);
    const estTurboS = ((coldTurbo.ms / o.packages) * o.big) / 1000;
    let turboSkipped: string | null = null;
    if (o.turboBig === 'no') turboSkipped = 'skipped by --turbo-big no';
    else if (o.turboBig === 'auto' && estTurboS > o.turboBudgetS)
      turboSkipped = `turbo's real no-op skipped: filling its cache needs a cold run of at least ~${Math.round(estTurboS)} s (scaled linearly from N = ${o.packages}; more in fact, since each task's \`npm run\` grows with the workspace), over the ${o.turboBudgetS} s budget (--turbo-big yes measures it)`;
    const coldVkitBig = vkitBuild(wsBig);
    expect(coldVkitBig, 'vkit', 'cold (big)', o.big, 0);
    log(`vkit cold at ${o.big}: ${round(coldVkitBig.ms / 1000, 1)} s`);
    let turboCold: ToolRun | null = null;
    if (!turboSkipped) {
      turboCold = turboRun(wsBig);
      expect(turboCold, 'turbo', 'cold (big)', o.big, 0);
      log(`turbo cold at ${o.big}: ${round(turboCold.ms / 1000, 1)} s`);
    } else log(turboSkipped);
    const bigNoop = noops(wsBig, o.big, Math.min(o.noopRuns, o.quick ? 3 : 5), turboSkipped === null);
    const dry: number[] = [];
    for (let i = 0; i < (o.quick ? 2 : 3); i++) dry.push(turboDryRun(wsBig, o.big));
    const npmRunBigMs = npmRunOwnTime(wsBig, 'p0', 1);
    log(
      `no-op at ${o.big}: vkit ${round(median(bigNoop.vkit))} ms, served ${round(median(bigNoop.served))} ms${bigNoop.turbo.length ? `, turbo ${round(median(bigNoop.turbo))} ms` : ''}, turbo --dry-run ${round(median(dry))} ms; npm run check alone ${round(npmRunBigMs)} ms`,
    );
    big = {
      n: o.big,
      genS,
      coldVkitMs: coldVkitBig.ms,
      noop: bigNoop,
      turboCold,
      turboSkipped,
      turboDryMs: dry,
      npmRunMs: npmRunBigMs,
    };
    if (!o.keep) rmSync(wsBig, { recursive: true, force: true });
  }

  // 3. Cold capture throughput.
  const cap = capture(o.captureMib, o.captureRuns, o.keep);
  const mibs = (ms: number) => cap.bytes / (1 << 20) / (ms / 1000);
  log(
    `capture ${cap.files} x ${CAPTURE_FILE_MIB} MiB: vkit ${round(mibs(median(cap.vkitMs)))} MiB/s, sha256sum -P2 ${round(mibs(median(cap.peerMs)))} MiB/s`,
  );

  // 4. Startup.
  const st = startup(o.versionRuns);

  const N = o.packages;
  const eo = (f: (e: EditResult) => number) => median(edited.map(f));
  const rows: Row[] = [
    row(
      `cold build, N=${N}`,
      's',
      coldVkit.ms / 1000,
      coldTurbo.ms / 1000,
      'turbo',
      undefined,
      `vkit --jobs ${availableParallelism()} (its default), turbo --concurrency 10 (its default); turbo runs each task through \`npm run\``,
    ),
    row(
      `no-op build, N=${N}, median of ${o.noopRuns}`,
      'ms',
      median(noop.vkit),
      median(noop.turbo),
      'turbo',
      { op: '<=', x: 0.5 },
      `vkit re-hashed ${median(noop.vkitHashed)} files per no-op (median)`,
    ),
    row(
      `  served by vkit daemon, N=${N}, median of ${o.noopRuns}`,
      'ms',
      median(noop.served),
      median(noop.turbo),
      'turbo',
      { op: '<=', x: 0.25 },
      "the same `vkit build`, answered by the root's resident build process (`vkit daemon start`)",
    ),
    row(
      `one-file edit overhead, N=${N}, median of ${o.edits}`,
      'ms',
      eo((e) => e.vkitOverhead),
      eo((e) => e.turboOverhead),
      'turbo',
      { op: '<=', x: 0.3 },
      `wall time minus \`node check.js pK\` alone (median ${round(eo((e) => e.checkMs))} ms); \`npm run check\` alone, the wrapper turbo adds, is ${round(npmRunMs)} ms`,
    ),
  ];
  if (big) {
    const bv = median(big.noop.vkit);
    const bt = big.noop.turbo.length ? median(big.noop.turbo) : null;
    const bd = median(big.turboDryMs);
    const growth = `growth ${N} -> ${big.n}: vkit x${round(bv / median(noop.vkit), 1)}${bt !== null ? `, turbo x${round(bt / median(noop.turbo), 1)}` : ''}, turbo --dry-run x${round(bd / median(dryN), 1)}`;
    if (bt !== null)
      rows.push(
        row(
          `no-op build, N=${big.n}, median of ${big.noop.vkit.length}`,
          'ms',
          bv,
          bt,
          'turbo',
          { op: '<=', x: 0.5 },
          `${growth}; vkit cold build at ${big.n}: ${round(big.coldVkitMs / 1000, 1)} s`,
        ),
      );
    else {
      rows.push(
        row(
          `no-op build, N=${big.n}, median of ${big.noop.vkit.length}`,
          'ms',
          bv,
          null,
          'turbo',
          undefined,
          `${big.turboSkipped}; \`npm run check\` alone takes ${round(big.npmRunMs)} ms here; vkit cold build at ${big.n}: ${round(big.coldVkitMs / 1000, 1)} s`,
        ),
      );
      rows.push(
        row(
          `  vs turbo --dry-run, N=${big.n} (proxy)`,
          'ms',
          bv,
          bd,
          'turbo --dry-run',
          undefined,
          `turbo hashes and looks up every task without running any (a lower bound of its no-op; at N=${N} it took ${round(median(dryN))} ms against a real no-op of ${round(median(noop.turbo))} ms); ${growth}`,
        ),
      );
    }
    rows.push(
      row(
        `  served by vkit daemon, N=${big.n}, median of ${big.noop.served.length}`,
        'ms',
        median(big.noop.served),
        bt ?? bd,
        bt !== null ? 'turbo' : 'turbo --dry-run',
      ),
    );
  }
  rows.push(
    row(
      `cold capture, ${cap.files} x ${CAPTURE_FILE_MIB} MiB (page cache warm), median of ${o.captureRuns}`,
      'MiB/s',
      mibs(median(cap.vkitMs)),
      mibs(median(cap.peerMs)),
      'sha256sum -P2',
      { op: '>=', x: 0.9 },
      `vkit: a whole \`vkit build\` (empty store, one check \`true\` over every file); peer: \`find | xargs -0 -P2 -n 8 sha256sum\` (without -n, xargs hands every file to one sha256sum: ${round(mibs(cap.peerSingleMs))} MiB/s)`,
    ),
    row(`vkit --version, median of ${o.versionRuns}`, 'ms', median(st.vkit), median(st.node), 'node -e 0', {
      op: '<=',
      x: 1.2,
    }),
  );
  printTable(rows);

  const results = {
    schema: 'vkit.bench.engine/1',
    date: new Date(started).toISOString(),
    seconds: round((Date.now() - started) / 1000),
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? null,
      node: process.version,
      npm: npmVersion,
      turbo: turboVersion,
      vkit: vkitVersion,
    },
    options: { ...o },
    loadavg: { start: loadStart, end: loadavg() },
    rows,
    raw: {
      cold: { vkit: coldVkit, turbo: coldTurbo },
      noop,
      edits: edited,
      npm_run_check_ms: npmRunMs,
      turbo_dry_run_ms: dryN,
      big,
      capture: cap,
      startup: st,
    },
  };
  mkdirSync(join(o.out, '..'), { recursive: true });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  const l = results.loadavg;
  process.stdout.write(
    `\nload average at start ${l.start.map((x) => round(x, 2)).join(' ')}, at end ${l.end.map((x) => round(x, 2)).join(' ')} (${availableParallelism()} cores)\nresults: ${o.out} (${results.seconds} s)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
