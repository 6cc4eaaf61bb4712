/**
 * `npm run fuzz:config`: the long run of the config, manifest and glob fuzzers (the same test files
 * `npm test` runs seeded and bounded, with many more cases), then one table of what they saw: cases,
 * CLI invocations, exits by code, hangs, time. Exit code: the test runner's (0 when every property held).
 *
 * Environment (each optional): VKIT_FUZZ_SEED (default: a fresh one, printed), and the case counts
 * VKIT_FUZZ_GLOB_CASES, VKIT_FUZZ_GLOB_CLI_CASES, VKIT_FUZZ_MANIFEST_CASES,
 * VKIT_FUZZ_MANIFEST_CLI_CASES, VKIT_FUZZ_CONFIG_CASES, VKIT_FUZZ_CONFIG_CLI_CASES.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LONG: Record<string, string> = {
  VKIT_FUZZ_GLOB_CASES: '20000',
  VKIT_FUZZ_GLOB_CLI_CASES: '150',
  VKIT_FUZZ_MANIFEST_CASES: '2000',
  VKIT_FUZZ_MANIFEST_CLI_CASES: '250',
  VKIT_FUZZ_CONFIG_CASES: '300',
  VKIT_FUZZ_CONFIG_CLI_CASES: '200',
};
const FILES = ['capture/glob-fuzz.test.js', 'config/manifest-fuzz.test.js', 'config/config-fuzz.test.js'].map((f) =>
  fileURLToPath(new URL(`../test/${f}`, import.meta.url)),
);

interface Figures {
  fuzzer: string;
  seed: number;
  cases: number;
  invocations?: number;
  exits?: Record<string, number>;
  hangs: number;
  seconds: number;
}

const seed = process.env.VKIT_FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
const env: NodeJS.ProcessEnv = { ...process.env, VKIT_FUZZ_SEED: seed };
for (const [k, v] of Object.entries(LONG)) env[k] ??= v;
process.stdout.write(
  `fuzz:config: VKIT_FUZZ_SEED=${seed} ${Object.keys(LONG)
    .map((k) => `${k}=${env[k]}`)
    .join(' ')}\n`,
);

const started = Date.now();
// One file at a time: each runs its CLI cases two at a time, which fills this two-core machine.
const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...FILES], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const figures: Figures[] = [];
let pending = '';
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop()!;
  for (const line of lines) {
    const at = line.indexOf('FUZZ-FIGURES ');
    if (at >= 0) figures.push(JSON.parse(line.slice(at + 'FUZZ-FIGURES '.length)) as Figures);
  }
});
child.on('close', (code) => {
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const codes = ['0', '1', '2', '3', '4'];
  const rows = figures.map((f) => [
    f.fuzzer,
    String(f.cases),
    f.invocations === undefined ? '-' : String(f.invocations),
    ...codes.map((c) => String(f.exits?.[c] ?? 0)),
    String(f.hangs),
    f.seconds.toFixed(0),
  ]);
  const total = (k: number) => String(rows.reduce((s, r) => s + (Number(r[k]) || 0), 0));
  rows.push(['total', total(1), total(2), ...codes.map((_, i) => total(3 + i)), total(8), total(9)]);
  const head = ['fuzzer', 'cases', 'invocations', 'exit 0', 'exit 1', 'exit 2', 'exit 3', 'exit 4', 'hangs', 's'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(
    `\nfuzz:config: VKIT_FUZZ_SEED=${seed}, ${minutes} min, test runner exit ${code}\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n`,
  );
  process.exit(code ?? 1);
});
