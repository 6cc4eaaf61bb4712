/**
 * `npm run test:pack`: vkit as a newcomer gets it. Packs this repository (`npm pack`), makes a new
 * TypeScript-free npm project in a temp directory (a `test`, a `lint` and a `build` script, a git
 * repository), installs vkit from the tarball (`npm i -D`), then runs `vkit init`, `vkit build`
 * (READY), an edit of a source file (its checks run again, READY) and `vkit gate`. The optional peer
 * dependencies are not installed, and each path that needs one says what to install: `vkit mcp` exits
 * 5, `vkit tui` in a terminal prints plain lines after a hint, a formal item is BLOCKED. Prints how
 * long the install took and how many packages it left (every package directory in node_modules, nested
 * ones too). Exit 0 when every step did what it should.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installKinds } from '../src/config/kind.js';
import { loadConfig } from '../src/config/load.js';
import { installCommand } from '../src/config/optional-package.js';
import type { ResolvedComponent } from '../src/formal/component-schema.js';
import { lockText } from '../src/formal/lock.js';
import { loadPackage } from '../src/formal/packages.js';
import { policySliceDigest } from '../src/formal/policy.js';
import { registry } from '../rules/index.js';

// The formal demo's config is read here (for its lock entry): with the built-in kinds, as bin/vkit.js reads it.
installKinds(registry);

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'vkit-pack-'));
const project = join(dir, 'project');

function step(what: string, argv: string[], expect = 0): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: project, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== expect) fail(`${what}: exit ${r.status}, expected ${expect}\n${out}`);
  process.stdout.write(`pack-install: ${what}: ok\n`);
  return out;
}

function fail(why: string): never {
  process.stderr.write(`pack-install: ${why}\n`);
  process.exit(1);
}

function expectIn(out: string, text: string, what: string): void {
  if (!out.includes(text)) fail(`${what}: expected the output to name \`${text}\`\n${out}`);
}

/** Every installed package: each directory holding a package.json at `node_modules/<name>` or `node_modules/@scope/<name>`, at any depth. */
function countPackages(nodeModules: string): number {
  let n = 0;
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    const dirs = name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((s) => join(name, s)) : [name];
    for (const d of dirs) {
      const at = join(nodeModules, d);
      if (!existsSync(join(at, 'package.json'))) continue;
      n++;
      if (existsSync(join(at, 'node_modules'))) n += countPackages(join(at, 'node_modules'));
    }
  }
  return n;
}

/** vkit's optional peer dependencies: none installed, and each verb that needs one names what to run. */
async function optionalPackages(): Promise<void> {
  const peers = Object.keys(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).peerDependencies);
  const installed = peers.filter((p) => existsSync(join(project, 'node_modules', p)));
  if (installed.length) fail(`optional packages were installed: ${installed.join(', ')}`);
  process.stdout.write(`pack-install: none of the optional packages installed (${peers.join(', ')}): ok\n`);
  const mcp = step('vkit mcp without the SDK: exit 5', ['npx', 'vkit', 'mcp'], 5);
  expectIn(mcp, installCommand(['@modelcontextprotocol/sdk', 'zod']), 'vkit mcp');
  const tui = step('vkit tui in a terminal without Ink: plain lines', ['script', '-qfec', 'npx vkit tui', '/dev/null']);
  expectIn(tui, installCommand(['ink', 'react']), 'vkit tui');
  expectIn(tui, 'READY', 'vkit tui');
  const root = await formalRoot();
  const build = step('a formal item without dockerode: BLOCKED', ['npx', 'vkit', 'build', '--json', '--root', root], 3);
  const item = JSON.parse(build).gate.items.find((i: { id: string }) => i.id === 'formal:allocation');
  if (item?.status !== 'BLOCKED') fail(`the formal item is ${item?.status}, expected BLOCKED\n${build}`);
  expectIn(item.reason, installCommand(['dockerode']), 'the formal item');
}

/** A git repo declaring one formal component of the bundled ledger package, with its lock entry accepted. */
async function formalRoot(): Promise<string> {
  const root = join(dir, 'formal');
  mkdirSync(join(root, 'src'), { recursive: true });
  const ledger = loadPackage('vkit.resource-ledger', '0.1.0');
  const component = {
    id: 'allocation',
    package: { id: ledger.id, version: ledger.version, sha256: ledger.sha256 },
    contract: 'ledger.source.v1',
    source: { entry: 'src/allocation.v' },
    profile: 'coq-linux-x86_64-v1',
    parameters: { max_records: 3, command_count: 4 },
    bindings: Object.fromEntries(ledger.bindings.map((b) => [b, `Allocation.${b}`])),
    required: true,
    inputs: ['src/allocation.v'],
  };
  writeFileSync(join(root, 'src', 'allocation.v'), '(* candidate *)\n');
  writeFileSync(join(root, 'vkit.manifest.json'), JSON.stringify({ formal: { components: [component] } }));
  execFileSync('git', ['init', '-q'], { cwd: root });
  const config = await loadConfig(root);
  const resolved = (config.manifest as unknown as { formal: { components: ResolvedComponent[] } }).formal
    .components[0]!;
  const entry = {
    policy_sha256: policySliceDigest(resolved),
    package_sha256: ledger.sha256,
    checker_sha256: `sha256:${'c'.repeat(64)}`,
    profile: resolved.profile,
    accepted_at: new Date().toISOString(),
  };
  writeFileSync(join(root, 'vkit.lock.json'), lockText({ schema: 'vkit.lock/1', components: { allocation: entry } }));
  return root;
}

try {
  const tarball = execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: REPO, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, 'test'));
  const pkg = {
    name: 'pack-demo',
    version: '1.0.0',
    type: 'module',
    scripts: {
      lint: 'node -e "process.exit(0)"',
      build:
        "node -e \"require('fs').mkdirSync('dist',{recursive:true});require('fs').copyFileSync('src/add.js','dist/add.js')\"",
      test: 'node --test',
    },
  };
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(project, '.gitignore'), 'node_modules/\ndist/\n');
  writeFileSync(join(project, 'src', 'add.js'), 'export const add = (a, b) => a + b;\n');
  writeFileSync(
    join(project, 'test', 'add.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('add', () => assert.equal(add(1, 2), 3));\n",
  );
  step('git init', ['git', 'init', '-q']);
  const t0 = performance.now();
  step('npm i -D the tarball', ['npm', 'i', '-D', join(dir, tarball), '--no-audit', '--no-fund']);
  const seconds = Math.round((performance.now() - t0) / 1000);
  const packages = countPackages(join(project, 'node_modules'));
  process.stdout.write(`pack-install: installed in ${seconds} s, ${packages} packages in node_modules\n`);
  step('vkit init', ['npx', 'vkit', 'init']);
  step('git add', ['git', 'add', '-A']);
  step('vkit build: READY', ['npx', 'vkit', 'build']);
  writeFileSync(join(project, 'src', 'add.js'), 'export const add = (a, b) => b + a;\n');
  const rebuilt = step('an edit, vkit build again: READY', ['npx', 'vkit', 'build']);
  if (!/ran\s+check:test/.test(rebuilt)) {
    process.stderr.write(`pack-install: the edit did not run check:test again\n${rebuilt}\n`);
    process.exit(1);
  }
  step('vkit gate: READY', ['npx', 'vkit', 'gate']);
  await optionalPackages();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
