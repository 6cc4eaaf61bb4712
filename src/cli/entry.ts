/**
 * What `bin/vkit.js` calls, in one module: the same exports whether it runs the bundled CLI
 * (`dist/bundle/cli.js`, made from this module by scripts/bundle-cli.ts, which adds the built-in
 * kinds' `registry`) or the modules tsc wrote (then the kinds are loaded by their registry's URL).
 */
export { guardProcess, runCli } from './main.js';
export { installKinds } from '../config/kind.js';
export { viaDaemon } from '../daemon/client.js';
