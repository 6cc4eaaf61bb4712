/**
 * Builds a formal worker image offline (no registry pull), for `vkit image build` and
 * `npm run image:worker`: a minimal Debian bookworm root from debootstrap, the frozen package list
 * `fixtures/worker-images/<name>-bookworm.list` (shipped in vkit's package) installed in it,
 * imported into podman. Skipped when the image exists. Needs root (debootstrap and chroot); sudo is
 * used otherwise.
 *
 * The list pins every package of the image, so every build installs the same versions; the build
 * fails when the result differs from the list rather than produce an image whose tools vkit would
 * identify differently. Image ids differ between builds (import timestamps): vkit identifies the
 * checker by its tool tree's digest, not the image id.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, VkitError } from '../../errors.js';
import { byteSort, findMirror } from './mirror.js';
import { onPath, type Runner, runner, StepFailed } from './run.js';

/** Each image: its tag and, for a first build without a list (`record`), the packages it seeds. */
export const WORKER_IMAGES = {
  coq: { image: 'localhost/vkit-coq-worker:1', seed: ['coq=8.16.1+dfsg-1+b2', 'ocaml-nox=4.13.1-4'] },
  spin: {
    image: 'localhost/vkit-spin-worker:1',
    seed: ['spin=6.5.2+dfsg-1', 'gcc=4:12.2.0-3', 'libc6-dev=2.36-9+deb12u14'],
  },
} as const;
export type WorkerImageName = keyof typeof WORKER_IMAGES;

const SUITE = 'bookworm';
const INSTALL_TOOLS = 'apt-get install debootstrap podman (Fedora: dnf install debootstrap podman)';

