/**
 * dockerode, the MCP SDK with zod, and Ink with React are optional peer dependencies: installing
 * vkit does not bring them. Statically: package.json declares them so (and the ranges vkit's
 * messages name are package.json's), and nothing outside the modules loaded behind their check
 * imports them at run time. For real: vkit copied into a project whose node_modules lacks them
 * (test/_support/bare-install.ts) says what to install on each path that needs one, and never
 * passes or crashes: a formal item is BLOCKED, `vkit mcp` exits 5, and `vkit tui` / `vkit watch` in
 * a terminal print plain lines after a one-line hint.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { OPTIONAL_PACKAGES } from '../../src/config/optional-package.js';
import { bareInstall, type BareInstall } from '../_support/bare-install.js';
import { nodeCheck, REPO_ROOT, tempRepo } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';
import { DEAD_SOCKET, ledgerRepo, writeAcceptedLock } from '../formal/_formal.js';

const OPTIONAL = Object.keys(OPTIONAL_PACKAGES);

test('the optional packages are optional peers and devDependencies at the ranges vkit names, not dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.peerDependencies, OPTIONAL_PACKAGES);
  for (const name of OPTIONAL) {
    assert.deepEqual(pkg.peerDependenciesMeta[name], { optional: true }, name);
    assert.equal(pkg.devDependencies[name], OPTIONAL_PACKAGES[name as keyof typeof OPTIONAL_PACKAGES], name);
    assert.equal(pkg.dependencies[name], undefined, name);
  }
});

/** Where a run-time import of each optional package may stand: modules loaded only after its check. */
const ALLOWED: Record<string, RegExp> = {
  dockerode: /^$/,
  // The NATS client loads only through importOptional (src/jobs/fleet/nats.ts): types elsewhere.
  '@nats-io/transport-node': /^$/,
  '@nats-io/jetstream': /^$/,
  ink: /^src\/tui\//,
  react: /^src\/tui\//,
  '@modelcontextprotocol/sdk': /^src\/mcp\//,
  // A kind's MCP tools (`rules/<kind>/tools.ts`) load only when the MCP server starts, and so does
  // the kit's shared tool arguments, which only tools import.
  zod: /^(src\/mcp\/|src\/kit\/tool-args\.ts$|rules\/[a-z-]+\/tools\.ts$)/,
};

function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join(dir, f));
}

test('no module outside the ones behind a check imports an optional package at run time (types only)', () => {
  const found: string[] = [];
  for (const file of [...sources('src'), ...sources('rules')]) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
      const name = OPTIONAL.find((n) => m[1] === n || m[1]!.startsWith(`${n}/`));
      if (name && !ALLOWED[name]!.test(file)) found.push(`${file}: ${m[1]}`);
      // The kit's shared tool arguments are allowed zod only because nothing but a tool imports them.
      if (/\/kit\/tool-args\.js$/.test(m[1]!) && !ALLOWED.zod!.test(file)) found.push(`${file}: ${m[1]} (zod)`);
    }
    // JSX compiles to a run-time import of react/jsx-runtime.
    if (file.endsWith('.tsx') && !ALLOWED.react!.test(file)) found.push(`${file}: react/jsx-runtime`);
  }
  assert.deepEqual(found, []);
});

let bare: BareInstall;
before(() => {
  bare = bareInstall();
});
after(() => bare.cleanup());

/** This process's environment without CI (which any value but 0 and false sets, for Ink and vkit alike), and no colours. */
function envOutsideCi(more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, VKIT_DAEMON: '0', NO_COLOR: '1', ...more };
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  return env;
}

