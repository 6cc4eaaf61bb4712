/** `vkit doctor`: what this machine can do for vkit. Declaration only; `table.ts` binds it to `../doctor.ts`. */
import { defineVerb } from '../../kit/verb.js';

export const doctor = defineVerb({
  name: 'doctor',
  summary: 'what this machine can do for vkit, and the command that adds each missing part',
  readme:
    "what this machine can do: each check sandbox tried for real (bubblewrap, the built-in one) and the one in use, the container engine, each formal and model-checking profile's worker image and assets, the remote cache, the resident build process; for each missing part the command that adds it. Exit 0 when sandboxed checks can run, 3 when none can",
  flags: { json: { type: 'boolean', default: false } },
  help: `Usage: vkit doctor [--json]

Says what this machine can do for vkit, each part tried for real: a check confined in each sandbox
(bubblewrap when installed, the built-in one made of util-linux's programs) and which one sandboxed
checks use; the container engine formal components run in (VKIT_CONTAINER_SOCKET, default
unix:///tmp/podman.sock); each formal and model-checking profile's worker image and assets; the
remote cache settings; whether a resident build process serves this directory. For each missing
part it names the command that adds it. Changes nothing.

Exit codes: 0 sandboxed checks can run here, 3 no sandbox can run here (they are BLOCKED), 4 internal error.
`,
});
