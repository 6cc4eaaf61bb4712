/**
 * `npm run bench:sandbox`: what the check sandbox costs per check. One temp git repository with N
 * trivial checks (`/bin/true`, distinct ids) is built afresh (`--force`, one job at a time) with
 * `sandbox: { none }`, `isolated` and `hermetic`, alternating, R times each; the report is the median
 * build time per mode and the median extra per check over the unsandboxed build. A report: exits 0
 * whatever it measures. Flags: `--checks N` (default 20), `--runs R` (default 7).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const VKIT = fileURLToPath(new URL('../../bin/vkit.js', import.meta.url));
const { values } = parseArgs({
  options: { checks: { type: 'string', default: '20' }, runs: { type: 'string', default: '7' } },
});
const N = Number(values.checks);
const R = Number(values.runs);
const MODES = { none: { none: 'the baseline' }, isolated: 'isolated', hermetic: 'hermetic' } as const;

const dir = mkdtempSync(join(tmpdir(), 'vkit-bench-sandbox-'));
try {
  execFileSync('git', ['init', '-q'], { cwd: dir });
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  const times: Record<string, number[]> = { none: [], isolated: [], hermetic: [] };
  for (let r = 0; r < R; r++) {
    for (const [name, sandbox] of Object.entries(MODES)) {
      const checks = Array.from({ length: N }, (_, i) => ({
        id: `c${i}`,
        run: ['/bin/true'],
        inputs: ['a.txt'],
        sandbox,
      }));
      writeFileSync(join(dir, 'vkit.manifest.json'), JSON.stringify({ checks }));
      const t0 = performance.now();
      const res = spawnSync(process.execPath, [VKIT, 'build', '--force', '--jobs', '1'], {
        cwd: dir,
        encoding: 'utf8',
      });
      const ms = performance.now() - t0;
      if (res.status !== 0)
        throw new Error(`build with sandbox ${name} exited ${res.status}: ${res.stdout}${res.stderr}`);
      times[name]!.push(ms);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(times.none!);
  console.log(`sandbox cost: ${N} checks of /bin/true, --force --jobs 1, median of ${R} builds per mode`);
  for (const name of Object.keys(MODES)) {
    const m = median(times[name]!);
    console.log(
      `${name.padEnd(9)} build ${m.toFixed(0).padStart(6)} ms   per check ${(m / N).toFixed(1).padStart(6)} ms   over none ${((m - base) / N).toFixed(1).padStart(6)} ms/check`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
