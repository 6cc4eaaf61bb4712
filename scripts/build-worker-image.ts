/**
 * `npm run image:worker [-- [coq|spin] [--force]]`: builds a worker image offline (no registry pull):
 * a minimal Debian bookworm root from debootstrap, the frozen package list of
 * fixtures/worker-images/<name>-bookworm.list installed in it, imported into podman. Skipped when the
 * image exists. Run as root (debootstrap and chroot need it); sudo is used otherwise.
 *   coq   (default) `localhost/vkit-coq-worker:1`: coqc and OCaml, for the Coq profile
 *   spin  `localhost/vkit-spin-worker:1`: Spin and gcc, for the SPIN model-checking profile
 *
 * The mirror is read at run time from the host's apt sources, never written into the repository.
 * The package list pins every package of the image (`dpkg-query -W` of the first build), so a later
 * build installs the same versions; the build fails when the result differs from the list, rather
 * than produce an image whose tools vkit would identify differently. Image ids differ between builds
 * (import timestamps); vkit identifies the checker by the tool tree's digest, not the image id.
 *
 *   --force  rebuild even when the image exists (the old tag moves to the new image)
 * Environment: VKIT_WORKER_MIRROR overrides the mirror read from the apt sources.
 * Exit status: 0 when the image exists or was built, 1 when the build failed or its packages differ
 * from the list, 2 on a usage error, when no mirror is found or debootstrap or podman is missing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { $, ProcessOutput, ps, which } from 'zx';

/** Each image: its tag and, for its first build (no list yet), the packages it installs and records. */
const IMAGES = {
  coq: { image: 'localhost/vkit-coq-worker:1', seed: ['coq=8.16.1+dfsg-1+b2', 'ocaml-nox=4.13.1-4'] },
  spin: {
    image: 'localhost/vkit-spin-worker:1',
    seed: ['spin=6.5.2+dfsg-1', 'gcc=4:12.2.0-3', 'libc6-dev=2.36-9+deb12u14'],
  },
} as const;
const SUITE = 'bookworm';

const argv = process.argv.slice(2);
const force = argv.includes('--force');
const names = argv.filter((a) => a !== '--force');
const name = (names[0] ?? 'coq') as keyof typeof IMAGES;
if (names.length > 1 || !Object.hasOwn(IMAGES, name)) {
  process.stderr.write(`build-worker-image: expected [coq|spin] [--force], got ${argv.join(' ')}\n`);
  process.exit(2);
}
const { image: IMAGE, seed: SEED } = IMAGES[name];
const LIST = fileURLToPath(new URL(`../../fixtures/worker-images/${name}-bookworm.list`, import.meta.url));

const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
// Commands' stderr goes where ours goes, as in a shell; their stdout is read (or dropped).
const sh = $({ stdio: ['inherit', 'pipe', 'inherit'] });
const shown = $({ stdio: 'inherit' });

function fail(message: string, code: number): never {
  process.stderr.write(`build-worker-image: ${message}\n`);
  process.exit(code);
}

/** `sort` under LC_ALL=C: byte order. */
const byteSort = (lines: string[]) => lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** The first deb822 field `name` of a stanza line, lower-cased, with the rest of the line. */
function field(line: string): [name: string, value: string] {
  const words = line.trim().split(/[ \t]+/);
  return [words[0]!.toLowerCase(), words.slice(1).join(' ')];
}

/**
 * The first enabled deb822 stanza of type deb whose Suites list has exactly `bookworm` (files of
 * /etc/apt/sources.list.d/*.sources in name order), else undefined.
 */
function findMirror(): string | undefined {
  let files: string[];
  try {
    files = byteSort(readdirSync('/etc/apt/sources.list.d').filter((f) => f.endsWith('.sources')));
  } catch {
    return undefined;
  }
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(`/etc/apt/sources.list.d/${f}`, 'utf8');
    } catch {
      continue;
    }
    let types = '';
    let suites: string[] = [];
    let uri = '';
    let enabled = '';
    const take = () =>
      types.split(/[ \t]+/).includes('deb') && enabled !== 'no' && uri !== '' && suites.includes(SUITE) ? uri : '';
    for (const line of text.split('\n')) {
      if (/^[ \t]*$/.test(line)) {
        if (take()) return uri;
        types = '';
        suites = [];
        uri = '';
        enabled = '';
        continue;
      }
      if (line.startsWith('#')) continue;
      const [name, value] = field(line);
      if (name === 'types:') types = value;
      else if (name === 'suites:') suites = value.split(' ');
      else if (name === 'uris:') uri = value.split(' ')[0] ?? '';
      else if (name === 'enabled:') enabled = (value.split(' ')[0] ?? '').toLowerCase();
    }
    if (take()) return uri;
  }
  return undefined;
}

/** Else the first one-line `deb [options] URI bookworm ...` entry of sources.list and *.list. */
function findMirrorList(): string | undefined {
  const files = ['/etc/apt/sources.list'];
  try {
    files.push(
      ...byteSort(readdirSync('/etc/apt/sources.list.d').filter((f) => f.endsWith('.list'))).map(
        (f) => `/etc/apt/sources.list.d/${f}`,
      ),
    );
  } catch {}
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const words = line.trim().split(/[ \t]+/);
      if (words[0] !== 'deb') continue;
      let i = 1;
      if (words[1]?.startsWith('[')) {
        while (i < words.length && !words[i]!.endsWith(']')) i++;
        i++;
      }
      if (words[i + 1] === SUITE) return words[i];
    }
  }
  return undefined;
}

