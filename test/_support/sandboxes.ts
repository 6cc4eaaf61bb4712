/**
 * The check sandboxes this machine can run, for tests that hold every backend to the same
 * guarantees: bubblewrap when it is installed (skipped loudly otherwise, and a failure under
 * VKIT_REQUIRE_SYSTEM=1) and the built-in one, which needs only util-linux and user namespaces
 * (probed once by confining `/bin/true`; a machine without them skips it loudly).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess, STATUS_FD } from '../../src/checkers/process.js';
import { findBwrap } from '../../src/checkers/sandbox.js';
import { confine } from '../../src/checkers/sandbox-backend.js';

export interface SandboxBackend {
  name: 'bwrap' | 'builtin';
  /** The environment that makes vkit's workers use this backend. */
  env: { VKIT_SANDBOX: string };
  /** Why this machine cannot run it, or false. */
  skip: string | false;
}

/** Runs `/bin/true` in the built-in sandbox: undefined when it works, else what went wrong. */
async function builtinProblem(): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-sandbox-probe-'));
  try {
    const wrap = confine({ mode: 'isolated', root: dir, cwd: dir, protect: [], keep: [] }, STATUS_FD, {
      ...process.env,
      VKIT_SANDBOX: 'builtin',
    });
    if (typeof wrap === 'string') return wrap;
    try {
      const r = await runProcess(
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
      );
      return r.exitCode === 0 ? undefined : (r.spawnError ?? `exit ${r.exitCode}`);
    } finally {
      wrap.cleanup();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every backend, each with its skip reason (`test(name, { skip: b.skip }, ...)`). */
export async function sandboxBackends(file: string): Promise<SandboxBackend[]> {
  const bwrap = findBwrap();
  const builtin = await builtinProblem();
  if (!bwrap && process.env.VKIT_REQUIRE_SYSTEM === '1')
    throw new Error(`${file}: VKIT_REQUIRE_SYSTEM=1 but bubblewrap (bwrap) is not installed`);
  if (builtin && process.env.VKIT_REQUIRE_SYSTEM === '1')
    throw new Error(`${file}: VKIT_REQUIRE_SYSTEM=1 but the built-in sandbox cannot run: ${builtin}`);
  const backends: SandboxBackend[] = [
    {
      name: 'bwrap',
      env: { VKIT_SANDBOX: 'bwrap' },
      skip: bwrap ? false : 'bubblewrap (bwrap) is not installed: `npm run setup:system` installs it',
    },
    {
      name: 'builtin',
      env: { VKIT_SANDBOX: 'builtin' },
      skip: builtin ? `the built-in sandbox cannot run here: ${builtin}` : false,
    },
  ];
  for (const b of backends) if (b.skip) console.error(`SKIP ${file} [${b.name}]: ${b.skip}`);
  return backends;
}