export interface BuildOptions {
  /** Rebuild even when the image exists (the tag moves to the new image). */
  force?: boolean;
  /** Without a package list, install the seed and write the list (vkit's repository pins a new image so). */
  record?: boolean;
  /** Progress lines (stdout). */
  log: (line: string) => void;
  /** Why the build failed (stderr). */
  fail: (line: string) => void;
  /** Stops the running step; the partial root is removed. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** Where the pinned package list of `name` is, in vkit's repository and in its installed package. */
function packageList(name: WorkerImageName): string {
  return fileURLToPath(new URL(`../../../../fixtures/worker-images/${name}-${SUITE}.list`, import.meta.url));
}

const unavailable = (message: string, hint: string) =>
  new VkitError('ERR_UNAVAILABLE', EXIT.unavailable, message, { hint });

/** The privilege prefix: none as root, sudo otherwise; without sudo, a usage error saying why. */
function privilege(env: NodeJS.ProcessEnv): string[] {
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo', env.PATH)) return ['sudo'];
  throw new VkitError(
    'ERR_PRIVILEGE',
    EXIT.invalid,
    'building a worker image needs root (debootstrap and chroot make the image root), and this process is not root and has no sudo',
    { hint: 'Run `vkit image build` as root (e.g. `su -c "vkit image build coq"`), or install sudo.' },
  );
}

/**
 * Builds `name` unless it exists (`force` rebuilds). Resolves with the exit code: 0 built or present,
 * 1 a step failed or the packages differ from the list. Throws a VkitError for what the machine
 * lacks: 5 debootstrap or podman missing, 2 not root and no sudo, or no mirror.
 */
export async function buildWorkerImage(name: WorkerImageName, opts: BuildOptions): Promise<number> {
  const env = opts.env ?? process.env;
  const { image } = WORKER_IMAGES[name];
  for (const tool of ['podman', 'debootstrap'])
    if (!onPath(tool, env.PATH))
      throw unavailable(
        `${tool} is not installed: building a worker image needs debootstrap and podman`,
        INSTALL_TOOLS,
      );
  const run = runner(privilege(env), opts.signal);
  if (!opts.force && (await run.code(['podman', 'image', 'exists', image])) === 0) {
    opts.log(`${image} exists (${(await imageId(run, image)).slice(0, 12)}), not rebuilt (--force rebuilds it)`);
    return EXIT.ok;
  }
  const list = packageList(name);
  const hasList = existsSync(list) && statSync(list).size > 0;
  if (!hasList && !opts.record)
    throw unavailable(
      `the package list of ${image} is missing: ${list}`,
      'Reinstall vkit: its package ships the list.',
    );
  const mirror = findMirror(SUITE, env);
  if (!mirror)
    throw new VkitError(
      'ERR_NO_MIRROR',
      EXIT.invalid,
      `no enabled '${SUITE}' deb source in /etc/apt/sources.list or /etc/apt/sources.list.d/`,
      { hint: 'Set VKIT_WORKER_MIRROR to a Debian mirror URL (e.g. http://deb.debian.org/debian).' },
    );
  const rootfs = (await run.out(['mktemp', '-d', '/var/tmp/vkit-worker-rootfs.XXXXXX'])).trim();
  try {
    return await buildIn(run, rootfs, {
      name,
      mirror,
      list: hasList ? list : undefined,
      log: opts.log,
      fail: opts.fail,
    });
  } catch (error) {
    // A step that failed ends the build with a failure (its stderr went to ours already).
    if (error instanceof StepFailed) {
      opts.fail(`building ${image} failed: ${error.message}`);
      return EXIT.fail;
    }
    throw error;
  } finally {
    await runner(run.prefix).code(['rm', '-rf', '--one-file-system', rootfs]);
  }
}

const imageId = async (run: Runner, image: string) =>
  (await run.out(['podman', 'image', 'inspect', '--format', '{{.Id}}', image])).trim();

const listed = (list: string) =>
  readFileSync(list, 'utf8')
    .replace(/\n+$/, '')
    .split('\n')
    .filter((l) => !l.startsWith('#'));

interface Plan {
  name: WorkerImageName;
  mirror: string;
  /** The pinned package list, or undefined to seed and record one. */
  list: string | undefined;
  log: (line: string) => void;
  fail: (line: string) => void;
}

async function buildIn(run: Runner, rootfs: string, plan: Plan): Promise<number> {
  const { image, seed } = WORKER_IMAGES[plan.name];
  const start = Date.now();
  plan.log(`debootstrap ${SUITE} from ${plan.mirror} into ${rootfs}`);
  await run.out(['debootstrap', '--variant=minbase', SUITE, rootfs, plan.mirror]);
  const env = ['env', '-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'DEBIAN_FRONTEND=noninteractive', 'LC_ALL=C'];
  const inRoot = [...env, 'chroot', rootfs];
  await run.shown([...inRoot, 'apt-get', 'update', '-qq']);
  const pinned = plan.list ? listed(plan.list).flatMap((l) => l.split(/[ \t]+/).filter(Boolean)) : [...seed];
  const install = ['apt-get', 'install', '-y', '-qq', '--no-install-recommends'];
  await run.out([...inRoot, ...install, ...(plan.list ? ['--allow-downgrades'] : []), ...pinned]);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's output format, not a template
  const format = '${Package}=${Version}\\n';
  const got = byteSort((await run.out([...inRoot, 'dpkg-query', '-W', '-f', format])).replace(/\n+$/, '').split('\n'));
  if (plan.list) {
    const differs = compareLists(byteSort(listed(plan.list)), got);
    if (differs) {
      plan.fail(`the packages of ${image} differ from ${plan.list}:\n${differs}`);
      return EXIT.fail;
    }
  } else recordList(plan, got);

  // Nothing of the build host stays in the image: package lists, caches, the mirror, the machine id.
  await run.shown([...inRoot, 'apt-get', 'clean']);
  const leftovers = ['var/lib/apt/lists', 'var/cache/apt', 'var/log'].map((d) => `${rootfs}/${d}`);
  await run.out(['sh', '-c', 'for d; do rm -rf "$d"/*; done', 'sh', ...leftovers]);
  await run.out(['rm', '-f', `${rootfs}/etc/apt/sources.list`]);
  await run.out(['sh', '-c', ': >"$1"', 'sh', `${rootfs}/etc/machine-id`]);
  await run.pipe(['tar', '--numeric-owner', '-C', rootfs, '-c', '.'], ['podman', 'import', '-', image]);
  plan.log(`${image} = ${await imageId(run, image)} in ${Math.round((Date.now() - start) / 1000)} s`);
  return EXIT.ok;
}

/** The lines only one side has (`-` wanted, `+` got), or '' when both are the same. */
function compareLists(want: string[], got: string[]): string {
  const [w, g] = [new Set(want), new Set(got)];
  const missing = want.filter((l) => !g.has(l)).map((l) => `- ${l}`);
  const extra = got.filter((l) => !w.has(l)).map((l) => `+ ${l}`);
  return [...missing, ...extra].join('\n');
}

function recordList(plan: Plan, got: string[]): void {
  const list = packageList(plan.name);
  mkdirSync(dirname(list), { recursive: true });
  const date = new Date().toISOString().slice(0, 10);
  writeFileSync(
    list,
    `# Every package of ${WORKER_IMAGES[plan.name].image} as name=version (dpkg-query -W of its first build, ${date}).\n` +
      `# \`vkit image build ${plan.name}\` installs exactly these; delete this file and rebuild with --force to re-pin.\n` +
      `${got.join('\n')}\n`,
  );
  plan.log(`recorded ${got.length} pinned packages in ${list} (commit it)`);
}
