/**
 * The resident build process (`vkit daemon`): a served `build`/`gate` answers exactly as a fresh
 * process would, with the client's environment, directory and interrupts, and the server declines
 * (the client runs the command itself) whatever it cannot serve as the client's twin.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FRAME, FrameReader, PROTOCOL, frame, type Request } from '../../src/daemon/frames.js';
import { daemonPaths } from '../../src/daemon/paths.js';
import { codeFingerprint } from '../../src/daemon/server.js';
import { REPO_ROOT, tempRepo, vkit, vkitAsync, type TempRepo } from '../_support/repo.js';
import Database from 'better-sqlite3';
import { sleep, waitFor } from '../_support/wait.js';

// Every server of this file listens in its own runtime directory, never the user's.
const runtime = mkdtempSync(join(tmpdir(), 'vkit-daemon-rt-'));
const ENV = { XDG_RUNTIME_DIR: runtime };
let repo: TempRepo;

const STORE = () => join(repo.dir, '.git', 'vkit');
const run = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = repo.dir) =>
  vkit([...args, '--store', STORE()], { cwd, env: { ...ENV, ...env } });
const served = (): number =>
  (vkit(['daemon', 'status', '--root', repo.dir, '--json'], { env: ENV }).json() as { served?: number }).served ?? -1;

before(() => {
  repo = tempRepo({
    'src/a.txt': 'a\n',
    'sub/.keep': '',
    // Passes only when the client's FOO reaches it: the server itself is started without FOO.
    'check-env.js': "process.exit(process.env.FOO === 'yes' ? 0 : 1)\n",
    'slow.js': "require('fs').writeFileSync(process.argv[2], 'started'); setTimeout(() => {}, 30000)\n",
  });
  repo.manifest({
    checks: [{ id: 'env', run: ['node', 'check-env.js'], inputs: ['check-env.js', 'src/**'], env: ['FOO'] }],
  });
  repo.commitAll();
  const r = vkit(['daemon', 'start', '--root', repo.dir, '--idle-s', '120'], { env: { ...ENV, FOO: 'server' } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /serving build and gate/);
});

after(() => {
  vkit(['daemon', 'stop', '--root', repo.dir], { env: ENV });
  repo.cleanup();
  rmSync(runtime, { recursive: true, force: true });
});

test('a served edit is run by the warm worker the server kept ready, with the client environment', async () => {
  assert.equal(run(['build'], { FOO: 'yes' }).code, 0);
  const status = () =>
    vkit(['daemon', 'status', '--root', repo.dir, '--json'], { env: ENV }).json() as { standby?: number | null };
  let warm: number | null | undefined;
  await waitFor(() => Boolean((warm = status().standby)), 15_000, 'a warm worker');
  repo.write('src/a.txt', `edited ${Date.now()}\n`);
  // FOO is the client's: the warm worker was started before this request, without it.
  const r = run(['build', '--json'], { FOO: 'yes' });
  assert.equal(r.code, 0, r.stderr);
  const action = (r.json().actions as Array<{ label: string; status: string; run: string }>).find(
    (a) => a.label === 'check:env',
  )!;
  assert.equal(action.status, 'ran');
  const db = new Database(join(STORE(), 'index.sqlite'), { readonly: true });
  try {
    const attempt = db.prepare('SELECT pid FROM attempts WHERE run = ?').get(action.run) as { pid: number };
    assert.equal(attempt.pid, warm, 'the run was claimed by the worker kept warm, not one started for it');
  } finally {
    db.close();
  }
});

test('a served build and gate answer as a fresh process does, with the client environment', () => {
  const before = served();
  const pass = run(['build', '--json'], { FOO: 'yes' });
  assert.equal(pass.code, 0, pass.stderr);
  assert.equal(served(), before + 1, 'the build was served');
  const gate = run(['gate', '--json'], { FOO: 'yes' });
  const local = run(['gate', '--json'], { FOO: 'yes', VKIT_DAEMON: '0' });
  assert.equal(served(), before + 2, 'only the gate without VKIT_DAEMON=0 was served');
  assert.deepEqual(gate.json(), local.json());
  assert.equal(gate.code, local.code);
  // The client's FOO decides: the server's own FOO=server would fail it the same way, but FOO=no must
  // rerun the check (its env digest changed) and reject.
  const fail = run(['build', '--json'], { FOO: 'no' });
  assert.equal(fail.code, 1, fail.stdout);
  assert.equal(fail.json().gate.status, 'REJECTED');
  const again = run(['build', '--json'], { FOO: 'no', VKIT_DAEMON: '0' });
  // A fresh process reuses exactly what the server recorded.
  assert.equal(again.json().actions[0].status, 'cached');
  assert.equal(again.json().actions[0].receipt, fail.json().actions[0].receipt);
  assert.deepEqual(again.json().gate, fail.json().gate);
});

test("served text output, exit codes and errors are the client's own: usage errors exit 2 with the message", () => {
  const before = served();
  const bad = run(['build', '--jobs', 'zero'], { FOO: 'yes' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--jobs/);
  const text = run(['gate'], { FOO: 'yes' });
  assert.match(text.stdout, /gate READY/);
  assert.equal(served(), before + 2);
});

test("a served build reads the manifest's bytes every time: an edit is seen, a broken one exits 2, the first bytes serve the first manifest", () => {
  const before = served();
  const original = readFileSync(join(repo.dir, 'vkit.manifest.json'), 'utf8');
  const ids = (r: ReturnType<typeof run>) =>
    (r.json() as { actions: Array<{ label: string }> }).actions.map((a) => a.label).sort();
  try {
    assert.deepEqual(ids(run(['build', '--json'], { FOO: 'yes' })), ['check:env']);
    // Same length: only the bytes tell the two manifests apart.
    writeFileSync(join(repo.dir, 'vkit.manifest.json'), original.replace('"id": "env"', '"id": "ENV"'));
    assert.deepEqual(ids(run(['build', '--json'], { FOO: 'yes' })), ['check:ENV']);
    writeFileSync(join(repo.dir, 'vkit.manifest.json'), original.replace('"id": "env"', '"id": "en '));
    const broken = run(['build'], { FOO: 'yes' });
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(broken.stderr, /vkit\.manifest\.json/);
  } finally {
    writeFileSync(join(repo.dir, 'vkit.manifest.json'), original);
  }
  assert.deepEqual(ids(run(['build', '--json'], { FOO: 'yes' })), ['check:env']);
  assert.equal(served(), before + 4, 'every build was served');
});

test("served text output is the fresh process's, line for line", () => {
  const strip = (s: string) => s.replace(/\d+(\.\d+)?m?s\b/g, 'T');
  const servedOut = run(['build'], { FOO: 'yes' });
  const local = run(['build'], { FOO: 'yes', VKIT_DAEMON: '0' });
  assert.equal(servedOut.code, 0, servedOut.stderr);
  assert.equal(strip(servedOut.stdout), strip(local.stdout));
  assert.match(servedOut.stdout, /^cached +check:env\n[\s\S]*gate READY/);
});

test('the root comes from --root against the client directory', () => {
  const before = served();
  const r = vkit(['gate', '--root', '..', '--json', '--store', STORE()], {
    cwd: join(repo.dir, 'sub'),
    env: { ...ENV, FOO: 'yes' },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(served(), before + 1);
});

test('Ctrl-C in the client cancels the served build as it cancels a local one', async () => {
  const marker = join(repo.dir, 'started.txt');
  repo.manifest({ checks: [{ id: 'slow', run: ['node', 'slow.js', marker], inputs: ['slow.js'] }] });
  const outcome = async (env: NodeJS.ProcessEnv) => {
    rmSync(marker, { force: true });
    const child = vkitAsync(['build', '--root', repo.dir, '--store', STORE(), '--json', '--force'], {
      cwd: repo.dir,
      env: { ...ENV, ...env },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    for (let i = 0; i < 200 && !existsSync(marker); i++) await sleep(50);
    assert.ok(existsSync(marker), 'the slow check started');
    child.kill('SIGINT');
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    return { code, status: (JSON.parse(out) as { gate: { status: string } }).gate.status };
  };
  const before = served();
  const remote = await outcome({});
  assert.equal(served(), before + 1, 'the interrupted build was served');
  const local = await outcome({ VKIT_DAEMON: '0' });
  assert.deepEqual(remote, local);
  assert.notEqual(remote.status, 'READY');
  repo.manifest({
    checks: [{ id: 'env', run: ['node', 'check-env.js'], inputs: ['check-env.js', 'src/**'], env: ['FOO'] }],
  });
});

test('a runtime directory open to other users is never trusted: the client warns and runs the command itself', () => {
  const dir = daemonPaths(repo.dir, ENV).dir;
  assert.equal(run(['build'], { FOO: 'yes' }).code, 0);
  const before = served();
  chmodSync(dir, 0o755);
  try {
    const r = run(['gate', '--json'], { FOO: 'yes' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /not using the resident build process: .* open to other users/);
  } finally {
    chmodSync(dir, 0o700);
  }
  assert.equal(served(), before);
});

/** Sends one raw request to the server and returns the frame type it answers with first. */
function rawRequest(patch: Partial<Request>): Promise<{ type: number; body: string }> {
  const request: Request = {
    protocol: PROTOCOL,
    argv: ['gate', '--root', repo.dir, '--store', STORE()],
    env: { PATH: process.env.PATH ?? '' },
    cwd: repo.dir,
    tty: false,
    node: process.version,
    execPath: process.execPath,
    pkg: REPO_ROOT.replace(/\/$/, ''),
    ...patch,
  };
  return new Promise((done, fail) => {
    const s = connect(daemonPaths(repo.dir, ENV).socket);
    const reader = new FrameReader();
    s.on('connect', () => s.write(frame(FRAME.request, request)));
    s.on('data', (c) => {
      for (const f of reader.push(c))
        if (f.type === FRAME.refuse || f.type === FRAME.exit) done({ type: f.type, body: f.body.toString() });
    });
    s.on('error', fail);
  });
}

