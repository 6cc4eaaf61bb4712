/**
 * What `bin/vkit.js` loads first, kept small: the process guard, the resident build process's
 * client and the config thread's early boot. A command the daemon serves needs nothing more; any
 * other loads the CLI itself (`entry.ts`) after this. Bundled as `dist/bundle/start.js`
 * (scripts/bundle-cli.ts), sharing its modules with the bundled CLI.
 */
export { guardProcess } from './main.js';
export { handOver } from '../fast/hand-over.js';
