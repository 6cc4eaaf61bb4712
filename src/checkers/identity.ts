/**
 * Checker identity: what tool actually runs. argv[0] (or the command a shell string certainly runs
 * first) is resolved on PATH, links are followed, and the file is hashed; a `#!` script adds its
 * interpreter; toolchain proxies (rustup's cargo/rustc, npm/npx) add the active toolchain's version
 * output; shell strings add `/bin/sh`. A shell string whose first command vkit cannot name for
 * certain is identified by the shell alone, and says so. Paths never enter the identity, so two
 * checkouts agree.
 */
import { accessSync, constants, openSync, readSync, closeSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import type { CheckerIdentity } from '../config/rule.js';
import { hashPath, type FileStateCache } from '../capture/files.js';
import { npmDeps } from './npm-deps.js';

/** node:child_process, loaded when first needed: a no-op's recall rarely forks, and loading it costs a few ms. */
export const childProcess = () => process.getBuiltinModule('node:child_process') as typeof import('node:child_process');

export class ToolNotFoundError extends Error {
  constructor(readonly tool: string) {
    super(`tool not found: \`${tool}\` is not an executable file on PATH`);
  }
}

/** Absolute, link-resolved path of an executable, as a shell would find it. */
export function resolveExecutable(tool: string, cwd: string, path = process.env.PATH ?? ''): string {
  const candidates = tool.includes('/')
    ? [isAbsolute(tool) ? tool : resolve(cwd, tool)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, tool));
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
  /** The root and the root-relative directories whose installed npm dependencies belong to the tool. */
  npm?: { root: string; dirs: readonly string[] };
}

/**
 * The identity of the tool a check runs. Pass one `memo` map per build: each distinct tool is then
 * resolved and hashed once per build, and never remembered across builds (a long-lived watch must
 * see a tool change).
 */
export function checkerIdentity(
  tool: string,
  shell: boolean,
  opts: IdentityOptions & { memo?: Map<string, CheckerIdentity> },
): CheckerIdentity {
  const path = opts.path ?? process.env.PATH ?? '';
  const memoKey = JSON.stringify([tool, shell, tool.includes('/') ? opts.cwd : '', path, opts.npm ?? null]);
  const known = opts.memo?.get(memoKey);
  if (known) return known;
  const now = opts.now ?? (() => BigInt(Date.now()) * 1_000_000n);
  const hash = (file: string) => hashPath(file, 'raw', { cache: opts.cache, now })!.sha256;
  let identity: CheckerIdentity;
  if (shell && (SHELL_BUILTINS.has(tool) || tool === SHELL_ALONE)) {
    // A builtin is part of the shell; the shell's own identity covers it (and is all vkit knows of
    // a string it cannot read for certain).
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
        identity.toolchain = childProcess()
          .execFileSync(probe[0], probe[1], {
            encoding: 'utf8',
            env: { ...process.env, PATH: path },
            timeout: 30_000,
          })
          .trim();
      } catch {
        identity.toolchain = 'unavailable';
      }
    }
  }
  // Throws NpmDepsError when a directory's dependencies are not installed or cannot be hashed.
  if (opts.npm?.dirs.length)
    identity.npm = opts.npm.dirs.map((dir) => npmDeps(opts.npm!.root, dir, { cache: opts.cache, now }));
  opts.memo?.set(memoKey, identity);
  return identity;
}

const SHELL_BUILTINS = new Set([
  '.',
  ':',
  '[',
  'break',
  'cd',
  'command',
  'continue',
  'echo',
  'eval',
  'exec',
  'exit',
  'export',
  'false',
  'printf',
  'pwd',
  'read',
  'return',
  'set',
  'shift',
  'test',
  'trap',
  'true',
  'umask',
  'unset',
  'wait',
]);

/**
 * The tool of a shell string vkit cannot read for certain: the shell. Not a word a shell string can
 * start with (it holds spaces), so no identity that resolved a real command ever equals it.
 */
const SHELL_ALONE = "/bin/sh (the command's tools are not separately identified)";

/** The tool a check runs: argv[0], or the command a shell string certainly runs first (else the shell alone). */
export function toolOf(run: string[] | string): { argv0: string; shell: boolean } {
  if (Array.isArray(run)) return { argv0: run[0]!, shell: false };
  return { argv0: firstCommand(run) ?? SHELL_ALONE, shell: true };
}

/**
 * The command a shell string runs first, only where its text makes that certain: after any `(`, `{`
 * and `!` that open it and any `NAME=value` prefixes vkit can read to their end, a plain word that is
 * no reserved word. Undefined when anything the shell would interpret stands in the way (quoting,
 * expansion, redirection, globs, keywords, a `PATH=` prefix that moves the lookup): vkit never
 * guesses, so shell syntax never makes a check BLOCKED.
 */
