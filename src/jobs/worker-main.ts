/**
 * The detached worker's entry as tsc compiles it (`node dist/src/jobs/worker-main.js --store DIR
 * --queue Q --kinds URL [--confine]`): see worker-process.ts. The bundled CLI starts the bundle's
 * own entry instead (scripts/bundle-cli.ts).
 */
import { runWorkerProcess } from './worker-process.js';

runWorkerProcess(process.argv.slice(2));
