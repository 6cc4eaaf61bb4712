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
function shebangInterpreter(file: string, cwd: string): string | undefined {
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
    return prog ? resolveExecutable(prog, cwd) : undefined;
  }
  return resolveExecutable(words[0]!, cwd);
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

/** Memoised per process and PATH: a build resolves each distinct tool once. */
const memo = new Map<string, CheckerIdentity>();

export function checkerIdentity(tool: string, shell: boolean, opts: IdentityOptions): CheckerIdentity {
  const path = opts.path ?? process.env.PATH ?? '';
  const memoKey = JSON.stringify([tool, shell, tool.includes('/') ? opts.cwd : '', path]);
  const now = opts.now ?? (() => BigInt(Date.now()) * 1_000_000n);
  const hash = (file: string) => hashPath(file, 'raw', opts.cache, now)!.sha256;
  const known = memo.get(memoKey);
  // A memoised identity is only reused if the tool file is unchanged; hashPath's stat check is cheap.
  if (shell && SHELL_BUILTINS.has(tool)) {
    // A builtin is part of the shell; the shell's own identity covers it.
    const sh = hash(realpathSync('/bin/sh'));
    return { tool, sha256: sh, shell: sh };
  }
  const file = resolveExecutable(tool, opts.cwd, path);
  const sha256 = hash(file);
  if (known && known.sha256 === sha256) return known;
  const identity: CheckerIdentity = { tool: basename(tool), sha256 };
  const interpreter = shebangInterpreter(file, opts.cwd);
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
  memo.set(memoKey, identity);
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
