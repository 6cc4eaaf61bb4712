/**
 * What the benchmarks share: the generated workspace (N packages x 10 files, one check per package
 * for vkit and turbo alike, committed to a fresh git repository), timed child processes, medians.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/bench/workspace.js -> the repository root.
export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const VKIT = join(REPO, 'bin', 'vkit.js');
export const TURBO = join(REPO, 'node_modules', '.bin', 'turbo');
export const NODE = process.execPath;
export const FILES_PER_PACKAGE = 10;

// Small statistics and process helpers ---------------------------------------------------------

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
export const log = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);

export interface Timed {
  ms: number;
  r: SpawnSyncReturns<string>;
}

export function timed(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Timed {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: opts.timeoutMs,
  });
  const ms = performance.now() - t0;
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  return { ms, r };
}

export function must(t: Timed, what: string): Timed {
  if (t.r.status !== 0)
    throw new Error(
      `${what} exited ${t.r.status ?? t.r.signal}\n${t.r.stdout.slice(-2000)}\n${t.r.stderr.slice(-2000)}`,
    );
  return t;
}

export function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// The generated workspace -------------------------------------------------------------------------

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

export function git(cwd: string, args: string[]): void {
  must(
    timed('git', ['-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false', ...args], { cwd, env: GIT_ENV }),
    `git ${args[0]}`,
  );
}

/** `node check.js pK [MS]`: reads one package's files, then (with MS) waits MS milliseconds: a check's own time. */
const CHECK_JS = `'use strict';
// Reads one package's files and exits 0: the same work whichever tool runs it.
const fs = require('fs');
const path = require('path');
const dir = path.join(__dirname, 'packages', process.argv[2], 'src');
let bytes = 0;
for (const name of fs.readdirSync(dir)) bytes += fs.readFileSync(path.join(dir, name)).length;
if (bytes === 0) process.exit(1);
const ms = Number(process.argv[3] ?? 0);
if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
if (ms > 0) console.log('checked ' + process.argv[2] + ', ' + bytes + ' bytes');
`;

function fileBody(p: number, f: number): string {
  const lines: string[] = [`// package p${p}, file ${f}`];
  for (let l = 0; l < 24; l++)
    lines.push(`export const v_${p}_${f}_${l} = ${(p * 7919 + f * 104729 + l * 31) % 1000003};`);
  return `${lines.join('\n')}\n`;
}

/**
 * N packages x 10 files under `packages/pK/src/`, one `check` task per package for both tools, all
 * committed to a fresh git repository so both tools see the same tracked files.
 */
export function generateWorkspace(dir: string, n: number, npmVersion: string, checkMs = 0): void {
  const args = (p: number) => [`p${p}`, ...(checkMs > 0 ? [String(checkMs)] : [])];
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const checks: Array<{ id: string; run: string[]; inputs: string[] }> = [];
  for (let p = 0; p < n; p++) {
    const pkg = join(dir, 'packages', `p${p}`);
    mkdirSync(join(pkg, 'src'), { recursive: true });
    for (let f = 0; f < FILES_PER_PACKAGE; f++) writeFileSync(join(pkg, 'src', `f${f}.js`), fileBody(p, f));
    writeFileSync(
      join(pkg, 'package.json'),
      `${JSON.stringify(
        {
          name: `p${p}`,
          version: '0.0.0',
          private: true,
          scripts: { check: `node ../../check.js ${args(p).join(' ')}` },
        },
        null,
        2,
      )}\n`,
    );
    checks.push({ id: `p${p}`, run: ['node', 'check.js', ...args(p)], inputs: [`packages/p${p}/src/**`] });
  }
  writeFileSync(join(dir, 'check.js'), CHECK_JS);
  // turbo resolves the workspace through the package manager; it needs `packageManager` (no lockfile
  // is needed when there are no dependencies) and then runs every task through `npm run`.
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      { name: 'bench-root', private: true, packageManager: `npm@${npmVersion}`, workspaces: ['packages/*'] },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    join(dir, 'turbo.json'),
    `${JSON.stringify(
      { $schema: 'https://turborepo.com/schema.json', tasks: { check: { inputs: ['src/**'], outputs: [] } } },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(dir, 'vkit.manifest.json'), `${JSON.stringify({ checks }, null, 1)}\n`);
  writeFileSync(join(dir, '.gitignore'), '.turbo/\nnode_modules/\n.vkit-store*/\n');
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'generated workspace']);
}

export const TURBO_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_NO_UPDATE_NOTIFIER: '1',
  DO_NOT_TRACK: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};
