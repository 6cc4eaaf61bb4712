/**
 * Real git repositories in temp directories for tests, plus helpers to run the built CLI and the
 * service in-process. Nothing here fakes git, the store or a process.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry, type BuiltinManifest } from '../../rules/index.js';
import { installKinds } from '../../src/config/kind.js';
import type { Manifest } from '../../src/config/types.js';
import { awaitWorkersGoneSync } from './wait.js';

// Tests that call the service in-process hand it the built-in kinds, as bin/vkit.js does.
installKinds(registry);

/** A loaded manifest with the built-in kinds' sections typed (`sections(loaded.manifest).checks`). */
export const sections = (manifest: Manifest): BuiltinManifest => manifest as BuiltinManifest;

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const VKIT_BIN = join(REPO_ROOT, 'bin', 'vkit.js');

export interface TempRepo {
  dir: string;
  write(path: string, content: string | Uint8Array): void;
  /** Sets mtime 10 s in the past so the racy-clean window never forces a re-hash. */
  age(path: string): void;
  git(...args: string[]): string;
  commitAll(message?: string): string;
  manifest(data: unknown): void;
  cleanup(): void;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'vkit test',
  GIT_AUTHOR_EMAIL: 'test@vkit.invalid',
  GIT_COMMITTER_NAME: 'vkit test',
  GIT_COMMITTER_EMAIL: 'test@vkit.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** A fresh git repository with the given files (not committed unless `commit` is set). */
export function tempRepo(
  files: Record<string, string | Uint8Array> = {},
  opts: { git?: boolean; commit?: boolean } = {},
): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-test-'));
  const useGit = opts.git ?? true;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  if (useGit) {
    git('init', '-q', '-b', 'main');
    git('config', 'core.autocrlf', 'false');
  }
  const repo: TempRepo = {
    dir,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    age(path) {
      const t = new Date(Date.now() - 10_000);
      utimesSync(join(dir, path), t, t);
    },
    git,
    commitAll(message = 'commit') {
      git('add', '-A');
      git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
    manifest(data) {
      repo.write('vkit.manifest.json', JSON.stringify(data, null, 2));
    },
    cleanup() {
      awaitWorkersGoneSync(dir);
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  if (opts.commit) repo.commitAll();
  return repo;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json<T = any>(): T;
}

/** Runs the built `vkit` binary synchronously; with `timeoutMs`, a hang is killed and reads as `code: null`. */
export function vkit(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, [VKIT_BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    encoding: 'utf8',
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs, killSignal: 'SIGKILL' as const } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** Starts the built `vkit` binary without waiting, for kill tests. */
export function vkitAsync(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return spawn(process.execPath, [VKIT_BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The `sandbox` of a check a test watches from outside (its host pid, a marker file outside the work
 * tree): the default sandbox hides both (own PID namespace, private /tmp), so such checks opt out.
 */
export const WATCHED_FROM_OUTSIDE = Object.freeze({
  none: 'the test watches this check from outside: host pids and files outside the work tree',
});

/** A node one-liner as an argv check command: portable and resolvable on PATH. */
export function nodeCheck(code: string): string[] {
  return ['node', '-e', code];
}
