/**
 * `npm run bench:sandbox`: what the check sandbox costs per check. One temp git repository with N
 * trivial checks (`/bin/true`, distinct ids) is built afresh (`--force`, one job at a time) with
 * `sandbox: { none }`, then `isolated` and `hermetic` under each sandbox backend this machine has
 * (bubblewrap, the built-in one), alternating, R times each; the report is the median build time
 * per mode and the median extra per check over the unsandboxed build. A report: exits 0 whatever
 * it measures; a build a sandbox could not start in is retried (twice at most) and counted. Flags:
 * `--checks N` (default 20), `--runs R` (default 7).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findBwrap } from '../src/checkers/sandbox.js';
import { findBuiltinTools } from '../src/checkers/sandbox-builtin.js';

const VKIT = fileURLToPath(new URL('../../bin/vkit.js', import.meta.url));
const { values } = parseArgs({
  options: { checks: { type: 'string', default: '20' }, runs: { type: 'string', default: '7' } },
});
const N = Number(values.checks);
const R = Number(values.runs);
const BACKENDS = [...(findBwrap() ? ['bwrap'] : []), ...('missing' in findBuiltinTools() ? [] : ['builtin'])];
const MODES: Record<string, { sandbox: unknown; env: Record<string, string> }> = {
  none: { sandbox: { none: 'the baseline' }, env: {} },
};
for (const backend of BACKENDS)
  for (const mode of ['isolated', 'hermetic'])
    MODES[`${mode} (${backend})`] = { sandbox: mode, env: { VKIT_SANDBOX: backend } };

const dir = mkdtempSync(join(tmpdir(), 'vkit-bench-sandbox-'));
try {
  execFileSync('git', ['init', '-q'], { cwd: dir });
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(MODES).map((m) => [m, []]));
  const blocked: Record<string, number> = {};
  for (let r = 0; r < R; r++) {
    for (const [name, { sandbox, env }] of Object.entries(MODES)) {
      const checks = Array.from({ length: N }, (_, i) => ({
        id: `c${i}`,
        run: ['/bin/true'],
        inputs: ['a.txt'],
        sandbox,
      }));
      writeFileSync(join(dir, 'vkit.manifest.json'), JSON.stringify({ checks }));
      for (let attempt = 1; ; attempt++) {
        const t0 = performance.now();
        const res = spawnSync(process.execPath, [VKIT, 'build', '--force', '--jobs', '1'], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, ...env },
        });
        const ms = performance.now() - t0;
        if (res.status === 0) {
          times[name]!.push(ms);
          break;
        }
        // A sandbox that could not start (BLOCKED, exit 3) is retried and counted: on a machine
        // whose mount table changes meanwhile (containers starting and stopping), the built-in
        // sandbox refuses a plan the table no longer matches. Anything else is a broken bench.
        const said = `${res.stdout}${res.stderr}`;
        if (res.status !== 3 || attempt === 3 || !/the sandbox could not start it/.test(said))
          throw new Error(`build with sandbox ${name} exited ${res.status}: ${said}`);
        blocked[name] = (blocked[name] ?? 0) + 1;
        const why = /vkit-sandbox: [^\n]*|mount: [^\n]*/.exec(said)?.[0];
        console.error(`${name}: a sandbox could not start, build retried (${why ?? 'no reason given'})`);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(times.none!);
  console.log(`sandbox cost: ${N} checks of /bin/true, --force --jobs 1, median of ${R} builds per mode`);
  for (const name of Object.keys(MODES)) {
    const m = median(times[name]!);
    console.log(
      `${name.padEnd(20)} build ${m.toFixed(0).padStart(6)} ms   per check ${(m / N).toFixed(1).padStart(6)} ms   over none ${((m - base) / N).toFixed(1).padStart(6)} ms/check${blocked[name] ? `   (${blocked[name]} build(s) retried: a sandbox could not start)` : ''}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
