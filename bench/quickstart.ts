/**
 * `npm run bench:quickstart [-- --runs R] [--baseline DIR]`: the no-op build of the quickstart
 * example (two checks, a TS config) in a fresh git repository, side by side with `node -e 0` (the
 * floor: node's own start) and, with `--baseline DIR` (a vkit checkout with `dist/` built), another
 * build of vkit on the same copy with its own store. Runs interleave, rotating which goes first, so
 * load drifts hit all alike; prints medians and ratios, exits 0 (a report).
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { git, median, must, NODE, REPO, round, sleep, timed, VKIT } from './workspace.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '21' }, baseline: { type: 'string' } },
});
const RUNS = Number(values.runs);

const top = mkdtempSync(join(tmpdir(), 'vkit-bench-quickstart-'));
/**
 * A copy of the quickstart per build of vkit: one build's run must not touch what another's no-op
 * record stands on (a build before D53 writes its config's temp module beside it, which changes the
 * directory's state).
 */
function copyOf(name: string): string {
  const ws = join(top, name);
  cpSync(join(REPO, 'examples', 'quickstart'), ws, { recursive: true });
  git(ws, ['init', '-q', '-b', 'main']);
  // The store lives in the copy but is not one of its files (as `.git/vkit`, the default, never is).
  writeFileSync(join(ws, '.git', 'info', 'exclude'), '.store/\n');
  git(ws, ['add', '-A']);
  git(ws, ['commit', '-q', '-m', 'quickstart']);
  return ws;
}
try {
  const env = { ...process.env, VKIT_DAEMON: '0' };
  const bins: Record<string, string> = { vkit: VKIT };
  if (values.baseline) bins.baseline = join(resolve(values.baseline), 'bin', 'vkit.js');
  const copies = Object.fromEntries(Object.keys(bins).map((name) => [name, copyOf(name)]));
  sleep(2100); // out of the racy window, as any real checkout's files are
  const sides: Record<string, () => number> = { 'node -e 0': () => must(timed(NODE, ['-e', '0']), 'node -e 0').ms };
  for (const name of Object.keys(bins)) sides[name] = () => noop(bins[name]!, copies[name]!);
  function noop(bin: string, ws: string): number {
    const t = must(
      timed(NODE, [bin, 'build', '--store', join(ws, '.store'), '--json'], { cwd: ws, env }),
      `${bin} build`,
    );
    const report = JSON.parse(t.r.stdout) as { gate: { status: string }; stats: { ran: number } };
    if (report.gate.status !== 'READY' || report.stats.ran !== 0)
      throw new Error(`${bin}: a no-op ran ${report.stats.ran} (gate ${report.gate.status})`);
    return t.ms;
  }
  // The first builds run the checks and keep the bundle; more, once settled, leave each build's
  // caches (and, from D51/D53 on, its no-op record) as a repeated no-op finds them.
  for (const name of Object.keys(bins)) {
    must(
      timed(NODE, [bins[name]!, 'build', '--store', join(copies[name]!, '.store')], { cwd: copies[name]!, env }),
      'first build',
    );
    sides[name]!();
  }
  sleep(2100);
  for (const name of Object.keys(bins)) sides[name]!();
  sleep(2100);
  for (const name of Object.keys(bins)) sides[name]!();
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
  rmSync(top, { recursive: true, force: true });
}
