/**
 * `npm run setup:system`: installs the system tools vkit's tests need, idempotently: a tool already
 * present is left alone. Each issue that needs a new tool adds it here. Then fits podman's
 * configuration to this machine kind, builds the Coq and Spin worker images (`npm run image:worker -- coq|spin`, skipped
 * when it exists) and prints the tools' versions. Run as root (CI) or with sudo available.
 * Exit status: 0 when everything is in place, else the status of the step that failed.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { $, ProcessOutput, which } from 'zx';

const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
// Commands' stderr goes where ours goes, as in a shell; their stdout is read, or shown when inherited.
const sh = $({ stdio: ['inherit', 'pipe', 'inherit'] });
const shown = $({ stdio: 'inherit' });

const command = (name: string) => async () => (await which(name, { nothrow: true })) !== null;
const file = (path: string) => async () => existsSync(path);
const executable = (path: string) => async () => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Each Debian package, and what shows it is installed already. */
const PACKAGES: Array<[pkg: string, present: () => Promise<boolean>]> = [
  ['git', command('git')],
  // The lifecycle model (fixtures/lifecycle/lifecycle.pml): spin generates a C verifier, gcc builds it
  // (spin also runs gcc as its preprocessor), and pan.c needs the C library headers, which gcc only
  // recommends.
  ['spin', command('spin')],
  ['gcc', command('gcc')],
  ['libc6-dev', file('/usr/include/stdio.h')],
  // The TUI smoke test drives a real terminal.
  ['tmux', command('tmux')],
  // Every check runs in a bubblewrap sandbox by default (src/checkers/sandbox.ts).
  ['bubblewrap', command('bwrap')],
  // Formal components run in restricted containers: podman serves the Docker API to dockerode, with
  // runc (crun fails on this cgroup layout); busybox-static gives tests a tiny image; debootstrap builds
  // the worker images offline; coq and ocaml-nox are the host copies of the Coq profile's tools.
  ['podman', command('podman')],
  ['runc', command('runc')],
  ['busybox-static', executable('/bin/busybox')],
  ['debootstrap', command('debootstrap')],
  ['curl', command('curl')],
  // The remote cache tests serve Bazel's HTTP protocol with nginx's WebDAV module (PUT) on loopback.
  ['nginx', file('/usr/sbin/nginx')],
  // The fleet tests (test/jobs/fleet.test.ts) run `nats-server -js` on loopback for NATS JetStream.
  ['nats-server', file('/usr/sbin/nats-server')],
  // `vkit report`'s page is opened in headless Chromium (test/cli/report-chromium.test.ts): about
  // about 115 MB to download and 480 MB installed (with its recommends), a minute to install.
  ['chromium', command('chromium')],
  // `vkit change certify` decides its logic obligations with Z3 (rules/change/lib/z3.ts).
  ['z3', command('z3')],
  ['coq', command('coqc')],
  ['ocaml-nox', command('ocamlopt')],
];

/** Field 3 of a line split at single spaces (`cut -d' ' -f3`). */
const field3 = (line: string) => (line.includes(' ') ? (line.split(' ')[2] ?? '') : line);
const firstLine = (out: ProcessOutput) => out.stdout.split('\n')[0]!;

try {
  const need: string[] = [];
  for (const [pkg, present] of PACKAGES) if (!(await present())) need.push(pkg);
  if (need.length > 0) {
    const apt = $({ stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    await apt`${sudo} apt-get update -qq`;
    await apt`${sudo} apt-get install -y --no-install-recommends ${need}`;
  }

  // podman's defaults do not fit this machine kind (see ARCHITECTURE.md, platform facts): runc, cgroupfs,
  // a file events logger, and default ulimits no higher than the hard limits (podman's defaults exceed them).
  const pidMax = readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim();
  let nproc = (await sh`ulimit -Hu`).stdout.trim();
  if (nproc === 'unlimited' || Number(nproc) > Number(pidMax)) nproc = pidMax;
  let nofile = (await sh`ulimit -Hn`).stdout.trim();
  if (nofile === 'unlimited') nofile = '1048576';
  const containersConf = `[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`;
  const CONF = '/etc/containers/containers.conf';
  let current = '';
  try {
    current = readFileSync(CONF, 'utf8');
  } catch {}
  // Compared as a shell's $(...) reads them: trailing newlines do not count.
  if (current.replace(/\n+$/, '') !== containersConf.replace(/\n+$/, '')) {
    await sh`${sudo} mkdir -p /etc/containers`;
    await $({ stdio: ['pipe', 'pipe', 'inherit'], input: containersConf })`${sudo} tee ${CONF}`;
  }

  // The worker images, Coq's and Spin's (each skipped when it exists).
  for (const image of ['coq', 'spin'])
    await shown`${process.execPath} ${fileURLToPath(new URL('build-worker-image.js', import.meta.url))} ${image}`;

  // A missing tool shows as an empty version rather than stopping here.
  const git = await sh`git --version`.nothrow();
  const spin = await sh`spin -V`.nothrow();
  const gcc = await sh`gcc -dumpfullversion`.nothrow();
  const tmux = await sh`tmux -V`.nothrow();
  const podman = await sh`podman --version`.nothrow();
  const coqc = await sh`coqc --version`.nothrow();
  const chromium = await sh`chromium --version`.nothrow();
  console.log(
    `setup-system: git ${field3(firstLine(git))}, spin ${field3(firstLine(spin))}, gcc ${firstLine(gcc)}, ` +
      `${firstLine(tmux)}, podman ${field3(firstLine(podman))}, ${firstLine(coqc)}, ${firstLine(chromium)}`,
  );
} catch (e) {
  // A step that failed ends the setup with its exit status (its stderr went to ours already).
  if (e instanceof ProcessOutput) process.exit(e.exitCode ?? 1);
  throw e;
}
