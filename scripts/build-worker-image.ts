/**
 * `npm run image:worker [-- [coq|spin] [--force]]`: builds a worker image offline, as
 * `vkit image build` does (src/service/worker-image/build.ts, which says how), for vkit's repository:
 * here a first build of an image without a package list installs its seed packages and records the
 * list in fixtures/worker-images/ (commit it).
 *   coq   (default) `localhost/vkit-coq-worker:1`: coqc and OCaml, for the Coq profile
 *   spin  `localhost/vkit-spin-worker:1`: Spin and gcc, for the SPIN model-checking profile
 *   --force  rebuild even when the image exists (the old tag moves to the new image)
 * Environment: VKIT_WORKER_MIRROR overrides the mirror read from the apt sources.
 * Exit status: 0 when the image exists or was built, 1 when the build failed or its packages differ
 * from the list, 2 on a usage error, when no mirror is found or not root and no sudo, 5 when
 * debootstrap or podman is missing.
 */
import { VkitError } from '../src/errors.js';
import { buildWorkerImage, WORKER_IMAGES, type WorkerImageName } from '../src/service/worker-image/build.js';

const argv = process.argv.slice(2);
const force = argv.includes('--force');
const names = argv.filter((a) => a !== '--force');
const name = (names[0] ?? 'coq') as WorkerImageName;
if (names.length > 1 || !Object.hasOwn(WORKER_IMAGES, name)) {
  process.stderr.write(`build-worker-image: expected [coq|spin] [--force], got ${argv.join(' ')}\n`);
  process.exit(2);
}

const stop = new AbortController();
const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
let heard: keyof typeof codes | undefined;
for (const signal of Object.keys(codes) as Array<keyof typeof codes>)
  process.on(signal, () => {
    heard = signal;
    stop.abort();
  });

try {
  const code = await buildWorkerImage(name, {
    force,
    record: true,
    log: (line) => console.log(`build-worker-image: ${line}`),
    fail: (line) => console.error(`build-worker-image: ${line}`),
    signal: stop.signal,
  });
  process.exit(heard ? codes[heard] : code);
} catch (error) {
  if (!(error instanceof VkitError)) throw error;
  process.stderr.write(`build-worker-image: ${error.message}${error.hint ? `\n  ${error.hint}` : ''}\n`);
  process.exit(error.exitCode);
}
