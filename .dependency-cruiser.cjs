/**
 * vkit's import boundaries, checked by dependency-cruiser (`npm run lint`, and `npm test` through
 * test/tooling/boundaries.test.ts). The layer order, top to bottom, written down once:
 *
 *   faces      src/cli, src/mcp, src/tui, src/daemon, src/index.ts, src/schemas.ts, and src/fast (the speed layer)
 *   service    src/service
 *   engine     src/engine, src/jobs
 *   libraries  src/formal, src/evidence, src/remote (what the kinds are made of)
 *   base       src/store, src/capture, src/checkers, src/graph, src/gate
 *   core       src/config, src/kit, src/hash, src/text, src/errors.ts
 *
 * A module may import its own layer or any layer below it, never one above; `src/` never imports
 * `rules/` (the kinds are handed in by the entry points; the public API's types are the one exception,
 * type-only); no import cycles at all. A kind (`rules/<kind>/`) reaches vkit through the kit API and
 * the libraries, never a face or the service (what it adds to those it contributes through the
 * registry: verbs, MCP tools), and no kind imports another kind's folder. There is no baseline of
 * known violations: every one fails.
 *
 * The speed layer (src/fast/: no-op records, the daemon's memo, kept bundles and manifests, V8's code
 * cache, boot-ahead) sits beside the faces: only faces import it. The core declares the seams it
 * implements (service/speed.ts, config/kept.ts), so no core file knows that shortcuts exist.
 */
const LAYERS = [
  { name: 'faces', path: '^src/(cli|mcp|tui|daemon|fast)/|^src/(index|schemas)\\.ts$' },
  { name: 'service', path: '^src/service/' },
  { name: 'engine', path: '^src/(engine|jobs)/' },
  { name: 'libraries', path: '^src/(formal|evidence|remote)/' },
  { name: 'base', path: '^src/(store|capture|checkers|graph|gate)/' },
  { name: 'core', path: '^src/(config|kit|hash|text)/|^src/errors\\.ts$' },
];

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} may not import ${LAYERS.slice(0, i + 1)
    .map((l) => l.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: layer.path },
  to: {
    path: LAYERS.slice(0, i + 1)
      .map((l) => `(${l.path})`)
      .join('|'),
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'import cycles make modules impossible to read or load alone',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-rules',
      comment: 'src/ never imports rules/: entry points hand the kinds in',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^rules/' },
    },
    {
      name: 'public-api-types-only',
      comment: "the public API (src/index.ts) names the built-in kinds' config types, never loads rules/ code",
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^rules/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'kind-through-registry',
      comment:
        'a kind imports the kit API and libraries, never a face, the service, the engine or the jobs: it contributes verbs and tools through the registry, and its rule runs inside a job',
      severity: 'error',
      from: { path: '^rules/' },
      to: { path: '^src/(cli|mcp|tui|daemon|fast|service|engine|jobs)/' },
    },
    {
      name: 'kind-own-folder',
      comment: "a kind's folder imports no other kind's (the registry, rules/index.ts, lists them all)",
      severity: 'error',
      from: { path: '^rules/([^/]+)/' },
      to: { path: '^rules/', pathNot: ['^rules/$1/'] },
    },
    {
      name: 'core-never-speed',
      comment:
        'the core (service, engine, jobs, libraries, base, config) never imports the speed layer: it declares the seam (service/speed.ts, config/kept.ts) and src/fast/ implements it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|mcp|tui|daemon|fast)/|^src/(index|schemas)\\.ts$' },
      to: { path: '^src/fast/' },
    },
    ...upward,
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
