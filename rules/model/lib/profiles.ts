/**
 * The model-checking profile registry: profile id -> the procedure. Loaded lazily, so builds without
 * model items never load them.
 */
import type { ModelProfile } from './types.js';

const LOADERS: Record<string, () => Promise<ModelProfile>> = {
  'spin-linux-x86_64-v1': async () => (await import('./spin/profile.js')).spinProfile,
  'tlc-linux-x86_64-v1': async () => (await import('./tlc/profile.js')).tlcProfile,
  'lean-linux-x86_64-v1': async () => (await import('./lean/profile.js')).leanProfile,
};

/** The profile with this id, or undefined when this vkit has none. */
export async function loadModelProfile(id: string): Promise<ModelProfile | undefined> {
  return LOADERS[id]?.();
}
