/**
 * The import boundaries of .dependency-cruiser.cjs hold for the code as it is (no baseline of known
 * violations: there are none), and the tool does catch what it is there for: an upward import, a
 * cycle and an import of rules/ planted in a copy of the tree all fail it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../_support/repo.js';

const DEPCRUISE = join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

function cruise(root: string) {
  return spawnSync(
    process.execPath,
    [DEPCRUISE, 'src', 'rules', 'bin', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
    { cwd: root, encoding: 'utf8' },
  );
}

test('the code keeps its import boundaries (no new upward import, import of rules/ from src/, or cycle)', () => {
  const r = cruise(REPO_ROOT);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /no dependency violations found/);
});

test('planted violations fail the check: an upward import, a cycle, src importing rules/, the core importing the speed layer, a kind reaching past the registry', () => {
  const copy = mkdtempSync(join(tmpdir(), 'vkit-boundaries-'));
  try {
    for (const entry of ['src', 'rules', 'bin', 'tsconfig.json', 'package.json', '.dependency-cruiser.cjs'])
      cpSync(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
    assert.equal(cruise(copy).status, 0, 'the copy is clean before planting');
    writeFileSync(join(copy, 'src', 'hash', 'planted-upward.ts'), "export { runEngine } from '../engine/build.js';\n");
    writeFileSync(
      join(copy, 'src', 'gate', 'planted-a.ts'),
      "import { b } from './planted-b.js';\nexport const a = () => b;\n",
    );
    writeFileSync(
      join(copy, 'src', 'gate', 'planted-b.ts'),
      "import { a } from './planted-a.js';\nexport const b = () => a;\n",
    );
    writeFileSync(
      join(copy, 'src', 'engine', 'planted-rules.ts'),
      "export { checkRule } from '../../rules/check/rule.js';\n",
    );
    // A kind importing the service (it should contribute through the registry), and another kind's folder.
    writeFileSync(
      join(copy, 'rules', 'compare', 'planted-service.ts'),
      "export { build } from '../../src/service/index.js';\n",
    );
    writeFileSync(
      join(copy, 'rules', 'compare', 'planted-kind.ts'),
      "export { checkKind } from '../check/index.js';\n",
    );
    // The service reaching the speed layer instead of declaring the seam it needs.
    writeFileSync(
      join(copy, 'src', 'service', 'planted-speed.ts'),
      "export { keptConfigs } from '../fast/kept-configs.js';\n",
    );
    const r = cruise(copy);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /core-never-speed: src\/service\/planted-speed\.ts/);
    assert.match(r.stdout, /kind-through-registry: rules\/compare\/planted-service\.ts/);
    assert.match(r.stdout, /kind-own-folder: rules\/compare\/planted-kind\.ts/);
    assert.match(r.stdout, /no-upward-from-core: src\/hash\/planted-upward\.ts/);
    assert.match(r.stdout, /no-circular: src\/gate\/planted-a\.ts/);
    assert.match(r.stdout, /src-not-rules: src\/engine\/planted-rules\.ts/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

const KNIP = join(REPO_ROOT, 'node_modules', 'knip', 'bin', 'knip.js');

test('knip finds no unused file, export or dependency, and catches a planted unused export', () => {
  const clean = spawnSync(process.execPath, [KNIP, '--no-progress'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(clean.status, 0, clean.stdout + clean.stderr);
  const copy = mkdtempSync(join(tmpdir(), 'vkit-knip-'));
  try {
    for (const entry of [
      'src',
      'rules',
      'test',
      'bench',
      'scripts',
      'bin',
      'tsconfig.json',
      'package.json',
      'knip.jsonc',
    ])
      cpSync(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
    writeFileSync(join(copy, 'src', 'hash', 'index.ts'), '\nexport const plantedUnused = 1;\n', { flag: 'a' });
    const r = spawnSync(process.execPath, [KNIP, '--no-progress'], { cwd: copy, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /plantedUnused/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
