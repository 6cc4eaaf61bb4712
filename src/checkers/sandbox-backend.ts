/**
 * Which sandbox confines a check: bubblewrap when it is on PATH, else the built-in one made of
 * util-linux's programs; `VKIT_SANDBOX=bwrap|builtin` insists on one (tests run every isolation
 * test against each). Both give the same guarantees, so the backend is recorded in the receipt but
 * is not part of the action key. Where neither can run, the check does not run at all.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessResult } from '../config/rule.js';
import { type Mount, parseMountinfo } from './mounts.js';
import { runProcess } from './process.js';
import { bwrapArgs, ENV_PREFIX, findBwrap, type SandboxLayout } from './sandbox.js';
import { builtinArgv, findBuiltinTools, type Stage, stageFor } from './sandbox-builtin.js';

/** A confined command line: `argv` comes before the command's own; `cleanup` runs after it ended. */
export interface Confinement {
  argv: string[];
  /** What confined it (`bwrap 0.8.0`, `built-in`), for the receipt: bwrap's version is asked beside the run, off its path. */
  backend: Promise<string>;
  cleanup(): void;
}

const SANDBOX_REMEDIES =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or opt the check out with sandbox: { none: "<why>" }; `vkit doctor` says what this machine can do';

/**
 * The sandbox for one process, or why none can be made here (then nothing runs). `hostMounts`
 * stands in for the host's mount table (tests plan against a stale one on purpose).
 */
export function confine(
  layout: SandboxLayout,
  statusFd: number,
  env: Record<string, string | undefined>,
  hostMounts?: readonly Mount[],
): Confinement | string {
  if (process.platform !== 'linux')
    return `no sandbox: checks are confined with Linux namespaces, and this is ${process.platform}; opt the check out with sandbox: { none: "<why>" }`;
  const asked = env.VKIT_SANDBOX ?? '';
  if (asked !== '' && asked !== 'bwrap' && asked !== 'builtin')
    return `VKIT_SANDBOX is "${asked}": expected bwrap or builtin (or unset, to use bwrap when it is installed)`;
  // Never a program the checks could have written: not from the work tree (PATH may name it).
  const bwrap = asked === 'builtin' ? undefined : findBwrap(env.PATH, layout.root);
  if (bwrap)
    return {
      argv: [bwrap, ...bwrapArgs(layout, statusFd), '--', ...ENV_PREFIX],
      backend: bwrapName(bwrap),
      cleanup() {},
    };
  if (asked === 'bwrap')
    return `no sandbox: VKIT_SANDBOX=bwrap but bubblewrap (bwrap) is not on PATH; ${SANDBOX_REMEDIES}`;
  const tools = findBuiltinTools(env.PATH, layout.root);
  if ('missing' in tools)
    return `no sandbox: bubblewrap (bwrap) is not installed, and the built-in sandbox needs util-linux's ${tools.missing.join(', ')}; ${SANDBOX_REMEDIES}`;
  let stage: Stage;
  try {
    // A mount point this user cannot reach is out of the check's reach too, and could not be remounted.
    const mounts = (hostMounts ?? parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'))).filter((m) =>
      reachable(m.path),
    );
    stage = stageFor(layout, mounts);
  } catch (error) {
    return `no sandbox: the built-in sandbox could not be prepared: ${(error as Error).message}`;
  }
  return {
    argv: builtinArgv(tools, stage.dir, stage.plan, layout.cwd, layout.mode === 'hermetic'),
    backend: Promise.resolve('built-in'),
    cleanup: () => stage.release(),
  };
}

function reachable(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EACCES';
  }
}

const names = new Map<string, Promise<string>>();

/** `bwrap <version>`, asked once per process and without waiting for it. */
function bwrapName(bwrap: string): Promise<string> {
  let name = names.get(bwrap);
  if (!name) {
    name = new Promise((resolve) =>
      execFile(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 }, (error, out) =>
        resolve(`bwrap ${(!error && /(\d+(?:\.\d+)+)/.exec(out)?.[1]) || 'version unknown'}`),
      ),
    );
    names.set(bwrap, name);
  }
  return name;
}

/** How many plans a process gets when the host's mounts keep changing under the built-in sandbox. */
export const SANDBOX_PLANS = 3;

/**
 * Whether the built-in sandbox refused to start because the host's mount table no longer matched
 * its plan: a mount made meanwhile would have been writable, or a planned one had gone (containers
 * starting and stopping do both). The init found it before the check started, so nothing ran.
 */
export function stalePlan(result: ProcessResult): boolean {
  return (
    result.spawnError !== undefined &&
    /\(vkit-sandbox: (.* would be writable|could not make the check's mounts)\)$/.test(result.spawnError)
  );
}

/**
 * Runs one process confined (`confineOnce` makes the sandbox, `run` runs in it), planning again up
 * to `SANDBOX_PLANS` times while the host's mounts changed under the plan; a refusal that remains is
 * the answer, with a hint when the cause is the machine. `onWrap` sees each sandbox made.
 */
export async function runConfined(
  confineOnce: (plan: number) => Confinement | string,
  run: (wrap: Confinement) => Promise<ProcessResult>,
  onWrap?: (wrap: Confinement) => void,
): Promise<ProcessResult | string> {
  for (let plan = 1; ; plan++) {
    const wrap = confineOnce(plan);
    if (typeof wrap === 'string') return wrap;
    onWrap?.(wrap);
    try {
      const result = await run(wrap);
      if (plan < SANDBOX_PLANS && stalePlan(result)) continue;
      if (result.spawnError) result.spawnError += sandboxFailureHint(result.spawnError);
      return result;
    } finally {
      wrap.cleanup();
    }
  }
}

/** What to try when a sandbox could not start: most often, user namespaces are off. */
function sandboxFailureHint(message: string): string {
  return /unshare failed|new namespace failed|uid_map|Operation not permitted|Permission denied|ENOSPC|No space left/.test(
    message,
  )
    ? '; user namespaces are disabled here (sysctl user.max_user_namespaces or kernel.unprivileged_userns_clone, or an AppArmor restriction as on Ubuntu 24.04): enable them, ' +
        SANDBOX_REMEDIES
    : '';
}

/**
 * Confines `/bin/true` with one backend in a scratch directory: undefined when it ran and exited 0,
 * else what went wrong. What `vkit doctor` and the tests ask before relying on a backend.
 */
export async function probeSandbox(
  backend: 'bwrap' | 'builtin',
  env: Record<string, string | undefined>,
  statusFd: number,
): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-sandbox-probe-'));
  try {
    const layout = { mode: 'isolated' as const, root: dir, cwd: dir, protect: [], keep: [] };
    const r = await runConfined(
      () => confine(layout, statusFd, { ...env, VKIT_SANDBOX: backend }),
      (wrap) =>
        runProcess(
          {
            argv: ['/bin/true'],
            cwd: dir,
            env: { PATH: '/usr/bin:/bin' },
            timeoutMs: 20_000,
            signal: new AbortController().signal,
          },
          join(dir, 'out'),
          join(dir, 'err'),
          wrap,
        ),
    );
    if (typeof r === 'string') return r;
    return r.exitCode === 0 ? undefined : (r.spawnError ?? `a confined /bin/true exited ${r.exitCode}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
