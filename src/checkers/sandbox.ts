/**
 * The check sandbox: bubblewrap (`bwrap`, a maintained Debian tool) around a check's process.
 * Checks run as the same user as vkit, so without it a check could rewrite the evidence store or
 * `.git` (forge a PASS), read the whole environment of its parent through `/proc`, or leave a
 * descendant running after its run ended. Inside the sandbox:
 *
 * - `isolated` (the default): the system is read-only, the work tree is writable as it is without a
 *   sandbox except `.git` and the store (bound read-only over it), `/tmp` is private, and the check
 *   has its own PID namespace: it sees no process outside its own run, and every descendant (one that
 *   called `setsid` too) dies with the namespace when the check ends, times out or is cancelled.
 * - `hermetic`: the same, but the work tree shows only the captured inputs (read-only), the declared
 *   outputs' directories (writable) and the check's tool; the rest of the file system is only the
 *   system directories. An undeclared read then fails the check loudly.
 * - `{ none: reason }`: no sandbox, with the reason on record in the definition and receipt.
 *
 * Without bubblewrap, `sandbox-builtin.ts` makes the same sandbox from util-linux's programs;
 * `sandbox-backend.ts` chooses. This module only builds argument lists (pure) and finds `bwrap`;
 * running is `process.ts`'s job.
 */
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { compileGlob } from '../text/glob.js';

/** What the sandbox exposes, all absolute paths. */
export interface SandboxLayout {
  mode: 'isolated' | 'hermetic';
  root: string;
  cwd: string;
  /** The store and git directories: never writable by a check. */
  protect: string[];
  /** Paths the check may need that a private `/tmp` (or a hermetic view) would hide: PATH entries, the tool, and (isolated only) HOME; read-only. */
  keep: string[];
  /** Hermetic only: root-relative input files (bound read-only) and output globs (their directories writable). */
  inputs?: readonly string[];
  outputs?: readonly string[];
}

/** The system directories a hermetic check sees (read-only); `-try` skips those a system lacks. */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/**
 * What runs the check inside the sandbox: bubblewrap always exports `PWD`, which the check's
 * environment contract (PATH, HOME and its declared variables, nothing else) does not hold, so
 * `env -u PWD` removes it first.
 */
export const ENV_PREFIX = ['/usr/bin/env', '-u', 'PWD', '--'];

/** bwrap's arguments before `--` for one check. `statusFd` receives bwrap's JSON status lines. */
export function bwrapArgs(layout: SandboxLayout, statusFd: number): string[] {
  const args = [
    // A user namespace whoever runs vkit, and no capability in it: bubblewrap started by root would
    // otherwise keep them, and a check could unmount the read-only binds over the store and `.git`.
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--json-status-fd',
    String(statusFd),
  ];
  if (layout.mode === 'isolated') {
    args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
    for (const p of layout.keep) if (under(p, '/tmp')) args.push('--ro-bind-try', p, p);
    args.push('--bind', layout.root, layout.root);
    for (const p of layout.protect) args.push('--ro-bind-try', p, p);
  } else {
    // No network: what a hermetic check reads must be in its key, and the network is not.
    args.push('--unshare-net');
    for (const d of SYSTEM_DIRS) args.push('--ro-bind-try', d, d);
    args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
    for (const p of layout.keep) if (!SYSTEM_DIRS.some((d) => under(p, d))) args.push('--ro-bind-try', p, p);
    args.push('--dir', layout.root);
    // Output directories first, so an input inside one is still bound read-only over it.
    for (const dir of outputDirs(layout.outputs ?? []))
      args.push('--bind', join(layout.root, dir), join(layout.root, dir));
    for (const f of layout.inputs ?? []) args.push('--ro-bind', join(layout.root, f), join(layout.root, f));
    args.push('--dir', layout.cwd);
    // `.git` and the store are simply not there, unless a kept path holds them (read-only then).
  }
  args.push('--chdir', layout.cwd);
  return args;
}

/**
 * The directories a hermetic check may write its declared outputs in: each output glob's static
 * directory prefix (`dist/` for `dist/**`), or a literal output's parent. An output at the root
 * (`*.log`) would need the whole root writable: config validation refuses it for hermetic checks.
 */
export function outputDirs(outputs: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const source of outputs) {
    const g = compileGlob(source);
    if (g.negated) continue;
    const dir = g.literal ? dirname(g.prefix) : g.prefix.replace(/\/$/, '');
    if (dir && dir !== '.') dirs.add(dir);
  }
  return [...dirs].sort();
}

/**
 * `bwrap` on PATH, or undefined. With `outside` (the work tree), one in or linked into that
 * directory is passed over: a check may write there (`npm run` puts node_modules/.bin first on
 * PATH), and the program found is what confines the next check.
 */
export function findBwrap(path = process.env.PATH ?? '', outside?: string): string | undefined {
  return findProgram('bwrap', path.split(':'), outside);
}

/** The first executable `name` in `dirs` (absolute ones), not in or linked into `outside`. */
export function findProgram(name: string, dirs: readonly string[], outside?: string): string | undefined {
  for (const dir of dirs) {
    if (!isAbsolute(dir) || (outside && under(dir, outside))) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (outside && under(realpathSync(candidate), outside)) continue;
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A tool's file as the check will execute it, its link target and its `#!` interpreter: what a
 * hermetic check must see besides the system directories. Best effort: a tool that cannot be found
 * here fails inside the sandbox, loudly.
 */
export function toolPaths(resolved: string | undefined): string[] {
  if (!resolved || !existsSync(resolved)) return [];
  const out = [resolved];
  try {
    const real = realpathSync(resolved);
    out.push(real);
    // The first bytes only: a tool may be a 100 MB binary (node), read for every sandboxed run.
    const fd = openSync(real, 'r');
    const head = Buffer.alloc(256);
    let n: number;
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    const shebang = /^#!\s*(\S+)/.exec(head.toString('latin1', 0, n));
    if (shebang && isAbsolute(shebang[1]!)) out.push(shebang[1]!);
  } catch {
    // unreadable: the sandbox shows what it can
  }
  return out;
}

/**
 * The git directories of a work tree (`.git`, or for a linked worktree the directory its `.git`
 * file names and that directory's common dir), read without running git.
 */
export function gitDirsOf(root: string): string[] {
  const dot = join(root, '.git');
  let text: string;
  try {
    text = readFileSync(dot, 'utf8');
  } catch {
    return existsSync(dot) ? [dot] : [];
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m) return [dot];
  const gitDir = resolve(root, m[1]!);
  const out = [dot, gitDir];
  try {
    out.push(resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()));
  } catch {
    // not a linked worktree's gitdir
  }
  return out;
}

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
