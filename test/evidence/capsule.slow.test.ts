/**
 * Capsules for real: a formal run of the allocation example is exported with --include-assets (the
 * Coq worker image saved through dockerode), then replayed with --restore-assets in another clone
 * against a second, isolated podman service that starts with no images (the shared engine is never
 * touched: other tests need its image). Also: one flipped byte in the image entry is refused naming
 * it; a bundle whose capsule claims another image id than the one the engine loads is refused, and
 * the image it loaded is removed again. Real podman and the worker image; skips loudly without them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { capsuleDigest } from '../../src/evidence/capsule.js';
import { parseManifest, manifestBytes } from '../../src/evidence/manifest.js';
import { cli } from '../_support/evidence.js';
import { REPO_ROOT, tempRepo, vkit } from '../_support/repo.js';
import { systemSandbox } from '../_support/podman.js';
import { sleep } from '../_support/wait.js';

const sys = await systemSandbox({ what: 'evidence capsules' });

/** A podman API service with its own storage: it starts with no images. */
async function isolatedEngine(): Promise<{ socket: string; images: () => string[]; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-capsule-engine-'));
  const store = ['--root', join(dir, 'root'), '--runroot', join(dir, 'runroot')];
  const sock = join(dir, 'podman.sock');
  const child: ChildProcess = spawn('podman', [...store, 'system', 'service', '--time=0', `unix://${sock}`], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100 && !existsSync(sock); i++) await sleep(100);
  assert.ok(existsSync(sock), 'the isolated podman service came up');
  return {
    socket: `unix://${sock}`,
    images: () =>
      spawnSync('podman', [...store, 'images', '-q', '--no-trunc'], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean),
    stop: async () => {
      child.kill('SIGTERM');
      for (let i = 0; i < 50 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
      spawnSync('podman', [...store, 'rmi', '-a', '-f'], { encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads the bundle's manifest (the first tar entry) without reading the rest. */
function readManifest(file: string): { text: Buffer; offset: number } {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(512);
    readSync(fd, header, 0, 512, 0);
    const size = parseInt(header.subarray(124, 136).toString('ascii').replace(/\0/g, '').trim(), 8);
    const text = Buffer.alloc(size);
    readSync(fd, text, 0, size, 512);
    return { text, offset: 512 };
  } finally {
    closeSync(fd);
  }
}

function writeAt(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

function flipAt(file: string, offset: number): void {
  const fd = openSync(file, 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, offset);
    b[0] = b[0]! ^ 0xff;
    writeSync(fd, b, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('capsule: the Coq worker image restores into an engine without it, and the replayed check passes; tampering is refused', {
  skip: sys.skip,
  timeout: 290_000,
}, async () => {
  const repo = tempRepo({});
  cleanups.push(() => repo.cleanup());
  cpSync(join(REPO_ROOT, 'examples', 'allocation', 'src'), join(repo.dir, 'src'), { recursive: true });
  cpSync(join(REPO_ROOT, 'examples', 'allocation', 'vkit.manifest.json'), join(repo.dir, 'vkit.manifest.json'));
  const accept = cli(repo, ['policy', 'accept']);
  assert.equal(accept.code, 0, accept.stdout + accept.stderr);
  repo.commitAll('allocation with its accepted lock');
  const built = cli(repo, ['build', '--json']);
  assert.equal(built.code, 0, built.stdout + built.stderr);
  const action = built.json().actions.find((a: { label: string }) => a.label === 'formal:allocation');
  assert.equal(action.outcome, 'PASS');

  const out = mkdtempSync(join(tmpdir(), 'vkit-capsule-'));
  cleanups.push(() => rmSync(out, { recursive: true, force: true }));
  const bundle = join(out, 'formal.tar');
  let t = Date.now();
  const exported = cli(repo, [
    'evidence',
    'export',
    '--run',
    action.run,
    '--out',
    bundle,
    '--include-assets',
    '--json',
  ]);
  const exportMs = Date.now() - t;
  assert.equal(exported.code, 0, exported.stdout + exported.stderr);
  const ex = exported.json();
  assert.equal(ex.assets.capsules, 1);
  assert.match(ex.assets.note, /integrity relative to trusted state, not authentication/);
  const manifest = parseManifest(readManifest(bundle).text);
  assert.ok(typeof manifest !== 'string', String(manifest));
  const capsule = manifest.assets.capsules[0]!;
  assert.equal(capsule.image, sys.image, 'the capsule names the exact worker image id');
  const lock = JSON.parse(execFileSync('cat', [join(repo.dir, 'vkit.lock.json')], { encoding: 'utf8' }));
  assert.equal(
    capsule.checker_sha256,
    lock.components.allocation.checker_sha256,
    'the capsule records the checker digest the lock accepted',
  );
  const image = capsule.entries.find((e) => e.role === 'image')!;
  assert.equal(image.name, 'assets/coq-linux-x86_64-v1/image.tar');
  assert.ok(image.size > 100 * 1024 * 1024, `the image tar is the whole image (${image.size} bytes)`);
  const bundleBytes = statSync(bundle).size;

  const clone = join(out, 'clone');
  execFileSync('git', ['clone', '-q', repo.dir, clone]);
  const cloneStore = join(out, 'clone-store');
  const replay = (file: string, env: NodeJS.ProcessEnv, extra: string[] = ['--restore-assets']) =>
    vkit(['evidence', 'replay', file, ...extra, '--json', '--root', clone, '--store', cloneStore], { cwd: clone, env });

  // One flipped byte in the middle of the image entry: refused naming it, before any engine is asked.
  const entryStart = (() => {
    // Offset of the image entry's content: walk the tar headers.
    const fd = openSync(bundle, 'r');
    try {
      let off = 0;
      const h = Buffer.alloc(512);
      for (;;) {
        readSync(fd, h, 0, 512, off);
        const name = h.subarray(0, 100).toString('ascii').replace(/\0.*$/s, '');
        const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0/g, '').trim(), 8);
        if (name === image.name) return off + 512;
        assert.ok(name, 'the image entry is in the bundle');
        off += 512 + Math.ceil(size / 512) * 512;
      }
    } finally {
      closeSync(fd);
    }
  })();
  const middle = entryStart + Math.floor(image.size / 2);
  flipAt(bundle, middle);
  const flipped = replay(bundle, { VKIT_CONTAINER_SOCKET: 'unix:///tmp/vkit-capsule-no-engine.sock' });
  assert.equal(flipped.code, 2, flipped.stdout + flipped.stderr);
  assert.match(flipped.stderr, /Refused bundle entry `assets\/coq-linux-x86_64-v1\/image\.tar`: its content digest/);
  flipAt(bundle, middle);

  const engine = await isolatedEngine();
  cleanups.push(() => engine.stop());
  assert.deepEqual(engine.images(), [], 'the isolated engine starts with no images');
  const env = { VKIT_CONTAINER_SOCKET: engine.socket };

  // A bundle claiming another image id than the one the engine loads: refused, and the load undone.
  const forgedFile = join(out, 'forged.tar');
  cpSync(bundle, forgedFile);
  const original = readManifest(forgedFile);
  const forged = JSON.parse(original.text.toString('utf8'));
  const other = `sha256:${'e'.repeat(64)}`;
  forged.assets.capsules[0].image = other;
  forged.assets.capsules[0].sha256 = capsuleDigest(forged.assets.capsules[0]);
  const forgedBytes = manifestBytes(forged);
  assert.equal(forgedBytes.length, original.text.length, 'the forged manifest keeps its length');
  writeAt(forgedFile, original.offset, forgedBytes);
  const refused = replay(forgedFile, env);
  assert.equal(refused.code, 2, refused.stdout + refused.stderr);
  assert.match(
    refused.stderr,
    new RegExp(
      `Refused bundle entry \`assets/coq-linux-x86_64-v1/image\\.tar\`: the engine loaded ${sys.image}, not the recorded image ${other}`,
    ),
  );
  assert.deepEqual(engine.images(), [], 'the image loaded for the refused bundle was removed again');
  rmSync(forgedFile);

  // The honest capsule: restored into the empty engine, identity proven, the check runs again and passes.
  t = Date.now();
  const restored = replay(bundle, env);
  const restoreMs = Date.now() - t;
  assert.equal(restored.code, 0, restored.stdout + restored.stderr);
  const r = restored.json();
  assert.equal(r.status, 'PASS', JSON.stringify(r));
  assert.equal(r.recorded.accepted, false);
  assert.notEqual(r.replayed.run, action.run, 'the check ran again');
  assert.equal(r.replayed.outcome, 'PASS');
  assert.match(
    r.assets.restored[0],
    /loaded, id and tool-tree digest .* verified, tagged localhost\/vkit-coq-worker:1/,
  );
  assert.match(r.assets.note, /integrity relative to trusted state, not authentication/);
  assert.ok(
    engine.images().some((x) => x.replace(/^sha256:/, '') === sys.image!.replace(/^sha256:/, '')),
    'the isolated engine now holds the exact image',
  );
  process.stderr.write(
    `capsule figures: export ${exportMs} ms, restore+replay ${restoreMs} ms, bundle ${bundleBytes} bytes (image entry ${image.size} bytes)\n`,
  );
});
