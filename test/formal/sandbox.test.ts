/**
 * The sandbox against the real engine (podman serving the Docker API) and the real Coq worker
 * image: the restrictions hold inside the container (no network, read-only root, uid 65534, no
 * capabilities, read-only binds), limits are applied, timeouts and aborts kill the container and
 * leave nothing behind, killByPrefix touches only its attempt's containers, the tool-tree digest
 * follows the bytes and not the image id, and coqc runs as uid 65534. Without podman or the image
 * these skip, naming `npm run setup:system`; under VKIT_REQUIRE_SYSTEM=1 they fail instead.
 *
 * The retained-evidence checks and the pure helpers (log demultiplexing, the tar reader) need no
 * engine and always run.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  createReadStream,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { demuxLogs, openSandbox } from '../../src/checkers/container.js';
import { toolTreeFromTar } from '../../src/checkers/tar-tree.js';
import { RetainedEvidenceError, validateRetained } from '../../src/formal/retained.js';
import type { ContainerRequest } from '../../src/formal/types.js';
import {
  busyboxImage,
  inspectContainer,
  removeImage,
  requireSandbox,
  systemSandbox,
  writableDir,
} from '../_support/podman.js';
import { sleep } from '../_support/wait.js';

const cacheDir = mkdtempSync(join(tmpdir(), 'vkit-sandbox-cache-'));
const sys = await systemSandbox({ cacheDir, what: 'sandbox tests' });
const run = randomBytes(4).toString('hex');
const temps: string[] = [cacheDir];
const images: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
  for (const i of images) removeImage(i);
});

function request(image: string, argv: string[], extra: Partial<ContainerRequest> = {}): ContainerRequest {
  return {
    image,
    argv,
    binds: [],
    workdir: '/',
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    name: `vkit-t${run}-${randomBytes(3).toString('hex')}`,
    ...extra,
  };
}

async function waitRunning(name: string): Promise<Record<string, any>> {
  for (let i = 0; i < 200; i++) {
    const info = inspectContainer(name);
    if (info?.State?.Running) return info;
    await sleep(50);
  }
  assert.fail(`container ${name} never ran`);
}

describe('restricted containers (real podman, worker image)', { skip: sys.skip }, () => {
  test('inside: no network, read-only root, uid 65534, no capabilities, read-only bind; output bind and /tmp writable', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const src = mkdtempSync(join(tmpdir(), 'vkit-src-'));
    chmodSync(src, 0o755);
    writeFileSync(join(src, 'input.txt'), 'frozen\n');
    chmodSync(join(src, 'input.txt'), 0o666); // even a world-writable file stays unwritable through a read-only bind
    const out = writableDir('vkit-out-');
    temps.push(src, out);
    const script = [
      'echo "uid=$(id -u) gid=$(id -g)"',
      'grep -E "^Cap(Eff|Prm|Bnd):" /proc/self/status',
      'echo "ifaces=$(ls /sys/class/net | tr "\\n" " ")"',
      'if timeout 5 bash -c "echo > /dev/tcp/1.1.1.1/53" 2>/dev/null; then echo connect=ok; else echo connect=failed; fi',
      'echo "rootmount=$(awk \'$2 == "/" { split($4, o, ","); print o[1] }\' /proc/mounts)"',
      // Writable mounts backed by storage (not memory, not kernel views): only the output bind.
      'echo "diskrw=$(awk \'$4 ~ /^rw/ && $3 !~ /^(tmpfs|proc|devpts|mqueue|sysfs|cgroup2?)$/ { print $2 }\' /proc/mounts | tr "\\n" " ")"',
      'if (echo x >> /src/input.txt) 2>/dev/null; then echo srcbind=writable; else echo srcbind=readonly; fi',
      'echo written > /out/result.txt && echo outbind=writable',
      'echo t > /tmp/t && echo tmp=writable',
      'cat /src/input.txt',
      'echo to-stderr >&2',
    ].join('; ');
    const r = await sandbox.run(
      request(image, ['bash', '-c', script], {
        binds: [
          { host: src, container: '/src', readOnly: true },
          { host: out, container: '/out', readOnly: false },
        ],
      }),
    );
    assert.equal(r.startError, undefined);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^uid=65534 gid=65534$/m);
    assert.match(r.stdout, /^CapEff:\s+0{16}$/m);
    assert.match(r.stdout, /^CapPrm:\s+0{16}$/m);
    assert.match(r.stdout, /^CapBnd:\s+0{16}$/m);
    assert.match(r.stdout, /^ifaces=lo $/m);
    assert.match(r.stdout, /^connect=failed$/m);
    assert.match(r.stdout, /^rootmount=ro$/m);
    assert.match(r.stdout, /^diskrw=\/out $/m);
    assert.match(r.stdout, /^srcbind=readonly$/m);
    assert.match(r.stdout, /^outbind=writable$/m);
    assert.match(r.stdout, /^tmp=writable$/m);
    assert.match(r.stdout, /^frozen$/m);
    assert.equal(r.stderr, 'to-stderr\n');
    assert.equal(readFileSync(join(src, 'input.txt'), 'utf8'), 'frozen\n');
    assert.equal(readFileSync(join(out, 'result.txt'), 'utf8'), 'written\n');
  });

  test('limits are applied (inspect and the cgroup inside); aborting the signal kills only that container: cancelled, and gone', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const ac = new AbortController();
    const req = request(
      image,
      ['bash', '-c', 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max; exec sleep 120'],
      {
        memoryBytes: 300 * 1024 * 1024,
        pidsLimit: 77,
        signal: ac.signal,
      },
    );
    const bystander = request(image, ['sleep', '120']);
    const bystanderRun = sandbox.run(bystander);
    const started = Date.now();
    const pending = sandbox.run(req);
    const info = await waitRunning(req.name);
    await waitRunning(bystander.name);
    const host = info.HostConfig;
    assert.equal(host.Memory, 300 * 1024 * 1024);
    assert.equal(host.PidsLimit, 77);
    assert.equal(host.ReadonlyRootfs, true);
    assert.equal(host.NetworkMode, 'none');
    assert.ok(
      (host.CapDrop as string[]).length > 0 && (info.EffectiveCaps ?? []).length === 0,
      `capabilities left: ${JSON.stringify(info.EffectiveCaps)}`,
    );
    assert.ok(
      (host.SecurityOpt as string[]).some((o) => /no-new-privileges/.test(o)),
      JSON.stringify(host.SecurityOpt),
    );
    assert.equal(info.Config.User, '65534:65534');
    ac.abort();
    const r = await pending;
    assert.equal(r.cancelled, true);
    assert.equal(r.timedOut, false);
    assert.equal(r.exitCode, null);
    assert.ok(Date.now() - started < 30_000, 'the abort ended the run long before sleep 120');
    assert.match(r.stdout, /^314572800\n77\n/, 'the cgroup inside the container has the requested limits');
    assert.equal(inspectContainer(req.name), undefined, 'the cancelled container is removed');
    assert.equal(inspectContainer(bystander.name)?.State?.Running, true, 'another container is untouched by the abort');
    const killed = await sandbox.killByPrefix(bystander.name);
    assert.deepEqual(killed, [bystander.name]);
    const b = await bystanderRun;
    assert.equal(b.cancelled, false);
    assert.notEqual(b.exitCode, 0);
  });

  test('a timeout kills the container: timedOut, no exit code, nothing left behind', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const req = request(image, ['bash', '-c', 'echo started; exec sleep 120'], { timeoutMs: 1500 });
    const started = Date.now();
    const r = await sandbox.run(req);
    assert.equal(r.timedOut, true);
    assert.equal(r.cancelled, false);
    assert.equal(r.exitCode, null);
    assert.equal(r.stdout, 'started\n');
    assert.ok(Date.now() - started < 30_000);
    assert.equal(inspectContainer(req.name), undefined);
  });

  test('a container stopped from outside never ends with exit 0: its `stopping` state (exit code 0 meanwhile) is not an end', async () => {
    const { sandbox, image } = requireSandbox(sys);
    // sleep as the container's first process ignores SIGTERM: `podman stop` waits out its grace
    // period, reporting the container as stopping, not running, with exit code 0, then kills it.
    const req = request(image, ['sleep', '60']);
    const pending = sandbox.run(req);
    await waitRunning(req.name);
    const stop = spawn('podman', ['stop', '-t', '3', req.name], { stdio: 'ignore' });
    const stopped = new Promise((resolve) => stop.on('exit', resolve));
    const r = await pending;
    await stopped;
    assert.notEqual(r.exitCode, 0, JSON.stringify(r));
    assert.equal(r.timedOut, false);
    assert.equal(r.cancelled, false);
  });

  test('an already aborted signal starts nothing; start errors are results, not exceptions', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const ac = new AbortController();
    ac.abort();
    const aborted = request(image, ['true'], { signal: ac.signal });
    const r = await sandbox.run(aborted);
    assert.equal(r.cancelled, true);
    assert.equal(r.exitCode, null);
    assert.equal(inspectContainer(aborted.name), undefined);

    const missingTool = request(image, ['/no/such/tool']);
    const m = await sandbox.run(missingTool);
    assert.equal(m.exitCode, null);
    assert.match(m.startError ?? '', /could not start.*no such file/i);
    assert.equal(inspectContainer(missingTool.name), undefined, 'a container that failed to start is removed too');

    const noImage = await sandbox.run(request(`sha256:${'0'.repeat(64)}`, ['true']));
    assert.match(noImage.startError ?? '', /refused to create/);
    const tag = await sandbox.run(request('localhost/vkit-coq-worker:1', ['true']));
    assert.match(tag.startError ?? '', /full image id/, 'a tag can move: only a full id is accepted');
    assert.equal(await sandbox.imageId(`localhost/vkit-no-such-image-${run}:1`), undefined);
    assert.equal(await sandbox.imageId('localhost/vkit-coq-worker:1'), image);
  });

  test('killByPrefix kills and removes only the containers named by the prefix, at a "-" boundary', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const prefix = `vkit-k${run}`;
    const mine = [`${prefix}-step1`, `${prefix}-step2`];
    const others = [`${prefix}9-step1`, `vkit-o${run}-step1`];
    const runs = new Map(
      [...mine, ...others].map((name) => [
        name,
        sandbox.run(request(image, ['sleep', '120'], { name, timeoutMs: 60_000 })),
      ]),
    );
    for (const name of runs.keys()) await waitRunning(name);
    const killed = await sandbox.killByPrefix(prefix);
    assert.deepEqual(killed.sort(), mine);
    for (const name of mine) {
      const r = await runs.get(name)!;
      assert.equal(r.exitCode === 0, false, `${name} was killed`);
      assert.equal(inspectContainer(name), undefined);
    }
    for (const name of others) assert.equal(inspectContainer(name)?.State?.Running, true, `${name} must be untouched`);
    assert.deepEqual(await sandbox.killByPrefix(`vkit-o${run}`), [`vkit-o${run}-step1`]);
    assert.deepEqual(await sandbox.killByPrefix(`${prefix}9`), [`${prefix}9-step1`]);
    await Promise.all(runs.values());
    await assert.rejects(sandbox.killByPrefix('bad prefix; rm'), /Expected a container name prefix/);
  });

  test('coqc checks a tiny .v file as uid 65534 with no network', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const src = mkdtempSync(join(tmpdir(), 'vkit-coqsrc-'));
    chmodSync(src, 0o755);
    writeFileSync(
      join(src, 'T.v'),
      'Theorem plus_O_n : forall n : nat, 0 + n = n.\nProof. intros n. reflexivity. Qed.\nPrint Assumptions plus_O_n.\n',
    );
    chmodSync(join(src, 'T.v'), 0o644);
    const out = writableDir('vkit-coqout-');
    temps.push(src, out);
    const r = await sandbox.run(
      request(image, ['sh', '-c', 'id -u && coqc -noglob -o /out/T.vo /src/T.v'], {
        binds: [
          { host: src, container: '/src', readOnly: true },
          { host: out, container: '/out', readOnly: false },
        ],
        workdir: '/out',
        timeoutMs: 120_000,
      }),
    );
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^65534\n/);
    assert.match(r.stdout, /Closed under the global context/);
    assert.ok(existsSync(join(out, 'T.vo')));
  });

  test('the worker image tool tree: digest and versions of coqc and ocaml', async () => {
    const { sandbox, image } = requireSandbox(sys);
    const paths = ['/usr/bin/coqc', '/usr/bin/ocamlfind', '/usr/bin/ocamlopt', '/usr/lib/ocaml'];
    const tree = await sandbox.toolTree(image, paths);
    assert.match(tree.digest, /^sha256:[0-9a-f]{64}$/);
    assert.ok(tree.entries > 100, `entries ${tree.entries}`);
    assert.match(tree.versions?.coqc ?? '', /version 8\.16\.1/);
    assert.equal(tree.versions?.ocamlopt, '4.13.1');
    // The cache file is the documented one: <cacheDir>/<image hex>.json.
    assert.ok(existsSync(join(cacheDir, `${image.slice('sha256:'.length)}.json`)));
    assert.deepEqual(await sandbox.toolTree(image, [...paths].reverse()), tree, 'the path order does not matter');
  });
});

describe('tool tree digests follow the bytes, not the image id (busybox images)', { skip: sys.skip }, () => {
  test('same contents imported twice: different ids, same digest; a changed file, link or path set changes it', async () => {
    const { sandbox } = requireSandbox(sys);
    const files = {
      'opt/tool/bin/run': '#!/bin/sh\necho v1\n',
      'opt/tool/lib/data': 'data\n',
      'opt/tool/bin/alias': { link: 'run' },
      'opt/other/x': 'x\n',
    };
    const a = busyboxImage(`a${run}`, files);
    const a2 = busyboxImage(`a2${run}`, files);
    const b = busyboxImage(`b${run}`, { ...files, 'opt/tool/lib/data': 'data!\n' });
    const c = busyboxImage(`c${run}`, { ...files, 'opt/tool/bin/alias': { link: 'other' } });
    images.push(a, a2, b, c);
    assert.notEqual(a, a2);
    const t = (id: string, paths = ['/opt/tool']) => sandbox.toolTree(id, paths);
    const ta = await t(a);
    assert.equal(ta.entries, 3);
    assert.deepEqual(await t(a), ta, 'twice the same');
    // A fresh cache hashes again: the digest is a function of the bytes.
    const freshCache = mkdtempSync(join(tmpdir(), 'vkit-fresh-cache-'));
    temps.push(freshCache);
    const fresh = await openSandbox(sandbox.socket, { cacheDir: freshCache });
    assert.ok(!('unavailable' in fresh));
    assert.equal((await fresh.toolTree(a, ['/opt/tool'])).digest, ta.digest);
    assert.equal((await t(a2)).digest, ta.digest, 'a rebuilt image with the same contents matches');
    assert.notEqual((await t(b)).digest, ta.digest, 'a changed file changes the digest');
    assert.notEqual((await t(c)).digest, ta.digest, 'a changed symlink target changes the digest');
    assert.notEqual((await t(a, ['/opt/tool', '/opt/other'])).digest, ta.digest, 'another path set is another digest');
    assert.notEqual((await t(a, ['/opt/tool/bin'])).digest, ta.digest);
    await assert.rejects(t(a, ['/opt/missing']), /holds no file or link/);
    await assert.rejects(t(a, ['opt/tool']), /absolute and normalised/);
    await assert.rejects(sandbox.toolTree('localhost/vkit-coq-worker:1', ['/usr']), /full image id/);
  });
});

describe('openSandbox', () => {
  test('no engine answering: unavailable, naming the socket', async () => {
    const socket = `unix://${join(tmpdir(), `vkit-no-engine-${run}.sock`)}`;
    const r = await openSandbox(socket);
    assert.ok('unavailable' in r);
    assert.match(
      r.unavailable,
      new RegExp(`no container engine answering on ${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    const bad = await openSandbox('ftp://nowhere');
    assert.ok('unavailable' in bad);
    assert.match(bad.unavailable, /Expected the container socket/);
  });
});

describe('demuxLogs', () => {
  const frame = (kind: 1 | 2, text: string) => {
    const payload = Buffer.from(text);
    const head = Buffer.alloc(8);
    head[0] = kind;
    head.writeUInt32BE(payload.length, 4);
    return Buffer.concat([head, payload]);
  };
  test('splits stdout and stderr frames and bounds each stream, saying so', () => {
    const raw = Buffer.concat([frame(1, 'out1 '), frame(2, 'err1 '), frame(1, 'out2'), frame(2, 'err2')]);
    assert.deepEqual(demuxLogs(raw, 100), { stdout: 'out1 out2', stderr: 'err1 err2' });
    const cut = demuxLogs(raw, 6);
    assert.equal(cut.stdout, 'out1 o\n(vkit: output cut at 6 bytes)\n');
    assert.equal(cut.stderr, 'err1 e\n(vkit: output cut at 6 bytes)\n');
    const partial = demuxLogs(raw.subarray(0, raw.length - 2), 100);
    assert.equal(partial.stderr, 'err1 er\n(vkit: output cut at 100 bytes)\n', 'a stream cut mid-frame is marked');
  });
});

describe('the tar reader behind tool trees', () => {
  test('ustar, PAX and GNU archives of the same tree give the same digest; long names, hard links and symlinks are read', async () => {
    const root = mkdtempSync(join(tmpdir(), 'vkit-tar-'));
    temps.push(root);
    const long = 'l'.repeat(120);
    mkdirSync(join(root, 'usr', 'lib', long), { recursive: true });
    writeFileSync(join(root, 'usr', 'lib', long, 'f'), 'long\n');
    writeFileSync(join(root, 'usr', 'lib', 'a'), 'a\n');
    chmodSync(join(root, 'usr', 'lib', 'a'), 0o755);
    linkSync(join(root, 'usr', 'lib', 'a'), join(root, 'usr', 'lib', 'hard'));
    symlinkSync('a', join(root, 'usr', 'lib', 'soft'));
    writeFileSync(join(root, 'usr', 'skip'), 'not selected\n');
    // ustar cannot hold a name component over 100 bytes, but splits a long path into prefix + name.
    const split = join(root, 'usr', 'share', 'p'.repeat(60), 'q'.repeat(60));
    mkdirSync(split, { recursive: true });
    writeFileSync(join(split, 'f'), 'split\n');
    const digestOf = async (format: string, dir: string) => {
      const tar = join(root, `t.${format}.tar`);
      const r = spawnSync('tar', [`--format=${format}`, '--numeric-owner', '-C', root, '-cf', tar, dir]);
      assert.equal(r.status, 0, String(r.stderr));
      return toolTreeFromTar(createReadStream(tar, { highWaterMark: 700 }), [`/${dir}`]);
    };
    const pax = await digestOf('pax', 'usr/lib');
    const gnu = await digestOf('gnu', 'usr/lib');
    assert.equal(pax.digest, gnu.digest);
    const ustar = await digestOf('ustar', 'usr/share');
    assert.deepEqual(
      ustar.entries.map((e) => e.path),
      [`/usr/share/${'p'.repeat(60)}/${'q'.repeat(60)}/f`],
    );
    assert.equal((await digestOf('pax', 'usr/share')).digest, ustar.digest);
    const byPath = Object.fromEntries(pax.entries.map((e) => [e.path, e]));
    assert.deepEqual(
      Object.keys(byPath).sort(),
      ['/usr/lib/a', '/usr/lib/hard', `/usr/lib/${long}/f`, '/usr/lib/soft'].sort(),
    );
    assert.equal(
      byPath['/usr/lib/hard']!.value,
      byPath['/usr/lib/a']!.value,
      "a hard link has its target's content digest",
    );
    assert.equal(byPath['/usr/lib/a']!.mode, 0o755);
    assert.deepEqual(byPath['/usr/lib/soft'], { path: '/usr/lib/soft', mode: 0o777, kind: 'symlink', value: 'a' });
    // Cut inside an entry, and cut cleanly after the last entry (only the end marker is missing).
    const whole = readFileSync(join(root, 't.gnu.tar'));
    let last = whole.length - 1;
    while (whole[last] === 0) last--;
    const clean = Math.ceil((last + 1) / 512) * 512;
    const cut = join(root, 'cut.tar');
    writeFileSync(cut, whole.subarray(0, clean - 100));
    await assert.rejects(toolTreeFromTar(createReadStream(cut), ['/usr/lib']), /ended in the middle of an entry/);
    writeFileSync(cut, whole.subarray(0, clean));
    await assert.rejects(
      toolTreeFromTar(createReadStream(cut), ['/usr/lib']),
      /ended before its end-of-archive marker/,
    );
    writeFileSync(cut, whole.subarray(0, clean + 512));
    assert.equal((await toolTreeFromTar(createReadStream(cut), ['/usr/lib'])).digest, gnu.digest);
  });
});

describe('retained evidence', () => {
  const outDir = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-retained-'));
    temps.push(dir);
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), content);
    }
    return dir;
  };
  const rejects = async (
    dir: string,
    listed: string[],
    entry: string,
    message: RegExp,
    limits?: { maxEntries: number; maxBytes: number },
  ) => {
    await assert.rejects(validateRetained(dir, listed, limits), (error: unknown) => {
      assert.ok(error instanceof RetainedEvidenceError, String(error));
      assert.equal(error.entry, entry);
      assert.match(error.message, message);
      return true;
    });
  };

  test('listed regular files are returned sorted, nested ones included', async () => {
    const dir = outDir({ 'report.json': '{}', 'logs/coqc.txt': 'ok', 'b.txt': 'b' });
    assert.deepEqual(await validateRetained(dir, ['report.json', 'logs/coqc.txt', 'b.txt']), [
      'b.txt',
      'logs/coqc.txt',
      'report.json',
    ]);
    assert.deepEqual(await validateRetained(outDir({}), []), []);
  });

  test('a symlink is rejected, even one pointing at a listed file', async () => {
    const dir = outDir({ 'a.txt': 'a' });
    symlinkSync('a.txt', join(dir, 'link.txt'));
    await rejects(dir, ['a.txt', 'link.txt'], 'link.txt', /symbolic link/);
    const dir2 = outDir({ 'a.txt': 'a' });
    symlinkSync('/etc/passwd', join(dir2, 'escape'));
    await rejects(dir2, ['a.txt'], 'escape', /symbolic link/);
  });

  test('a fifo is rejected as a special file', async () => {
    const dir = outDir({ 'a.txt': 'a' });
    assert.equal(spawnSync('mkfifo', [join(dir, 'pipe')]).status, 0);
    await rejects(dir, ['a.txt', 'pipe'], 'pipe', /special file \(fifo\)/);
  });

  test('an unlisted file or directory, a missing artifact, a hard link or a bad artifact path is rejected', async () => {
    await rejects(outDir({ 'a.txt': 'a', 'sneaky.txt': 's' }), ['a.txt'], 'sneaky.txt', /not a listed artifact/);
    await rejects(outDir({ 'a.txt': 'a', 'sub/x.txt': 'x' }), ['a.txt'], 'sub', /directory holding no listed artifact/);
    await rejects(outDir({ 'a.txt': 'a' }), ['a.txt', 'gone.txt'], 'gone.txt', /not a regular file/);
    const dir = outDir({ 'a.txt': 'a' });
    mkdirSync(join(dir, 'd'));
    await rejects(dir, ['a.txt', 'd'], 'd', /directory/);
    const hard = outDir({ 'a.txt': 'a' });
    linkSync(join(hard, 'a.txt'), join(hard, 'b.txt'));
    await rejects(hard, ['a.txt', 'b.txt'], 'a.txt', /hard links/);
    await rejects(outDir({ 'a.txt': 'a' }), ['../a.txt'], '../a.txt', /normalised relative path/);
    await rejects(outDir({ 'a.txt': 'a' }), ['/a.txt'], '/a.txt', /normalised relative path/);
  });

  test('over the entry or byte limit is rejected, naming the entry where the limit was crossed', async () => {
    const files = { 'a.txt': 'aaaa', 'b.txt': 'bbbb', 'c.txt': 'cccc', 'd.txt': 'dddd' };
    const listed = Object.keys(files);
    const dir = outDir(files);
    assert.equal((await validateRetained(dir, listed, { maxEntries: 4, maxBytes: 16 })).length, 4);
    await rejects(dir, listed, 'd.txt', /more than 3 entries/, { maxEntries: 3, maxBytes: 1000 });
    await rejects(dir, listed, 'c.txt', /exceeds 10 bytes/, { maxEntries: 100, maxBytes: 10 });
  });
});
