/**
 * The checker digest is the digest of the worker image's /usr tree, but the
 * image's own environment (its config `Env`) reaches every process in the worker: an image built
 * `FROM` the worker with `ENV COQLIB=...` runs a coqc that loads another standard library, yet its
 * /usr tree is the same. Before the fix its checker digest was the accepted one, so a lock accepted
 * for the worker kept running under the changed image. Now an image that sets an environment has
 * another digest (renewed acceptance required); an image without one keeps its plain tree digest.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeImage, requireSandbox, systemSandbox } from '../_support/podman.js';

const sys = await systemSandbox({
  what: 'review: checker digest and the image environment (podman + the Coq worker image)',
});

test('a worker image whose environment changes coqc does not carry the accepted checker digest', {
  skip: sys.skip,
  timeout: 600_000,
}, async () => {
  const { sandbox, image } = requireSandbox(sys);
  const dir = mkdtempSync(join(tmpdir(), 'vkit-review-env-'));
  writeFileSync(join(dir, 'Containerfile'), `FROM ${image}\nENV COQLIB=/tmp/elsewhere\n`);
  const b = spawnSync('podman', ['build', '-q', '--no-cache', '-f', join(dir, 'Containerfile'), dir], {
    encoding: 'utf8',
  });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(b.status, 0, b.stderr);
  const derived = `sha256:${b.stdout
    .trim()
    .split('\n')
    .pop()!
    .replace(/^sha256:/, '')}`;
  try {
    const run = (img: string) =>
      sandbox.run({
        image: img,
        argv: ['coqc', '-where'],
        binds: [],
        workdir: '/tmp',
        timeoutMs: 60_000,
        signal: new AbortController().signal,
        name: `vkit-review-env-${process.pid}-${Math.random().toString(16).slice(2, 10)}`,
      });
    const [ra, rd] = [await run(image), await run(derived)];
    assert.equal(ra.stdout.trim(), '/usr/lib/ocaml/coq');
    assert.equal(rd.stdout.trim(), '/tmp/elsewhere', 'coqc in the derived image looks elsewhere for its library');
    const [a, d] = [await sandbox.toolTree(image, ['/usr']), await sandbox.toolTree(derived, ['/usr'])];
    assert.equal(a.entries, d.entries, 'the same /usr tree');
    assert.notEqual(d.digest, a.digest, 'a checker that behaves differently must not carry the accepted digest');
  } finally {
    removeImage(derived);
  }
});