/** The copy's vkit, in `cwd`. */
function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [bare.bin, ...args], {
    cwd,
    env: envOutsideCi(env),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `vkit <args>` in a pseudo-terminal (util-linux `script`), so stdout and stdin are TTYs. */
function inTerminal(args: string[], cwd: string) {
  const command = [process.execPath, bare.bin, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: envOutsideCi({ TERM: 'xterm' }),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
}

test('the bare install resolves none of the optional packages (the premise of the tests below)', () => {
  const from = createRequire(join(bare.pkg, 'dist', 'src', 'index.js'));
  for (const name of OPTIONAL) assert.throws(() => from.resolve(name), { code: 'MODULE_NOT_FOUND' }, name);
  assert.ok(from.resolve('better-sqlite3'), 'a runtime dependency resolves');
});

test('without dockerode a formal item is BLOCKED naming `npm i -D dockerode` (the bundled build, no crash)', async () => {
  const repo = ledgerRepo();
  try {
    await writeAcceptedLock(repo);
    const r = run(['build', '--json', '--root', repo.dir, '--store', join(repo.dir, '.store')], repo.dir, {
      VKIT_CONTAINER_SOCKET: DEAD_SOCKET,
    });
    assert.equal(r.code, 3, r.stderr);
    const items = JSON.parse(r.stdout).gate.items as { id: string; status: string; reason: string }[];
    const formal = items.find((i) => i.id === 'formal:allocation')!;
    assert.equal(formal.status, 'BLOCKED');
    assert.match(formal.reason, /needs dockerode, not installed in this project: run `npm i -D dockerode@\^5\.0\.1`/);
    assert.equal(items.find((i) => i.id === 'check:ok')?.status, 'PASS', 'the rest of the build runs');
    assert.ok(existsSync(join(bare.pkg, 'dist/bundle/cli.cjs.cache')), "the bundle's one-script CLI ran");
  } finally {
    repo.cleanup();
  }
});

test('without the MCP SDK and zod `vkit mcp` exits 5 with one line naming what to install', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const r = run(['mcp', '--root', repo.dir], repo.dir);
    assert.equal(r.code, 5, r.stderr);
    assert.equal(
      r.stderr,
      'vkit: `vkit mcp` needs @modelcontextprotocol/sdk and zod, not installed in this project: run `npm i -D @modelcontextprotocol/sdk@~1.32 zod@^4.6.7`\n',
    );
    assert.equal(r.stdout, '');
  } finally {
    repo.cleanup();
  }
});

test('without the NATS client `executor: nats` ends each job BLOCKED naming `npm i -D @nats-io/...` (never a local pass)', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [{ id: 'alpha', run: nodeCheck('0'), inputs: ['a.txt'] }],
      executor: { kind: 'nats', url: 'nats://127.0.0.1:1' },
      remote: { url: 'http://127.0.0.1:1' },
    });
    const r = run(['build', '--json'], repo.dir, { VKIT_REMOTE_TIMEOUT_MS: '200', VKIT_SIGNING_KEY: '' });
    assert.equal(r.code, 3, r.stderr);
    const item = JSON.parse(r.stdout).gate.items.find((i: { id: string }) => i.id === 'check:alpha');
    assert.equal(item.status, 'BLOCKED');
    assert.match(
      item.reason,
      /needs @nats-io\/transport-node and @nats-io\/jetstream, not installed in this project: run `npm i -D @nats-io\/transport-node@\^3\.4\.0 @nats-io\/jetstream@\^3\.4\.0`/,
    );
  } finally {
    repo.cleanup();
  }
});

const HINT =
  'vkit: the terminal UI needs ink and react, not installed in this project: run `npm i -D ink@^6.8.0 react@^19.3.1`; printing plain lines instead';

function checkedRepo() {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'alpha', run: nodeCheck('0'), inputs: ['a.txt'] }] });
  return repo;
}

/** Runs `args` in a terminal until `done(output)` (or 60 s), then stops it; the output, CR-free. */
async function terminalOutput(args: string[], cwd: string, done: (out: string) => boolean): Promise<string> {
  const child = inTerminal(args, cwd);
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8').replaceAll('\r', '');
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  for (let i = 0; i < 600 && !done(out) && child.exitCode === null; i++) await sleep(100);
  if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
  await exited;
  return out;
}

test('without Ink and React `vkit tui` in a terminal prints the plain overview after a one-line hint', async () => {
  const repo = checkedRepo();
  try {
    const store = join(repo.dir, '.store');
    assert.equal(run(['build', '--root', repo.dir, '--store', store], repo.dir).code, 0);
    const out = await terminalOutput(['tui', '--root', repo.dir, '--store', store], repo.dir, () => false);
    assert.ok(out.startsWith(`${HINT}\n`), out);
    assert.match(out, /READY/);
    assert.match(out, /alpha/);
  } finally {
    repo.cleanup();
  }
});

test('without Ink and React `vkit watch` in a terminal watches in plain lines after a one-line hint', async () => {
  const repo = checkedRepo();
  try {
    const args = ['watch', '--root', repo.dir, '--store', join(repo.dir, '.store')];
    const out = await terminalOutput(args, repo.dir, (o) => /READY/.test(o));
    assert.ok(out.startsWith(`${HINT}\n`), out);
    assert.match(out, /check:alpha/);
    assert.match(out, /READY/);
  } finally {
    repo.cleanup();
  }
});