function firstCommand(script: string): string | undefined {
  let at = skipBlanks(script, 0);
  for (let opener = OPENER.exec(script.slice(at)); opener; opener = OPENER.exec(script.slice(at)))
    at = skipBlanks(script, at + opener[0].length);
  for (let end = assignmentEnd(script, at); end !== undefined; end = assignmentEnd(script, at)) {
    // A prefix that sets PATH changes where the shell finds the command: vkit would hash another file.
    if (end === UNREADABLE || script.startsWith('PATH=', at)) return undefined;
    at = skipBlanks(script, end);
  }
  const word = /^[^ \t\n;&|]*/.exec(script.slice(at))![0];
  return isPlainWord(word) ? word : undefined;
}

/**
 * What may open a command and leave its first word a command: a subshell `(` (not `((`, arithmetic
 * in bash), a group `{` and negation `!` (both words of their own).
 */
const OPENER = /^(?:\((?!\()|[{!](?=[ \t\n]))/;

/** Reserved words (POSIX, plus bash's, since /bin/sh may be bash): never a command's name. */
const RESERVED = new Set([
  '!',
  '{',
  '}',
  'case',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'if',
  'in',
  'then',
  'until',
  'while',
  '[[',
  ']]',
  'function',
  'select',
  'time',
  'coproc',
]);

/** Characters that make a word mean more than its letters: quoting, expansion, redirection, grouping, globs. */
const SHELL_SPECIAL = /[\s'"`$\\()<>|&;*?[\]{}]/;

function isPlainWord(word: string): boolean {
  if (word === '[') return true; // the `test` builtin
  return word !== '' && !RESERVED.has(word) && !SHELL_SPECIAL.test(word) && !/^[!#~]/.test(word);
}

/** The shell separates words by space, tab and newline only (any other white space is part of a word). */
function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n';
}

function skipBlanks(script: string, at: number): number {
  while (isBlank(script[at])) at++;
  return at;
}

/** `assignmentEnd`'s answer for a `NAME=value` word whose end vkit cannot be sure of. */
const UNREADABLE = -1;

/**
 * Where the `NAME=value` word at `at` ends; undefined when the word there is no assignment, and
 * UNREADABLE when its value holds something whose extent vkit does not follow (an escape, an
 * operator, an expansion other than the plain ones of `expansionEnd`, an unclosed quote).
 */
function assignmentEnd(script: string, at: number): number | undefined {
  const name = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(script.slice(at));
  if (!name) return undefined;
  let i = at + name[0].length;
  while (i < script.length && !isBlank(script[i])) {
    const c = script[i]!;
    if (c === "'") i = singleQuotedEnd(script, i);
    else if (c === '"') i = doubleQuotedEnd(script, i);
    else if (c === '$' || c === '`') i = expansionEnd(script, i);
    else if (/[\\;&|<>()]/.test(c)) return UNREADABLE;
    else i += 1;
    if (i === UNREADABLE) return UNREADABLE;
  }
  return i;
}

/** End of the `'...'` at `open`: everything up to the next `'` is literal. */
function singleQuotedEnd(script: string, open: number): number {
  const close = script.indexOf("'", open + 1);
  return close === -1 ? UNREADABLE : close + 1;
}

/** End of the `"..."` at `open`: plain text and the plain expansions only. */
function doubleQuotedEnd(script: string, open: number): number {
  let i = open + 1;
  while (i < script.length && script[i] !== '"') {
    if (script[i] === '\\') return UNREADABLE;
    i = script[i] === '$' || script[i] === '`' ? expansionEnd(script, i) : i + 1;
    if (i === UNREADABLE) return UNREADABLE;
  }
  return i < script.length ? i + 1 : UNREADABLE;
}

/**
 * End of a plain expansion at `at`: `$NAME`, `$1`, `$?` and the like, `${NAME}`, or a command
 * substitution `$(...)`/`` `...` `` with no blank, quote, paren or `$` inside (`-j$(nproc)`), whose
 * end is then certain. Anything else is UNREADABLE.
 */
function expansionEnd(script: string, at: number): number {
  const plain =
    /^(?:\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]|\{[A-Za-z_][A-Za-z0-9_]*\}|\([^\s()'"`\\$]*\))|`[^\s()'"`\\$]*`)/.exec(
      script.slice(at),
    );
  return plain ? at + plain[0].length : UNREADABLE;
}