test("the server declines what it cannot serve as the client's twin: another vkit, node, root or verb", async () => {
  const ok = await rawRequest({});
  assert.equal(ok.type, FRAME.exit, ok.body);
  const cases: Array<[Partial<Request>, RegExp]> = [
    [{ pkg: '/elsewhere/vkit' }, /vkit at \/elsewhere/],
    [{ node: 'v0.0.1' }, /node v0\.0\.1/],
    [{ protocol: 99 }, /protocol 99/],
    [{ argv: ['runs'] }, /`runs` is not served/],
    [{ env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '--conditions=elsewhere' } }, /NODE_OPTIONS differs/],
    [{ argv: ['gate', '--root', tmpdir()] }, /root .*this server serves/],
  ];
  for (const [patch, why] of cases) {
    const r = await rawRequest(patch);
    assert.equal(r.type, FRAME.refuse, `${JSON.stringify(patch)}: ${r.body}`);
    assert.match(r.body, why);
  }
});

test("the code fingerprint changes when any file of the package's code does", () => {
  const pkg = mkdtempSync(join(tmpdir(), 'vkit-pkg-'));
  try {
    mkdirSync(join(pkg, 'dist', 'src'), { recursive: true });
    writeFileSync(join(pkg, 'dist', 'src', 'a.js'), 'export const a = 1;\n');
    writeFileSync(join(pkg, 'package.json'), '{}');
    const first = codeFingerprint(pkg);
    assert.equal(codeFingerprint(pkg), first);
    writeFileSync(join(pkg, 'dist', 'src', 'a.js'), 'export const a = 2;\n');
    assert.notEqual(codeFingerprint(pkg), first, 'an edited module');
    const second = codeFingerprint(pkg);
    writeFileSync(join(pkg, 'dist', 'src', 'b.js'), '');
    assert.notEqual(codeFingerprint(pkg), second, 'an added module');
  } finally {
    rmSync(pkg, { recursive: true, force: true });
  }
});

