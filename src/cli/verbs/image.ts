/** `vkit image build`: builds a formal worker image. Declaration only; `table.ts` binds it to `../image.ts`. */
import { defineVerb } from '../../kit/verb.js';

export const imageBuild = defineVerb({
  name: 'image build',
  label: 'image build coq|spin',
  summary: 'build a formal worker image (coq, spin) into podman, offline, from its pinned package list',
  readme:
    'build the worker image of the Coq profile (`coq`) or the SPIN profile (`spin`) into podman from its pinned package list; needs root (or sudo), debootstrap and podman; exit 0 built or already present, 1 the build failed, 2 usage error or no root, 5 debootstrap or podman missing',
  flags: { force: { type: 'boolean', default: false } },
  positionals: true,
  help: `Usage: vkit image build coq|spin [--force]

Builds a formal worker image into podman, offline (no registry pull): a minimal Debian bookworm root
made by debootstrap, the frozen package list shipped with vkit (every package name=version)
installed in it, imported as a podman image. Takes minutes, and about 1.5 GB for coq.
  coq   localhost/vkit-coq-worker:1   coqc and OCaml, for the Coq proof profile
  spin  localhost/vkit-spin-worker:1  Spin and gcc, for the SPIN model-checking profile
Nothing is done when the image exists (--force rebuilds it). The build fails when the installed
packages differ from the list, rather than produce an image whose tools vkit would identify
differently.

Needs root: debootstrap and chroot make the image's root. Run as root, or with sudo on PATH (vkit
then runs each step with sudo). Needs debootstrap and podman: apt-get install debootstrap podman.
The Debian mirror is read from the host's apt sources (a bookworm entry); VKIT_WORKER_MIRROR
overrides it. \`vkit doctor\` then says whether the formal profiles find their images.

Exit codes: 0 built or already present, 1 the build failed or its packages differ from the list,
2 usage error, not root and no sudo, or no mirror, 5 debootstrap or podman missing.
`,
});
