/** `vkit worker`: a fleet worker (docs/fleet.md). Declaration only; `table.ts` binds it to `../fleet.ts`. */
import { defineVerb } from '../../kit/verb.js';

export const worker = defineVerb({
  name: 'worker',
  summary: 'serve a fleet: run the jobs faces publish on NATS JetStream, results signed into the remote cache',
  flags: {
    connect: { type: 'string' },
    remote: { type: 'string' },
    slots: { type: 'string' },
    labels: { type: 'string' },
    stream: { type: 'string' },
    dir: { type: 'string' },
  },
  help: `Usage: vkit worker --connect nats://HOST:PORT --remote URL [--slots N] [--labels A,B] [--stream NAME] [--dir DIR]

Pulls the jobs that builds with \`executor: nats\` publish (docs/fleet.md), one per slot at a time, and
runs each as a local worker would: its inputs fetched from the remote cache's CAS into a private
scratch directory and verified, the tool resolved and hashed again (another identity is BLOCKED),
the attempt's receipt signed with VKIT_SIGNING_KEY and put into the remote cache; the message is
acknowledged only after that upload. It beats every second; a worker unheard of for 5 s is lost,
and its attempt ends interrupted at its face, never a pass. Runs until SIGINT or SIGTERM.

  --connect URL   the NATS server (nats-server -js)
  --remote URL    the remote cache (Bazel's HTTP protocol) the faces use
  --slots N       jobs at once (default 1)
  --labels A,B    what this worker can serve, shown by \`vkit workers\`
  --stream NAME   the JetStream stream (default VKIT_JOBS)
  --dir DIR       the worker's own store and scratch space (default ./vkit-worker)

VKIT_SIGNING_KEY must name this worker's Ed25519 key, whose public half the projects it serves list
in vkit.lock.json's trusted_signers (\`vkit policy trust-signer\`): a face accepts no other result.

Exit codes: 0 stopped, 2 invalid request, 4 internal error, 5 NATS or its client unavailable.
`,
});
