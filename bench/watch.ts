/**
 * `npm run bench:watch`: latency of `vkit watch` from a file write to its `cycle N settled` line, as
 * read from the real binary's stdout, for
 *   (a) an edit whose action is a cache hit: the input alternates between two contents, so after two
 *       warm-up edits every cycle finds evidence for the current content;
 *   (b) an edit that reruns a 10 ms check (`sleep 0.01`), each edit new content.
 * Goal: <= 100 ms median for (a). It is a report: it prints a table and exits 0 even when the goal is
 * missed. Flags: `--edits N` (default 50), `--keep` (keep the temp repos).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/bench/watch.js -> the repository root.
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VKIT = join(REPO, 'bin', 'vkit.js');

const args = process.argv.slice(2);
const edits = Number(args[args.indexOf('--edits') + 1] ?? 50) || 50;
const keep = args.includes('--keep');

interface Case {
  name: string;
  check: Record<string, unknown>;
  input: string;
  /** Content for edit `i` (the warm-up edits are i = -2 and -1). */
  content(i: number): string;
  /** What each measured cycle must show: the bench fails loudly rather than time the wrong thing. */
  expect: RegExp;
}

const CASES: Case[] = [
  {
    name: 'cached action (input flips A/B)',
    check: { id: 'c', run: ['node', '-e', "require('fs').readFileSync('c.txt')"], inputs: ['c.txt'] },
    input: 'c.txt',
    content: (i) => (i % 2 === 0 ? 'A\n' : 'B\n'),
    expect: /^cached\s+check:c\b/,
  },
  {
    name: '10 ms check reruns',
    check: { id: 't', run: 'sleep 0.01', inputs: ['t.txt'] },
    input: 't.txt',
    content: (i) => `edit ${i}\n`,
    expect: /^ran\s+check:t\b/,
  },
];

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.ceil(pos)]! - s[lo]!) * (pos - lo);
}

async function measure(c: Case): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-bench-watch-'));
  execFileSync('git', ['init', '-q', dir]);
  writeFileSync(join(dir, c.input), c.content(0));
  writeFileSync(join(dir, 'vkit.manifest.json'), JSON.stringify({ checks: [c.check] }, null, 2));
  const child = spawn(
    process.execPath,
    [VKIT, 'watch', '--no-tui', '--jobs', '1', '--root', dir, '--store', join(dir, '.git', 'vkit')],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  const lines: string[] = [];
  let buf = '';
  let onLine: (() => void) | undefined;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    const parts = buf.split('\n');
    buf = parts.pop()!;
    for (const p of parts) {
      lines.push(p);
      onLine?.();
    }
  });
  const settled = (cycle: number) =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no settle for cycle ${cycle}:\n${lines.join('\n')}\n${stderr}`)),
        30_000,
      );
      const check = () => {
        const i = lines.findIndex((l) => l.startsWith(`cycle ${cycle} settled:`));
        if (i < 0) return;
        clearTimeout(timer);
        onLine = undefined;
        resolve(i);
      };
      onLine = check;
      check();
    });
  const times: number[] = [];
  try {
    await settled(1);
    let cycle = 1;
    for (let i = -2; i < edits; i++) {
      // A pause lets the previous cycle's file events drain, so each write is its own cycle.
      await new Promise((r) => setTimeout(r, 30));
      const from = lines.length;
      const t0 = performance.now();
      writeFileSync(join(dir, c.input), c.content(i + 1));
      const at = await settled(++cycle);
      const ms = performance.now() - t0;
      if (i < 0) continue;
      if (!lines.slice(from, at).some((l) => c.expect.test(l)))
        throw new Error(`cycle ${cycle} did not show ${c.expect}:\n${lines.slice(from, at + 1).join('\n')}`);
      times.push(ms);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return times;
}

const rows: string[][] = [['case', 'edits', 'median ms', 'p95 ms', 'min ms', 'max ms']];
const results: Record<string, number> = {};
for (const c of CASES) {
  const t = await measure(c);
  results[c.name] = median(t);
  rows.push([
    c.name,
    String(t.length),
    median(t).toFixed(1),
    quantile(t, 0.95).toFixed(1),
    Math.min(...t).toFixed(1),
    Math.max(...t).toFixed(1),
  ]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows)
  process.stdout.write(`${r.map((s, i) => (i === 0 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!))).join('  ')}\n`);
const cached = results[CASES[0]!.name]!;
process.stdout.write(
  `\nfile write -> "cycle N settled" line (debounce 50 ms included); goal <= 100 ms median for a cached action: ${cached <= 100 ? 'met' : 'MISSED'} (${cached.toFixed(1)} ms)\n`,
);
