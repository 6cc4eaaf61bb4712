/**
 * `npm run bench:quickstart [-- --runs R] [--baseline DIR]`: the no-op build of the quickstart
 * example (two checks, a TS config) in a fresh git repository, side by side with `node -e 0` (the
 * floor: node's own start) and, with `--baseline DIR` (a vkit checkout with `dist/` built), another
 * build of vkit on the same copy with its own store. Runs interleave, rotating which goes first, so
 * load drifts hit all alike; prints medians and ratios, exits 0 (a report).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { git, median, must, NODE, REPO, round, sleep, timed, VKIT } from './workspace.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '21' }, baseline: { type: 'string' } },
});
const RUNS = Number(values.runs);

const ws = mkdtempSync(join(tmpdir(), 'vkit-bench-quickstart-'));
try {
  cpSync(join(REPO, 'examples', 'quickstart'), ws, { recursive: true });
  git(ws, ['init', '-q', '-b', 'main']);
  git(ws, ['add', '-A']);
  git(ws, ['commit', '-q', '-m', 'quickstart']);
  sleep(2100); // out of the racy window, as any real checkout's files are
  const env = { ...process.env, VKIT_DAEMON: '0' };
  const sides: Record<string, () => number> = {
    'node -e 0': () => must(timed(NODE, ['-e', '0']), 'node -e 0').ms,
    vkit: () => noop(VKIT, join(ws, '.stores', 'current')),
  };
  if (values.baseline)
    sides.baseline = () => noop(join(resolve(values.baseline!), 'bin', 'vkit.js'), join(ws, '.stores', 'baseline'));
  function noop(bin: string, store: string): number {
    const t = must(timed(NODE, [bin, 'build', '--store', store, '--json'], { cwd: ws, env }), `${bin} build`);
    const report = JSON.parse(t.r.stdout) as { gate: { status: string }; stats: { ran: number } };
    if (report.gate.status !== 'READY' || report.stats.ran !== 0)
      throw new Error(`${bin}: a no-op ran ${report.stats.ran} (gate ${report.gate.status})`);
    return t.ms;
  }
  // The first builds run the checks and keep the bundle; two more settle every cache.
  for (const name of ['vkit', 'baseline'])
    if (sides[name]) {
      const store = join(ws, '.stores', name === 'vkit' ? 'current' : 'baseline');
      const bin = name === 'vkit' ? VKIT : join(resolve(values.baseline!), 'bin', 'vkit.js');
      must(timed(NODE, [bin, 'build', '--store', store], { cwd: ws, env }), 'first build');
      sides[name]!();
      sides[name]!();
    }
  const names = Object.keys(sides);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++)
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length]!;
      samples[name]!.push(sides[name]!());
    }
  const floor = median(samples['node -e 0']!);
  process.stdout.write(`bench:quickstart, no-op build of examples/quickstart, medians of ${RUNS}\n`);
  for (const name of names)
    process.stdout.write(
      `${name.padEnd(10)} ${String(round(median(samples[name]!))).padStart(7)} ms  (${round(median(samples[name]!) / floor, 2)}x node -e 0)\n`,
    );
} finally {
  rmSync(ws, { recursive: true, force: true });
}
