/**
 * The CLI as `bin/vkit.js` runs it once no resident build process has served the command (`start.ts`
 * ran first): the same exports whether it is the bundle (`dist/bundle/cli.js`, made from this module
 * by scripts/bundle-cli.ts, which adds `loadRegistry`, its own copy of the built-in kinds) or tsc's
 * modules (then the kinds are loaded by their registry's URL).
 */
export { runCli } from './main.js';
export { installKinds } from '../config/kind.js';
export { installKeptConfigs } from '../fast/kept-configs.js';
export { keepNoopRecord, recordNoops } from '../fast/noop-record.js';
export { dropStandbyWorker, speculativeStandbyWorker } from '../jobs/standby.js';
