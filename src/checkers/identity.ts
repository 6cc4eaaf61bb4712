/**
 * Checker identity: what tool actually runs. argv[0] (or a shell string's first word) is resolved on
 * PATH, links are followed, and the file is hashed; a `#!` script adds its interpreter; toolchain
 * proxies (rustup's cargo/rustc, npm/npx) add the active toolchain's version output; shell strings
 * add `/bin/sh`. Paths never enter the identity, so two checkouts agree.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, openSync, readSync, closeSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import type { CheckerIdentity } from '../config/rule.js';
import { hashPath, type FileStateCache } from '../capture/files.js';

export class ToolNotFoundError extends Error {
  constructor(readonly tool: string) {
    super(`tool not found: \`${tool}\` is not an executable file on PATH`);
  }
}

/** Absolute, link-resolved path of an executable, as a shell would find it. */
export function resolveExecutable(tool: string, cwd: string, path = process.env.PATH ?? ''): string {
  const candidates = tool.includes('/') ? [isAbsolute(tool) ? tool : resolve(cwd, tool)] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, tool));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      return realpathSync(candidate);
    } catch {
      // keep looking
    }
  }
  throw new ToolNotFoundError(tool);
}

/** The interpreter named by a `#!` line, resolved, or undefined for binaries. */
function shebangInterpreter(file: string, cwd: string, path: string): string | undefined {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(256);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  if (n < 2 || head[0] !== 0x23 || head[1] !== 0x21) return undefined;
  const line = head.subarray(2, n).toString('utf8').split('\n')[0]!.trim();
  const words = line.split(/\s+/);
  // `#!/usr/bin/env node` names its real interpreter in the next word (skipping env's flags).
  if (basename(words[0]!) === 'env') {
    const prog = words.slice(1).find((w) => !w.startsWith('-'));
    return prog ? resolveExecutable(prog, cwd, path) : undefined;
  }
  return resolveExecutable(words[0]!, cwd, path);
}

const TOOLCHAIN_PROBES: Record<string, [string, string[]]> = {
  cargo: ['rustc', ['-vV']],
  rustc: ['rustc', ['-vV']],
  rustup: ['rustc', ['-vV']],
  npm: ['node', ['--version']],
  npx: ['node', ['--version']],
};

export interface IdentityOptions {
  cwd: string;
  path?: string;
  cache?: FileStateCache;
  now?: () => bigint;
}

/**
 * The identity of the tool a check runs. Pass one `memo` map per build: each distinct tool is then
 * resolved and hashed once per build, and never remembered across builds (a long-lived watch must
 * see a tool change).
 */
export function checkerIdentity(tool: string, shell: boolean, opts: IdentityOptions & { memo?: Map<string, CheckerIdentity> }): CheckerIdentity {
  const path = opts.path ?? process.env.PATH ?? '';
  const memoKey = JSON.stringify([tool, shell, tool.includes('/') ? opts.cwd : '', path]);
  const known = opts.memo?.get(memoKey);
  if (known) return known;
  const now = opts.now ?? (() => BigInt(Date.now()) * 1_000_000n);
  const hash = (file: string) => hashPath(file, 'raw', opts.cache, now)!.sha256;
  let identity: CheckerIdentity;
  if (shell && SHELL_BUILTINS.has(tool)) {
    // A builtin is part of the shell; the shell's own identity covers it.
    const sh = hash(realpathSync('/bin/sh'));
    identity = { tool, sha256: sh, shell: sh };
  } else {
    const file = resolveExecutable(tool, opts.cwd, path);
    identity = { tool: basename(tool), sha256: hash(file) };
    const interpreter = shebangInterpreter(file, opts.cwd, path);
    if (interpreter) identity.interpreter = hash(interpreter);
    if (shell) identity.shell = hash(realpathSync('/bin/sh'));
    const probe = TOOLCHAIN_PROBES[basename(file)] ?? TOOLCHAIN_PROBES[basename(tool)];
    if (probe) {
      try {
        identity.toolchain = execFileSync(probe[0], probe[1], { encoding: 'utf8', env: { ...process.env, PATH: path }, timeout: 30_000 }).trim();
      } catch {
        identity.toolchain = 'unavailable';
      }
    }
  }
  opts.memo?.set(memoKey, identity);
  return identity;
}

const SHELL_BUILTINS = new Set(['.', ':', '[', 'break', 'cd', 'command', 'continue', 'echo', 'eval', 'exec', 'exit', 'export', 'false', 'printf', 'pwd', 'read', 'return', 'set', 'shift', 'test', 'trap', 'true', 'umask', 'unset', 'wait']);

/** The tool a check runs: argv[0], or the first word of a shell string after any `NAME=value` prefixes. */
export function toolOf(run: string[] | string): { argv0: string; shell: boolean } {
  if (Array.isArray(run)) return { argv0: run[0]!, shell: false };
  const words = run.trim().split(/\s+/);
  const first = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? words[0]!;
  return { argv0: first.replace(/^[({]+/, ''), shell: true };
}
