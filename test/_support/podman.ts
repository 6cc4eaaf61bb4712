/**
 * The real container engine for tests: a sandbox on the engine's socket and the Coq worker image,
 * or a loud skip naming the setup scripts when they are missing (a failure instead under
 * `VKIT_REQUIRE_SYSTEM=1`, as CI runs). Also builds tiny throwaway busybox images offline, for
 * tests that need images whose contents they control.
 *
 * Usage in a test file (top-level await is fine in ESM):
 *   const sys = await systemSandbox();
 *   test('...', { skip: sys.skip }, async () => { const { sandbox, image } = requireSandbox(sys); ... });
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerSocket, openSandbox, type ContainerSandbox } from '../../src/checkers/container.js';

const COQ_WORKER_IMAGE = 'localhost/vkit-coq-worker:1';

export interface SystemSandbox {
  sandbox?: ContainerSandbox;
  /** Full id of the worker image (Coq's unless another was asked for). */
  image?: string;
  /** Why the tests cannot run here; false under VKIT_REQUIRE_SYSTEM=1 (the test then fails in requireSandbox). */
  skip: string | false;
  problem?: string;
}

/**
 * Opens the sandbox (socket from VKIT_CONTAINER_SOCKET, else unix:///tmp/podman.sock) and looks up
 * the worker image (`image`, default the Coq worker's). `cacheDir` isolates the tool-tree cache (a fresh one hashes for real).
 */
export async function systemSandbox(
  opts: { cacheDir?: string; what?: string; image?: string } = {},
): Promise<SystemSandbox> {
  const what = opts.what ?? 'container tests';
  const WORKER_IMAGE = opts.image ?? COQ_WORKER_IMAGE;
  let cacheDir = opts.cacheDir;
  if (cacheDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-tooltree-cache-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    cacheDir = dir;
  }
  const opened = await openSandbox(containerSocket(), { cacheDir });
  let problem: string | undefined;
  let image: string | undefined;
  if ('unavailable' in opened) {
    problem = `${opened.unavailable} (the engine is installed by \`npm run setup:system\`)`;
  } else {
    image = await opened.imageId(WORKER_IMAGE);
    if (!image)
      problem = `the worker image ${WORKER_IMAGE} is not installed: run \`npm run setup:system\` (it runs \`npm run image:worker\`)`;
  }
  if (problem === undefined) return { sandbox: opened as ContainerSandbox, image, skip: false };
  if (process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false, problem };
  process.stderr.write(`SKIP ${what}: ${problem} (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)\n`);
  return { skip: problem, problem };
}

/** The sandbox and image, or a failure naming what is missing (when skipping was not allowed). */
export function requireSandbox(sys: SystemSandbox): { sandbox: ContainerSandbox; image: string } {
  if (!sys.sandbox || !sys.image)
    throw new Error(`Expected podman and the worker image (VKIT_REQUIRE_SYSTEM=1): ${sys.problem}`);
  return { sandbox: sys.sandbox, image: sys.image };
}

/**
 * Imports a tiny image offline: /bin/busybox (busybox-static from the host) with its applets as
 * symlinks, an empty /tmp, plus `files` (relative path -> content, or `{ link }` for a symlink).
 * Returns the full image id; `removeImage` deletes it. Each call makes a new image id (the import
 * time is in the image config), even for identical contents.
 */
export function busyboxImage(tag: string, files: Record<string, string | { link: string }> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'vkit-busybox-root-'));
  try {
    mkdirSync(join(root, 'bin'), { recursive: true });
    mkdirSync(join(root, 'tmp'));
    chmodSync(join(root, 'tmp'), 0o1777);
    mkdirSync(join(root, 'out'));
    const cp = spawnSync('cp', ['/bin/busybox', join(root, 'bin', 'busybox')]);
    if (cp.status !== 0)
      throw new Error(`busybox-static is not installed (/bin/busybox): run \`npm run setup:system\``);
    for (const applet of ['sh', 'cat', 'echo', 'id', 'ls', 'sleep', 'touch', 'true', 'grep', 'mkdir']) {
      symlinkSync('busybox', join(root, 'bin', applet));
    }
    for (const [rel, content] of Object.entries(files)) {
      const path = join(root, rel);
      mkdirSync(join(path, '..'), { recursive: true });
      if (typeof content === 'string') writeFileSync(path, content);
      else symlinkSync(content.link, path);
    }
    const ref = `localhost/vkit-test-busybox:${tag}`;
    const r = spawnSync('sh', ['-c', `tar --numeric-owner -C "$1" -c . | podman import -q - "$2"`, 'sh', root, ref], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`podman import of ${ref} failed: ${r.stderr}`);
    const id = r.stdout.trim().split('\n').pop()!;
    return id.startsWith('sha256:') ? id : `sha256:${id}`;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Removes a test image by id (tags with it); missing images are fine. */
export function removeImage(id: string): void {
  spawnSync('podman', ['rmi', '-f', id.replace(/^sha256:/, '')], { encoding: 'utf8' });
}

/** The engine's view of a container by name, or undefined when it does not exist. */
export function inspectContainer(name: string): Record<string, any> | undefined {
  const r = spawnSync('podman', ['container', 'inspect', name], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  return (JSON.parse(r.stdout) as Record<string, any>[])[0];
}

/** A directory uid 65534 can write (the sandbox's output bind). */
export function writableDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o777);
  return dir;
}
