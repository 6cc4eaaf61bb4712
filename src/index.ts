/**
 * The public API a `vkit.config.ts` imports. The config types are the built-in kinds' entry schemas
 * (rules/), imported here as types only: src/ never loads rules/ at run time.
 */
import type { BuiltinConfig } from '../rules/index.js';

/** Typed identity: `export default defineConfig({ checks: [...] })` in `vkit.config.ts`. */
export function defineConfig<T extends BuiltinConfig | (() => BuiltinConfig | Promise<BuiltinConfig>)>(config: T): T {
  return config;
}
export { defineRule } from './config/rule.js';
export type { BuiltinConfig as UserConfig, BuiltinManifest as Manifest } from '../rules/index.js';
export type { CheckConfig, ResolvedCheck } from '../rules/check/schema.js';
export type { CompareConfig } from '../rules/compare/schema.js';
export type { ActionConfig, ResolvedAction } from '../rules/actions/schema.js';
export type { ComponentConfig, ResolvedComponent } from './formal/component-schema.js';
export type { AcceptanceConfig, ResolvedAcceptance } from '../rules/accept/schema.js';
export type { QualificationConfig, ResolvedQualification } from '../rules/qualify/schema.js';
export type { RuleRecord } from './config/types.js';
export type * from './config/rule.js';
/** valibot, re-exported so a config can write a user rule's `attrs` schema without its own install. */
export * as v from 'valibot';
