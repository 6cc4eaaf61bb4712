/**
 * What a config load may keep between processes: a TS config's bundle and a JSON manifest
 * validated once. The core declares it and the speed layer implements it (src/fast/kept-configs.ts,
 * in the store); a load without one bundles and validates every time, which is the honest path.
 */
import type { Metafile } from 'esbuild';
import type { Sha256Id } from '../hash/index.js';
import type { Manifest } from './types.js';

/** What loading needs of a bundle, from esbuild or kept. */
export interface CompiledConfig {
  text: string;
  metafile: Metafile;
  /** esbuild's warnings, reduced to what loading reads. */
  warnings: { id: string; text: string; location: { file: string; line: number } | null }[];
}

export interface KeptConfigs {
  /** The bundle kept for `file`, only when everything it was made from is as it was. */
  bundle(root: string, file: string, self: string): CompiledConfig | undefined;
  /** Keeps a fresh bundle, made by a build that started at `since` (epoch ms). */
  keepBundle(root: string, file: string, self: string, compiled: CompiledConfig, since: number): void;
  /** The manifest validated from exactly this text, with its policy digest. */
  manifest(file: string, shown: string, text: string): { manifest: Manifest; policyDigest: string } | undefined;
  keepManifest(file: string, shown: string, text: string, manifest: Manifest, policyDigest: Sha256Id): void;
}

let keptIn: ((storeDir: string) => KeptConfigs) | undefined;

/** Sets what config loads keep in a store (service/speed.ts's `installSpeed` does, for the speed layer). */
export function keepConfigsWith(factory: ((storeDir: string) => KeptConfigs) | undefined): void {
  keptIn = factory;
}

/** What config loads keep in the store at `storeDir`, when the speed layer is installed. */
export function keptConfigsIn(storeDir: string): KeptConfigs | undefined {
  return keptIn?.(storeDir);
}
