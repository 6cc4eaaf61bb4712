/**
 * `vkit init` on a small npm project (issue 46): one check per package.json script it knows, the test
 * after the build when it needs the build's output, exclusions for every folder .gitignore names
 * whether it exists yet or not (so a build creating dist/ leaves the config valid), readable
 * multi-line TypeScript, and `--dry-run`. Real git repositories, the built CLI, a real build.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { cli } from '../_support/evidence.js';
import { sections, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

/** A node one-liner as an npm script (double quotes inside the JSON string). */
const node = (code: string) => `node -e "${code}"`;

/** A TypeScript library's package.json whose four scripts are trivial node commands (no TypeScript needed). */
const LIBRARY = {
  name: 'lib',
  main: 'dist/index.js',
  scripts: {
    typecheck: node('0'),
    lint: node("require('fs').readFileSync('src/index.ts')"),
    build: node(
      "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/index.js','module.exports=41+1')",
    ),
    test: node("require('assert').equal(require('.'),42)"),
  },
  devDependencies: { fake: '1.0.0' },
};

function library(extra: Record<string, string> = {}): TempRepo {
  return tempRepo({
    'package.json': `${JSON.stringify(LIBRARY, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n/coverage\n',
    'src/index.ts': 'export const answer = 42;\n',
    'node_modules/fake/package.json': '{"name":"fake","version":"1.0.0"}\n',
    ...extra,
  });
}

function init(repo: TempRepo, ...flags: string[]) {
  const r = vkit(['init', '--root', repo.dir, ...flags], { cwd: repo.dir });
  assert.equal(r.code, 0, `init: ${r.stdout}${r.stderr}`);
  return r;
}

async function checksOf(repo: TempRepo) {
  const config = await loadConfig(repo.dir);
  await config.close();
  return sections(config.manifest).checks;
}

test('a library with typecheck, lint, build and test scripts gets four checks, the test after the build, and builds READY', async () => {
  const repo = library();
  try {
    init(repo);
    const checks = await checksOf(repo);
    assert.deepEqual(
      checks.map((c) => ({ id: c.id, run: c.run, after: c.after, outputs: c.outputs, deps: c.deps })),
      [
        { id: 'typecheck', run: ['npm', 'run', 'typecheck'], after: [], outputs: [], deps: { npm: ['.'] } },
        { id: 'lint', run: ['npm', 'run', 'lint'], after: [], outputs: [], deps: { npm: ['.'] } },
        { id: 'build', run: ['npm', 'run', 'build'], after: [], outputs: ['dist/**'], deps: { npm: ['.'] } },
        { id: 'test', run: ['npm', 'test'], after: ['build'], outputs: [], deps: { npm: ['.'] } },
      ],
    );
    // Every check reads the project's sources and excludes what git ignores, present or not.
    for (const c of checks) {
      assert.ok(c.inputs.includes('**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts,json}'), c.id);
      for (const ex of ['!**/node_modules/**', '!**/dist/**', '!coverage/**']) assert.ok(c.inputs.includes(ex), ex);
    }
    const built = cli(repo, ['build']);
    assert.equal(built.code, 0, `the starter builds READY: ${built.stdout}${built.stderr}`);
    assert.match(built.stdout, /ran\s+check:build[\s\S]*ran\s+check:test/, 'the test ran after the build');
    assert.match(built.stdout, /gate READY: all 4 required item/);
    // The build made dist/, which the config already excludes: the next build is valid and cached.
    assert.ok(existsSync(join(repo.dir, 'dist', 'index.js')));
    const again = cli(repo, ['build']);
    assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
    assert.match(again.stdout, /0 ran, 4 cached/);
  } finally {
    repo.cleanup();
  }
});

test('the config is readable multi-line TypeScript in the README form, not one-line JSON', () => {
  const repo = library();
  try {
    init(repo);
    const text = readFileSync(join(repo.dir, 'vkit.config.ts'), 'utf8');
    assert.match(text, /^import \{ defineConfig \} from 'vkit';$/m);
    assert.match(text, /^export default defineConfig\(\{$/m);
    assert.match(text, /^const inputs = \[$/m);
    assert.match(text, /^const deps = \{ npm: '\.' \};$/m);
    assert.match(text, /^ {4}\{ id: 'typecheck', run: \['npm', 'run', 'typecheck'\], inputs, deps \},$/m);
    assert.match(text, /^ {6}after: \['build'\],$/m);
    assert.match(text, /^ {6}outputs: \['dist\/\*\*'\],$/m);
    assert.doesNotMatch(text, /\{"id"/, 'no JSON object literal');
    const lines = text.split('\n');
    assert.ok(lines.length > 30, `multi-line: ${lines.length} lines`);
    for (const line of lines) assert.ok(line.length <= 120, `a line a reader can read: ${line}`);
  } finally {
    repo.cleanup();
  }
});

test('folders .gitignore names are excluded before they exist: creating them later keeps the config valid', () => {
  // One `npm test` check as before, so only the exclusions differ from the old starter.
  const repo = tempRepo({
    'package.json': `${JSON.stringify({ scripts: { test: node('0') } })}\n`,
    '.gitignore': 'dist/\n/coverage\nnode_modules\n',
    'index.js': 'module.exports = 1;\n',
  });
  try {
    init(repo);
    const first = cli(repo, ['build']);
    assert.equal(first.code, 0, `${first.stdout}${first.stderr}`);
    // What `npm run build` and a coverage run create after init, at the top and in a nested package.
    for (const file of ['dist/a.js', 'coverage/lcov.json', 'packages/p/dist/b.js', 'packages/p/node_modules/x/i.js'])
      repo.write(file, 'x\n');
    const after = cli(repo, ['build']);
    assert.notEqual(after.code, 2, `the config must stay valid: ${after.stdout}${after.stderr}`);
    assert.equal(after.code, 0, `${after.stdout}${after.stderr}`);
  } finally {
    repo.cleanup();
  }
});

test('a folder pattern that would exclude a file git lists is left out: the checks keep reading it', () => {
  const repo = tempRepo({
    'package.json': `${JSON.stringify({ scripts: { test: node('0') } })}\n`,
    '.gitignore': 'build/\n',
    'src/build/tool.ts': 'export const x = 1;\n',
  });
  try {
    // Tracked although .gitignore names its folder (added before the pattern, or forced).
    repo.git('add', '-f', 'src/build/tool.ts');
    repo.commitAll();
    const r = init(repo, '--dry-run');
    assert.doesNotMatch(r.stdout, /!\*\*\/build\/\*\*/, 'src/build/tool.ts is tracked and must stay in the inputs');
  } finally {
    repo.cleanup();
  }
});

test('--dry-run prints the config it would write and writes nothing; an existing config is still refused', () => {
  const repo = library();
  try {
    const dry = init(repo, '--dry-run');
    assert.ok(!existsSync(join(repo.dir, 'vkit.config.ts')), 'nothing written');
    assert.match(dry.stdout, /^import \{ defineConfig \} from 'vkit';/);
    assert.match(dry.stderr, /--dry-run: would write .*vkit\.config\.ts; nothing written/);
    const json = vkit(['init', '--root', repo.dir, '--dry-run', '--json'], { cwd: repo.dir });
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.json().text, dry.stdout);
    assert.ok(!existsSync(join(repo.dir, 'vkit.config.ts')), 'nothing written with --json either');
    init(repo);
    const written = readFileSync(join(repo.dir, 'vkit.config.ts'), 'utf8');
    assert.equal(dry.stdout, written, 'the dry run printed exactly what init writes');
    for (const flags of [['--dry-run'], []]) {
      const again = vkit(['init', '--root', repo.dir, ...flags], { cwd: repo.dir });
      assert.equal(again.code, 2, `${flags}: ${again.stdout}${again.stderr}`);
      assert.match(again.stderr, /A config already exists/);
      assert.equal(readFileSync(join(repo.dir, 'vkit.config.ts'), 'utf8'), written);
    }
  } finally {
    repo.cleanup();
  }
});

test('a package.json that is not JSON is exit 2 naming the file, not a crash', () => {
  // A trailing comma: node names the position, so the line can be given.
  const repo = tempRepo({ 'package.json': '{\n  "name": "x",\n}\n' });
  try {
    const r = vkit(['init', '--root', repo.dir], { cwd: repo.dir });
    assert.equal(r.code, 2, `${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /package\.json.*not valid JSON/);
    assert.match(r.stderr, /package\.json:3\b|line 3/, `the line is named: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.ok(!existsSync(join(repo.dir, 'vkit.config.ts')));
  } finally {
    repo.cleanup();
  }
});

test('with --root below the top of the work tree, the .gitignore files above it count, anchored ones only below the root', () => {
  const repo = tempRepo({
    '.gitignore': 'dist/\n/pkg/coverage/\n/other/\n',
    'pkg/.gitignore': '/tmp-out\n',
    'pkg/package.json': `${JSON.stringify({ scripts: { test: node('0') } })}\n`,
    'pkg/index.js': 'module.exports = 1;\n',
  });
  try {
    const root = join(repo.dir, 'pkg');
    const r = vkit(['init', '--root', root, '--dry-run'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    const excludes = r.stdout.split('\n').filter((l) => l.trim().startsWith("'!"));
    assert.deepEqual(
      excludes.map((l) => l.trim()),
      ["'!**/dist/**',", "'!coverage/**',", "'!tmp-out/**',", "'!node_modules/**',"],
    );
  } finally {
    repo.cleanup();
  }
});
