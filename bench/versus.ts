/**
 * `npm run bench:versus -- --baseline DIR [--packages N] [--runs R] [--edits E]`: this vkit side by
 * side with another build of vkit (DIR: a checkout with `dist/` built, e.g. a `git worktree` of an
 * older commit), on one generated workspace of N checks x 10 files. Each vkit keeps its own store;
 * no-op builds and one-file-edit builds alternate between the two so load drifts hit both alike.
 * Prints the medians and exits 0 (a report, not a test).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    packages: { type: 'string', default: '200' },
    runs: { type: 'string', default: '9' },
    edits: { type: 'string', default: '5' },
  },
});
if (!values.baseline) throw new Error('usage: bench:versus -- --baseline DIR (a vkit checkout with dist/ built)');
const N = Number(values.packages);
const RUNS = Number(values.runs);
const EDITS = Number(values.edits);
const CURRENT = fileURLToPath(new URL('../../bin/vkit.js', import.meta.url));
const BASELINE = join(resolve(values.baseline), 'bin', 'vkit.js');
type Side = 'baseline' | 'current';
/** Alternates which side goes first, so a load drift within a pair hits both alike. */
const order = (i: number): Side[] => (i % 2 ? ['current', 'baseline'] : ['baseline', 'current']);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function build(bin: string, ws: string, store: string, want: { ran: number }): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, 'build', '--root', ws, '--store', store, '--json'], {
    cwd: ws,
    encoding: 'utf8',
    env: { ...process.env, VKIT_DAEMON: '0' },
  });
  const ms = performance.now() - t0;
  const report = JSON.parse(r.stdout) as { gate: { status: string }; stats: { ran: number } };
  if (report.gate.status !== 'READY' || report.stats.ran !== want.ran)
    throw new Error(`${bin}: gate ${report.gate.status}, ran ${report.stats.ran} (expected READY, ${want.ran})`);
  return ms;
}

const ws = mkdtempSync(join(tmpdir(), 'vkit-versus-'));
try {
  const checks = [];
  for (let p = 0; p < N; p++) {
    mkdirSync(join(ws, 'packages', `p${p}`), { recursive: true });
    for (let f = 0; f < 10; f++)
      writeFileSync(join(ws, 'packages', `p${p}`, `f${f}.js`), `export const v = ${p * 10 + f};\n`.repeat(24));
    checks.push({ id: `p${p}`, run: ['node', 'check.js', `p${p}`], inputs: [`packages/p${p}/**`] });
  }
  writeFileSync(join(ws, 'check.js'), "require('node:fs').readdirSync('packages/' + process.argv[2]);\n");
  writeFileSync(join(ws, 'vkit.manifest.json'), `${JSON.stringify({ checks })}\n`);
  writeFileSync(join(ws, '.gitignore'), '.stores/\n');
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'ws'],
  ])
    spawnSync('git', args, { cwd: ws });
  const sides = { baseline: BASELINE, current: CURRENT } as const;
  const stores = { baseline: join(ws, '.stores', 'baseline'), current: join(ws, '.stores', 'current') };
  const noop = { baseline: [] as number[], current: [] as number[] };
  const edit = { baseline: [] as number[], current: [] as number[] };
  for (const side of ['baseline', 'current'] as const) build(sides[side], ws, stores[side], { ran: N });
  for (let i = 0; i < RUNS; i++)
    for (const side of order(i)) noop[side].push(build(sides[side], ws, stores[side], { ran: 0 }));
  for (let e = 0; e < EDITS; e++) {
    const file = join(ws, 'packages', `p${e}`, 'f0.js');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// edit ${e}\n`);
    for (const side of order(e)) edit[side].push(build(sides[side], ws, stores[side], { ran: 1 }));
  }
  const line = (what: string, m: { baseline: number[]; current: number[] }) =>
    `${what}: baseline ${median(m.baseline).toFixed(0)} ms, current ${median(m.current).toFixed(0)} ms (ratio ${(median(m.current) / median(m.baseline)).toFixed(2)})`;
  process.stdout.write(`bench:versus, ${N} checks x 10 files, baseline ${resolve(values.baseline)}\n`);
  process.stdout.write(`${line(`no-op build, median of ${RUNS}`, noop)}\n`);
  process.stdout.write(`${line(`one-file edit build, median of ${EDITS}`, edit)}\n`);
} finally {
  rmSync(ws, { recursive: true, force: true });
}
