/**
 * The check sandboxes this machine can run, for tests that hold every backend to the same
 * guarantees: bubblewrap when it is installed (skipped loudly otherwise, and a failure under
 * VKIT_REQUIRE_SYSTEM=1) and the built-in one, which needs only util-linux and user namespaces
 * (probed once by confining `/bin/true`; a machine without them skips it loudly).
 */
import { STATUS_FD } from '../../src/checkers/process.js';
import { findBwrap } from '../../src/checkers/sandbox.js';
import { probeSandbox } from '../../src/checkers/sandbox-backend.js';

export interface SandboxBackend {
  name: 'bwrap' | 'builtin';
  /** The environment that makes vkit's workers use this backend. */
  env: { VKIT_SANDBOX: string };
  /** Why this machine cannot run it, or false. */
  skip: string | false;
}

/**
 * A command prefix that runs what follows in a user namespace whose own limit allows no further
 * one: what a machine with user namespaces disabled looks like to vkit.
 */
export const NO_USER_NAMESPACES = [
  'unshare',
  '--user',
  '--map-root-user',
  'sh',
  '-c',
  'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"',
  'sh',
];

/** Every backend, each with its skip reason (`test(name, { skip: b.skip }, ...)`). */
export async function sandboxBackends(file: string): Promise<SandboxBackend[]> {
  const bwrap = findBwrap();
  const builtin = await probeSandbox('builtin', process.env, STATUS_FD);
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
