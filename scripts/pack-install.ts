/**
 * `npm run test:pack`: vkit as a newcomer gets it. Packs this repository (`npm pack`), makes a new
 * TypeScript-free npm project in a temp directory (a `test`, a `lint` and a `build` script, a git
 * repository), installs vkit from the tarball (`npm i -D`), then runs `vkit init`, `vkit build`
 * (READY), an edit of a source file (its checks run again, READY) and `vkit gate`. Prints how long
 * the install took and how many packages it left. Exit 0 when every step did what it should.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'vkit-pack-'));
const project = join(dir, 'project');

function step(what: string, argv: string[], expect = 0): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: project, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== expect) {
    process.stderr.write(`pack-install: ${what}: exit ${r.status}, expected ${expect}\n${out}\n`);
    process.exit(1);
  }
  process.stdout.write(`pack-install: ${what}: ok\n`);
  return out;
}

function countPackages(nodeModules: string): number {
  let n = 0;
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) n += readdirSync(join(nodeModules, name)).length;
    else n++;
  }
  return n;
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
  process.stdout.write(`pack-install: installed in ${seconds} s, ${packages} packages in node_modules\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
