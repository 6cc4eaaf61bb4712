/**
 * `import()` of a package or a URL (a kinds registry, a bundled config, esbuild): every such import
 * in vkit's own code goes through here. The one-script CLI and worker (D56, scripts/bundle-cli.ts)
 * replace this module with one that hands the specifier to the ES module that ran the script
 * (fast/code-cache.ts): node 20 loses a `vm` script's dynamic-import callback when its code comes
 * from V8's code cache, so the script itself must never call `import()`.
 */
export function importModule<T = Record<string, unknown>>(specifier: string): Promise<T> {
  return import(specifier) as Promise<T>;
}
