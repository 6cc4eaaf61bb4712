import type { UserConfig } from './types.js';

/** Typed identity: `export default defineConfig({ checks: [...] })` in `vkit.config.ts`. */
export function defineConfig<T extends UserConfig | (() => UserConfig | Promise<UserConfig>)>(config: T): T {
  return config;
}