/** The package list's entries: every line but comments. */
const listed = () =>
  readFileSync(LIST, 'utf8')
    .replace(/\n$/, '')
    .split('\n')
    .filter((l) => !l.startsWith('#'));

const hasList = () => existsSync(LIST) && statSync(LIST).size > 0;

let rootfs: string | undefined;
// Nothing of the build stays behind, however it ends (an exit handler runs synchronously: $.sync).
process.on('exit', () => {
  if (rootfs) $.sync({ nothrow: true })`${sudo} rm -rf --one-file-system ${rootfs}`;
});
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.on(signal, async () => {
    // The commands running now stop too: a signal sent to this process alone would leave debootstrap
    // writing into the root the exit handler removes.
    for (const { pid } of await ps.tree({ pid: process.pid, recursive: true }).catch(() => [])) {
      try {
        process.kill(Number(pid), signal);
      } catch {}
    }
    process.exit(code);
  });
}

try {
  if (!force && (await $`${sudo} podman image exists ${IMAGE}`.nothrow()).ok) {
    const id = (await sh`${sudo} podman image inspect --format ${'{{.Id}}'} ${IMAGE}`).stdout.trim();
    console.log(`build-worker-image: ${IMAGE} exists (${id.slice(0, 12)}), skipped`);
    process.exit(0);
  }

  const mirror = process.env.VKIT_WORKER_MIRROR || findMirror() || findMirrorList();
  if (!mirror)
    fail(
      `no enabled '${SUITE}' deb source in /etc/apt/sources.list{,.d/*}: set VKIT_WORKER_MIRROR to a Debian mirror URL`,
      2,
    );
  if (!(await which('debootstrap', { nothrow: true }))) fail('debootstrap missing: run `npm run setup:system`', 2);
  if (!(await which('podman', { nothrow: true }))) fail('podman missing: run `npm run setup:system`', 2);

  const start = Math.floor(Date.now() / 1000);
  rootfs = (await sh`${sudo} mktemp -d /var/tmp/vkit-worker-rootfs.XXXXXX`).stdout.trim();

  console.log(`build-worker-image: debootstrap ${SUITE} from ${mirror}`);
  await sh`${sudo} debootstrap --variant=minbase ${SUITE} ${rootfs} ${mirror}`;

  const env = ['env', '-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'DEBIAN_FRONTEND=noninteractive', 'LC_ALL=C'];
  const inRoot = [...sudo, ...env, 'chroot', rootfs];
  await shown`${inRoot} apt-get update -qq`;
  if (hasList()) {
    const pinned = listed().flatMap((l) => l.split(/[ \t]+/).filter(Boolean));
    await sh`${inRoot} apt-get install -y -qq --no-install-recommends --allow-downgrades ${pinned}`;
  } else {
    await sh`${inRoot} apt-get install -y -qq --no-install-recommends ${SEED}`;
  }
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's output format, not a template
  const format = '${Package}=${Version}\\n';
  const installed = (await sh`${inRoot} dpkg-query -W -f ${format}`).stdout.replace(/\n+$/, '').split('\n');
  const got = byteSort(installed).join('\n');
  if (hasList()) {
    const want = byteSort(listed()).join('\n').replace(/\n+$/, '');
    if (got !== want) {
      process.stderr.write(`build-worker-image: the image's packages differ from ${LIST}:\n`);
      const diff = await $`diff <(printf '%s\n' ${want}) <(printf '%s\n' ${got})`.nothrow();
      process.stderr.write(diff.stdout);
      process.exit(1);
    }
  } else {
    mkdirSync(dirname(LIST), { recursive: true });
    const date = new Date().toISOString().slice(0, 10);
    writeFileSync(
      LIST,
      `# Every package of ${IMAGE} as name=version (dpkg-query -W of its first build, ${date}).\n` +
        '# `npm run image:worker` installs exactly these; delete this file and rebuild with --force to re-pin.\n' +
        `${got}\n`,
    );
    console.log(`build-worker-image: recorded ${got.split('\n').length} pinned packages in ${LIST} (commit it)`);
  }

  // Nothing of the build host stays in the image: package lists, caches, the mirror, the machine id.
  await shown`${inRoot} apt-get clean`;
  await sh`${sudo} rm -rf ${rootfs}/var/lib/apt/lists/* ${rootfs}/var/cache/apt/* ${rootfs}/var/log/* ${rootfs}/etc/apt/sources.list`;
  await sh`${sudo} sh -c ${`: >'${rootfs}/etc/machine-id'`}`;

  await sh`${sudo} tar --numeric-owner -C ${rootfs} -c . | ${sudo} podman import - ${IMAGE}`;
  const id = (await sh`${sudo} podman image inspect --format ${'{{.Id}}'} ${IMAGE}`).stdout.trim();
  console.log(`build-worker-image: ${IMAGE} = ${id} in ${Math.floor(Date.now() / 1000) - start} s`);
} catch (e) {
  // A step that failed ends the build with its exit status (its stderr went to ours already).
  if (e instanceof ProcessOutput) process.exit(e.exitCode ?? 1);
  throw e;
}
