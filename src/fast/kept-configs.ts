/**
 * The speed layer's `KeptConfigs` (src/config/kept.ts): TS config bundles (bundle-cache.ts) and
 * validated manifests (manifest-cache.ts) kept in a store. Manifests are kept only under a code
 * identity (bin/vkit.js gives one while the current bundle runs), since validation is vkit's code.
 */
import { join } from 'node:path';
import type { KeptConfigs } from '../config/kept.js';
import { installSpeed } from '../service/speed.js';
import { readCompiled, writeCompiled } from './bundle-cache.js';
import { keepManifest, readKeptManifest } from './manifest-cache.js';

export function keptConfigs(dirs: { bundles?: string; manifests?: string }, code?: string): KeptConfigs {
  const { bundles, manifests } = dirs;
  return {
    bundle: (root, file, self) => (bundles ? readCompiled(bundles, root, file, self) : undefined),
    keepBundle: (root, file, self, compiled, since) => {
      if (bundles) writeCompiled(bundles, root, file, self, compiled, since);
    },
    manifest: (file, shown, text) => readKeptManifest(manifests, code, file, shown, text),
    keepManifest: (file, shown, text, manifest, digest) =>
      keepManifest(manifests, code, file, shown, text, manifest, digest),
  };
}

/** Plugs what config loads keep into the service for this process; `code` is the running code's identity, if known. */
export function installKeptConfigs(code: string | undefined): void {
  installSpeed({
    keptConfigs: (storeDir) =>
      keptConfigs({ bundles: join(storeDir, 'config-bundles'), manifests: join(storeDir, 'config-manifests') }, code),
  });
}
