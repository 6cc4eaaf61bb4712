/** The public API a `vkit.config.ts` imports. */
export { defineConfig } from './config/define.js';
export { defineRule } from './config/rule.js';
export type * from './config/types.js';
export type * from './config/rule.js';
/** valibot, re-exported so a config can write a user rule's `attrs` schema without its own install. */
export * as v from 'valibot';
