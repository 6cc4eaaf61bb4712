/**
 * The bundled CLI (scripts/bundle-cli.ts, `npm run build`) runs only while it is current: bin/vkit.js
 * compares every module it was made from with the sizes and mtimes recorded when it was made, and
 * runs tsc's modules when one differs or the record is missing. Each case runs a copy of the package
 * (so the real dist/ is never touched) under a loader hook that lists the modules node loads.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT } from '../_support/repo.js';

let pkg: string;
let work: string;

// Logs each module node loads from the package, one `LOADED <url>` line on stderr.
const HOOK = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  "export async function load(url, ctx, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\\\n'); return next(url, ctx); }"
));
`;

before(() => {
  const top = mkdtempSync(join(tmpdir(), 'vkit-bundle-'));
  pkg = join(top, 'vkit');
  for (const part of ['bin', 'package.json', 'dist/src', 'dist/rules', 'dist/bundle'])
    cpSync(join(REPO_ROOT, part), join(pkg, part), { recursive: true, preserveTimestamps: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(pkg, 'node_modules'));
  writeFileSync(join(top, 'hook.mjs'), HOOK);
  // A project with a TS config: the config thread, its `vkit` import and the kinds all resolve from the copy.
  work = join(top, 'project');
  cpSync(join(REPO_ROOT, 'examples', 'quickstart'), work, { recursive: true });
});
after(() => rmSync(join(pkg, '..'), { recursive: true, force: true }));

function run(args: string[]) {
  const r = spawnSync(
    process.execPath,
    ['--import', join(pkg, '..', 'hook.mjs'), join(pkg, 'bin', 'vkit.js'), ...args],
    {
      cwd: work,
      env: { ...process.env, VKIT_DAEMON: '0', NO_COLOR: '1' },
      encoding: 'utf8',
    },
  );
  const loaded = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => l.slice('LOADED '.length));
  return {
    code: r.status,
    stdout: r.stdout,
    loaded,
    own: (rel: string) => loaded.includes(`file://${join(pkg, rel)}`),
  };
}

/** `build` and `gate` run the bundle as one script (D56): what loads it is the only ES module of it node sees. */
const SCRIPT_RUNNER = 'dist/src/fast/code-cache.js';

test('a current bundle is what runs, and it finds what lies beside its modules', () => {
  assert.ok(
    statSync(join(pkg, 'dist', 'bundle', 'inputs.json')).isFile(),
    'dist/bundle/inputs.json is missing: run `npm run build` (tsc, then scripts/bundle-cli.ts)',
  );
  const version = run(['--version']);
  assert.equal(version.code, 0);
  // main.ts reads package.json by its own module's URL: rewritten in the bundle, still the package's.
  assert.equal(version.stdout.trim(), `vkit ${JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version}`);
  const build = run(['build', '--store', join(work, '.store'), '--json']);
  assert.equal(build.code, 0, build.stdout);
  // READY from a TS config: the config thread's entry (found beside isolate.js's original module)
  // started, and the config's `vkit` import resolved to the package's public entry.
  assert.equal(JSON.parse(build.stdout).gate.status, 'READY');
  assert.ok(build.own(SCRIPT_RUNNER) && !build.own('dist/bundle/cli.js'), 'the bundle ran, as one script');
  assert.ok(!build.own('dist/src/cli/main.js') && !build.own('dist/src/store/store.js'), "tsc's modules did not");
});

/** The command lines of the running processes that name `needle`. */
function processesNaming(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(needle)) found.push(cmdline);
    } catch {} // gone meanwhile
  }
  return found;
}

