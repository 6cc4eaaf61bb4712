/**
 * The resident build process's entry (`node dist/src/daemon/main.js --root DIR --idle-s N --kinds URL`), spawned
 * detached by `vkit daemon start`, as `jobs/worker-main.ts` is by the job service. Its stdout and
 * stderr go to the log file beside its socket.
 */
import { parseArgs } from 'node:util';
import { installKinds } from '../config/kind.js';
import { installKeptConfigs } from '../fast/kept-configs.js';
import { daemonPaths } from './paths.js';
import { serve } from './server.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    'idle-s': { type: 'string' },
    kinds: { type: 'string' },
    watch: { type: 'boolean', default: false },
  },
  strict: true,
});
const idleS = Number(values['idle-s']);
if (!values.root || !values.kinds || !Number.isInteger(idleS) || idleS < 1) {
  process.stderr.write(
    'usage: node dist/src/daemon/main.js --root DIR --idle-s N --kinds URL [--watch] (started by `vkit daemon start`)\n',
  );
  process.exit(2);
}
// The kinds its starter was handed: requests run the same commands the starter would.
installKinds(values.kinds);
// Config bundles kept in the store, as a command line keeps them (manifests need a code identity it has not).
installKeptConfigs(undefined);
await serve({ paths: daemonPaths(values.root), idleMs: idleS * 1000, watch: values.watch });
process.stdout.write(`${new Date().toISOString()} serving ${values.root} (pid ${process.pid})\n`);
