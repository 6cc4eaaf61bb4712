import { defineConfig } from 'vkit';

// vkit checking itself: the typecheck and the fast unit suite, required like any user's checks.
// .ci/run runs this after the full suite (never from inside it).
// `bench/.work/` (the benchmarks' generated workspaces) and the examples' `target/` directories are
// git-ignored: vkit never captures them, so the globs that could reach them exclude them explicitly.
const sources = [
  'src/**/*.{ts,tsx}',
  'rules/**/*.ts',
  'test/**/*.ts',
  'bench/**/*.ts',
  '!bench/.work/**',
  'scripts/*.ts',
  'scripts/*.js',
  'bin/vkit.js',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];

export default defineConfig({
  checks: [
    {
      id: 'typecheck',
      run: ['node', 'node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'],
      inputs: sources,
    },
    {
      // Formatting, lint, import boundaries, unused code (knip) and the size limits (check-sizes).
      id: 'lint',
      run: 'node node_modules/@biomejs/biome/bin/biome check . && node node_modules/dependency-cruiser/bin/dependency-cruise.mjs src rules bin --config .dependency-cruiser.cjs && node node_modules/knip/bin/knip.js --no-progress && node scripts/check-sizes.js',
      // Every file biome reads (what its config does not exclude) and what dependency-cruiser reads.
      inputs: [
        '**/*.{ts,tsx,js,mjs,cjs,json,jsonc}',
        '!{dist,node_modules,schema,fixtures,examples,bench/.work}/**',
        '!**/package-lock.json',
        // The report `npm run qualify:ledger` writes (git-ignored, so biome skips it too).
        '!qualification-ledger.json',
      ],
    },
    {
      id: 'unit',
      // Compiles to dist/ first: the suite runs from compiled output.
      run: 'node node_modules/typescript/bin/tsc -p tsconfig.json && node dist/scripts/bundle-cli.js && node scripts/run-tests.js --fast',
      // The documentation tests read the README, docs/ and the files their links name (CLI table, links).
      inputs: [
        ...sources,
        'examples/**/*',
        '!examples/**/target/**',
        'fixtures/**/*',
        'schema/*.json',
        '*.md',
        'docs/*.md',
      ],
      after: ['typecheck'],
      // --fast: no slow suite and none needing podman, spin or nginx (scripts/run-tests.js); CI runs
      // the full suite just before. It took over 1,200 s on a slow 2-core VM beside qualify:ledger's
      // Coq containers when it still held the container suites.
      timeout_s: 2400,
      // The suite starts sandboxes (bubblewrap cannot nest) and containers through the podman socket
      // in /tmp, and runs git in temp repositories: it needs the machine as it is.
      sandbox: { none: "vkit's own suite starts sandboxes and containers itself" },
    },
  ],
  // The bundled example must keep showing its one changed transition.
  compare: [{ id: 'toggle-example', request: 'examples/model-comparison/request.json', expect: 'different' }],
  // The weighted-toy acceptance record must stay valid and effect-eligible, and its claim's command
  // must still print what the package expects. Its decision expires on 2027-05-29: from the next day
  // this item is STALE until a renewed decision is issued, as acceptance means.
  // vkit's own package must reject every wrong candidate of its catalogue (17 mutants) and its eight
  // adequacy theorems must hold: the whole catalogue runs in the Coq worker image (106 s on a 2-core VM with
  // two candidates at a time), once per change of the package, the catalogue or the checker. The
  // checker is bound by `vkit policy accept` in vkit.lock.json (.ci/run accepts before building).
  formal: {
    qualifications: [
      {
        id: 'ledger',
        package: {
          id: 'vkit.resource-ledger',
          version: '0.1.0',
          sha256: 'sha256:46769261ed43bc9a98bbafeb7d4aa6bebcb7967a431e355f75aa46b75f949950',
        },
        profile: 'coq-linux-x86_64-v1',
      },
    ],
    // The job lifecycle's Promela model (fixtures/lifecycle/README.md): its five ltl properties and
    // deadlock freedom in the quiet world, each decided by a full search in the Spin worker image.
    models: [
      {
        id: 'lifecycle',
        profile: 'spin-linux-x86_64-v1',
        model: 'fixtures/lifecycle/lifecycle.pml',
        properties: [
          { name: 'no_pass_without_completed_attempt', kind: 'ltl' },
          { name: 'one_publication_per_run', kind: 'ltl' },
          { name: 'recovery_spares_live_workers', kind: 'ltl' },
          { name: 'cancel_stays_in_its_run', kind: 'ltl' },
          { name: 'ended_stays_ended', kind: 'ltl' },
          { name: 'end-states', kind: 'deadlock', defines: ['QUIET'] },
        ],
        bounds: { memory_mb: 2048 },
        inputs: ['fixtures/lifecycle/lifecycle.pml'],
      },
    ],
  },
  acceptance: [
    {
      id: 'weighted-toy',
      root: 'examples/weighted-toy',
      spec: 'examples/weighted-toy/acceptance-specification.toml',
      package: 'examples/weighted-toy/acceptance.toml',
      decision: 'examples/weighted-toy/acceptance-decision.toml',
      run_commands: true,
    },
  ],
});