test("the bundled CLI's job workers run the bundle's worker entry, not tsc's", async () => {
  // A check that runs long enough to see its worker: the worker is the process running the job.
  const slow = join(pkg, '..', 'slow');
  cpSync(work, slow, { recursive: true });
  rmSync(join(slow, '.store'), { recursive: true, force: true });
  writeFileSync(
    join(slow, 'vkit.config.ts'),
    `import { defineConfig } from 'vkit';
export default defineConfig({
  checks: [{ id: 'slow', run: ['node', '-e', 'setTimeout(() => {}, 4000)'], inputs: ['src/add.js'] }],
});
`,
  );
  const child = spawn(process.execPath, [join(pkg, 'bin', 'vkit.js'), 'build', '--store', join(slow, '.store')], {
    cwd: slow,
    env: { ...process.env, VKIT_DAEMON: '0', NO_COLOR: '1' },
    stdio: 'ignore',
  });
  const ended = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const workers = new Set<string>();
  let done = false;
  void ended.then(() => (done = true));
  while (!done) {
    // A worker started for the queue, or the one started ahead (a build without a no-op record, D58).
    for (const cmd of processesNaming(join(pkg, 'dist')))
      if (cmd.includes('--queue') || cmd.includes('--standby')) workers.add(cmd);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await ended, 0);
  assert.ok(workers.size > 0, 'a worker was seen while the check ran');
  for (const cmd of workers) {
    assert.ok(cmd.includes(join(pkg, 'dist', 'bundle', 'worker.js')), `the bundle's worker ran: ${cmd}`);
    assert.ok(!cmd.includes('worker-main.js'), cmd);
  }
});

test('a module only touched after bundling (npm resets mtimes on install) is compared by content', () => {
  const file = join(pkg, 'dist', 'src', 'store', 'store.js');
  const later = new Date(statSync(file).mtimeMs + 5000);
  utimesSync(file, later, later);
  const r = run(['build', '--store', join(work, '.store'), '--json']);
  assert.equal(r.code, 0, r.stdout);
  assert.ok(r.own(SCRIPT_RUNNER), 'same bytes: the bundle still runs');
});

test("a bundle file edited by hand: tsc's modules run instead, until its bytes are back", () => {
  const file = join(pkg, 'dist', 'bundle', 'cli.js');
  const text = readFileSync(file, 'utf8');
  // Same size, new bytes: the file is no longer the one the record names.
  writeFileSync(file, text.replace('const ', 'let   '));
  assert.equal(statSync(file).size, Buffer.byteLength(text));
  const edited = run(['--version']);
  assert.equal(edited.code, 0);
  assert.ok(!edited.own('dist/bundle/cli.js') && edited.own('dist/src/cli/entry.js'), 'the edited bundle did not run');
  writeFileSync(file, text);
  assert.ok(run(['--version']).own('dist/bundle/cli.js'), 'the same bytes again: the bundle runs');
});

test("the one-script CLI edited by hand (same size): `build` runs tsc's modules, not the script or its cache", () => {
  const store = join(work, '.store');
  assert.equal(run(['build', '--store', store, '--json']).code, 0);
  const file = join(pkg, 'dist', 'bundle', 'cli.cjs');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace('var ', 'let '));
  assert.equal(statSync(file).size, Buffer.byteLength(text));
  const r = run(['build', '--store', store, '--json']);
  assert.equal(r.code, 0, r.stdout);
  assert.ok(!r.own(SCRIPT_RUNNER) && r.own('dist/src/cli/entry.js'), 'the edited script did not run');
  writeFileSync(file, text);
  assert.ok(run(['build', '--store', store, '--json']).own(SCRIPT_RUNNER), 'the same bytes again: the script runs');
});

test("a module changed after bundling: tsc's modules run instead of the stale bundle", () => {
  // Same size, new bytes: only the content comparison can tell.
  const file = join(pkg, 'dist', 'src', 'store', 'store.js');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace('/**', '/*!'));
  assert.equal(statSync(file).size, Buffer.byteLength(text));
  const r = run(['build', '--store', join(work, '.store'), '--json']);
  assert.equal(r.code, 0, r.stdout);
  assert.ok(!r.own('dist/bundle/cli.js') && !r.own(SCRIPT_RUNNER), 'the stale bundle did not run');
  assert.ok(r.own('dist/src/cli/entry.js') && r.own('dist/src/store/store.js'));
  assert.equal(JSON.parse(r.stdout).stats.ran, 0, 'same store, same evidence: a no-op either way');
});

test('without the record of its inputs (a bundle being written, or none), the bundle never runs', () => {
  rmSync(join(pkg, 'dist', 'bundle', 'inputs.json'));
  const r = run(['--version']);
  assert.equal(r.code, 0);
  assert.ok(!r.own('dist/bundle/cli.js') && r.own('dist/src/cli/entry.js'));
});