test('a TS config that imports an installed package is served once, then the server stops (its modules stay cached)', () => {
  const other = tempRepo({
    'node_modules/answer/package.json': JSON.stringify({
      name: 'answer',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
    }),
    'node_modules/answer/index.js': 'export const answer = 42;\n',
    '.gitignore': 'node_modules/\n',
    'vkit.config.ts':
      "import { answer } from 'answer';\nexport default { checks: [{ id: 'a', run: ['node', '-e', `process.exit(${answer} === 42 ? 0 : 1)`], inputs: ['vkit.config.ts'] }] };\n",
  });
  try {
    other.commitAll();
    assert.equal(vkit(['daemon', 'start', '--root', other.dir, '--idle-s', '120'], { env: ENV }).code, 0);
    const r = vkit(['build', '--root', other.dir, '--json'], { cwd: other.dir, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    let status = vkit(['daemon', 'status', '--root', other.dir, '--json'], { env: ENV }).json() as { running: boolean };
    for (let i = 0; i < 40 && status.running; i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      status = vkit(['daemon', 'status', '--root', other.dir, '--json'], { env: ENV }).json() as { running: boolean };
    }
    assert.equal(status.running, false, 'the server stopped after serving a config that imports a package');
  } finally {
    vkit(['daemon', 'stop', '--root', other.dir], { env: ENV });
    other.cleanup();
  }
});

test("a served TS config reads the client's environment, request after request", () => {
  // Which check exists is the config's own reading of CHECK_ID: a config that saw the server's
  // environment (or the previous client's) would build another check.
  const other = tempRepo({
    'a.txt': 'a\n',
    'vkit.config.ts':
      "export default { checks: [{ id: process.env.CHECK_ID ?? 'unset', run: ['node', '-e', '0'], inputs: ['a.txt'] }] };\n",
  });
  const ids = (env: NodeJS.ProcessEnv) => {
    const r = vkit(['build', '--root', other.dir, '--json'], { cwd: other.dir, env: { ...ENV, ...env } });
    assert.equal(r.code, 0, r.stderr);
    return (r.json().actions as { label: string }[]).map((a) => a.label);
  };
  const status = () =>
    vkit(['daemon', 'status', '--root', other.dir, '--json'], { env: ENV }).json() as { served?: number };
  try {
    other.commitAll();
    const start = vkit(['daemon', 'start', '--root', other.dir, '--idle-s', '120'], {
      env: { ...ENV, CHECK_ID: 'server' },
    });
    assert.equal(start.code, 0, start.stderr);
    assert.deepEqual(ids({ CHECK_ID: 'first' }), ['check:first']);
    assert.deepEqual(ids({ CHECK_ID: 'first' }), ['check:first']);
    assert.deepEqual(ids({ CHECK_ID: 'second' }), ['check:second']);
    assert.deepEqual(ids({ CHECK_ID: 'first' }), ['check:first']);
    assert.equal(status().served, 4, 'every build was served');
  } finally {
    vkit(['daemon', 'stop', '--root', other.dir], { env: ENV });
    other.cleanup();
  }
});

test('daemon status and stop: a stopped server serves nothing and a build runs locally', () => {
  const extra = tempRepo({ 'x.txt': 'x\n' });
  try {
    extra.manifest({ checks: [{ id: 'x', run: ['node', '-e', '0'], inputs: ['x.txt'] }] });
    extra.commitAll();
    assert.equal(vkit(['daemon', 'status', '--root', extra.dir, '--json'], { env: ENV }).json().running, false);
    assert.equal(vkit(['daemon', 'start', '--root', extra.dir, '--idle-s', '120'], { env: ENV }).code, 0);
    const again = vkit(['daemon', 'start', '--root', extra.dir, '--json'], { env: ENV }).json() as {
      running: boolean;
      pid: number;
    };
    assert.equal(again.running, true);
    const stop = vkit(['daemon', 'stop', '--root', extra.dir], { env: ENV });
    assert.match(stop.stdout, new RegExp(`stopped \\(pid ${again.pid}\\)`));
    assert.equal(existsSync(daemonPaths(extra.dir, ENV).socket), false, 'the socket is removed');
    const r = vkit(['build', '--root', extra.dir], { cwd: extra.dir, env: ENV });
    assert.equal(r.code, 0, r.stderr);
  } finally {
    vkit(['daemon', 'stop', '--root', extra.dir], { env: ENV });
    extra.cleanup();
  }
});
