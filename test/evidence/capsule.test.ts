/**
 * Capsule judgement without an engine: the reference's limits (16 GiB per archive, 16 GiB total,
 * 100,000 entries per tool tree) refuse naming the entry, judged from sizes no test could write; a
 * capsule edited without its digest, or disagreeing with the manifest's listing, or a stray
 * `assets/` entry, is refused naming the entry; the engine's load answer is parsed for ids only;
 * a tool tree with a link or too many files is refused.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CAPSULE_LIMITS, checkCapsules, limitProblem, sealCapsule } from '../../src/evidence/capsule.js';
import { loadedImageIds, packToolTree } from '../../src/evidence/capsule-io.js';
import type { BundleManifest, Capsule } from '../../src/evidence/manifest.js';

const D = (c: string) => `sha256:${c.repeat(64)}`;
const GiB = 1024 ** 3;

test('limits: an archive over 16 GiB, a total over 16 GiB, a tree over 100,000 entries are each named', () => {
  assert.equal(
    limitProblem([{ name: 'assets/p/image.tar', role: 'image', size: 16 * GiB, sha256: D('a') }]),
    undefined,
    'exactly the limit is allowed',
  );
  assert.match(
    limitProblem([{ name: 'assets/p/image.tar', role: 'image', size: 16 * GiB + 1, sha256: D('a') }])!.message,
    /archive limit/,
  );
  assert.equal(
    limitProblem([{ name: 'assets/p/archive.bin', role: 'archive', size: 16 * GiB + 1, sha256: D('a') }])!.entry,
    'assets/p/archive.bin',
  );
  const total = limitProblem([
    { name: 'assets/p/image.tar', role: 'image', size: 10 * GiB, sha256: D('a') },
    { name: 'assets/p/tool-tree.tar', role: 'tool-tree', size: 7 * GiB, sha256: D('b'), files: 10 },
  ])!;
  assert.equal(total.entry, 'assets/p/tool-tree.tar');
  assert.match(total.message, /capsule total limit/);
  assert.equal(
    limitProblem([
      {
        name: 'assets/p/tool-tree.tar',
        role: 'tool-tree',
        size: 1,
        sha256: D('b'),
        files: CAPSULE_LIMITS.entriesPerToolTree,
      },
    ]),
    undefined,
  );
  assert.match(
    limitProblem([
      {
        name: 'assets/p/tool-tree.tar',
        role: 'tool-tree',
        size: 1,
        sha256: D('b'),
        files: CAPSULE_LIMITS.entriesPerToolTree + 1,
      },
    ])!.message,
    /100000 entries per tool tree/,
  );
});

function withCapsule(
  c: Capsule,
  listed = c.entries.map((e) => ({ name: e.name, size: e.size, sha256: e.sha256 })),
): BundleManifest {
  return { assets: { requested: true, capsules: [c] }, entries: listed } as unknown as BundleManifest;
}

const base = () =>
  sealCapsule({
    profile: 'p',
    kind: 'formal-assets',
    image: D('1'),
    image_ref: null,
    checker_sha256: D('2'),
    tool_paths: ['/usr'],
    entries: [{ name: 'assets/p/image.tar', role: 'image', size: 10, sha256: D('3') }],
  });

test('checkCapsules: edited capsule, listing disagreement, names outside assets/, stray entries, over-limit: refused naming the entry', () => {
  assert.doesNotThrow(() => checkCapsules(withCapsule(base())));
  const edited = { ...base(), image: D('9') };
  assert.throws(
    () => checkCapsules(withCapsule(edited)),
    /`assets\/p\/image\.tar`: the capsule for `p` does not match its own digest/,
  );
  const c = base();
  assert.throws(
    () => checkCapsules(withCapsule(c, [{ name: 'assets/p/image.tar', size: 11, sha256: D('3') }])),
    /`assets\/p\/image\.tar`: the capsule records 10 bytes/,
  );
  assert.throws(
    () => checkCapsules(withCapsule(c, [...c.entries, { name: 'assets/p/extra', size: 1, sha256: D('4') }] as never)),
    /`assets\/p\/extra`: no capsule names it/,
  );
  const outside = sealCapsule({
    ...base(),
    entries: [{ name: 'artifacts/x', role: 'image', size: 1, sha256: D('3') }],
  });
  assert.throws(() => checkCapsules(withCapsule(outside)), /`artifacts\/x`: a capsule entry must live under assets\//);
  const dotdot = sealCapsule({ ...base(), entries: [{ name: 'assets/../x', role: 'image', size: 1, sha256: D('3') }] });
  assert.throws(() => checkCapsules(withCapsule(dotdot)), /`assets\/\.\.\/x`: a `\.\.` segment/);
  const big = sealCapsule({
    ...base(),
    entries: [{ name: 'assets/p/image.tar', role: 'image', size: 17 * GiB, sha256: D('3') }],
  });
  assert.throws(
    () => checkCapsules(withCapsule(big)),
    /`assets\/p\/image\.tar`: an archive of 18253611008 bytes exceeds/,
  );
  const twoImages = sealCapsule({
    ...base(),
    entries: [...base().entries, { name: 'assets/p/b.tar', role: 'image', size: 1, sha256: D('3') }],
  });
  assert.throws(() => checkCapsules(withCapsule(twoImages)), /exactly one worker image/);
});

test('loadedImageIds: ids and references from the engine answer; an error is surfaced', () => {
  const hex = 'ab'.repeat(32);
  assert.deepEqual(loadedImageIds(`{"stream":"Loaded image: sha256:${hex}\\n"}\n`), {
    ids: [`sha256:${hex}`],
    refs: [],
  });
  assert.deepEqual(loadedImageIds(`{"stream":"Loaded image: localhost/x:1\\n"}`), { ids: [], refs: ['localhost/x:1'] });
  assert.equal(loadedImageIds('{"error":"bad tar","errorDetail":{"message":"bad tar"}}').error, 'bad tar');
});

test('packToolTree (the Verus tree path): deterministic, counts files, refuses links and trees over the entry limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-capsule-tree-'));
  try {
    const root = join(dir, 'verus');
    mkdirSync(join(root, 'lib'), { recursive: true });
    writeFileSync(join(root, 'verus'), '#!/bin/sh\n');
    writeFileSync(join(root, 'lib', 'a'), 'a');
    const a = await packToolTree(root, join(dir, 'a.tar'), 'assets/v/tool-tree.tar');
    const b = await packToolTree(root, join(dir, 'b.tar'), 'assets/v/tool-tree.tar');
    assert.equal(a.files, 2);
    assert.equal(a.sha256, b.sha256, 'the same tree packs to the same bytes');
    await assert.rejects(
      packToolTree(root, join(dir, 'c.tar'), 'assets/v/tool-tree.tar', { ...CAPSULE_LIMITS, entriesPerToolTree: 1 }),
      /`assets\/v\/tool-tree\.tar`: .*more than the limit of 1 entries per tool tree/,
    );
    symlinkSync('verus', join(root, 'link'));
    await assert.rejects(
      packToolTree(root, join(dir, 'd.tar'), 'assets/v/tool-tree.tar'),
      /`link`, which is not a regular file/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the reader: a capsule entry hashed but not kept is still refused when one byte differs; the capsule is judged before its bytes', async () => {
  const { readBundle, BUNDLE_LIMITS } = await import('../../src/evidence/hostile.js');
  const { makeTar } = await import('./_tar.js');
  const { sha256Id } = await import('../../src/hash/index.js');
  const Z = D('0');
  const body = 'image bytes\n';
  const capsule = sealCapsule({
    profile: 'p',
    kind: 'formal-assets',
    image: D('1'),
    image_ref: null,
    checker_sha256: D('2'),
    tool_paths: ['/usr'],
    entries: [{ name: 'assets/p/image.tar', role: 'image', size: body.length, sha256: sha256Id(body) }],
  });
  const manifest = (c: Capsule) =>
    JSON.stringify({
      schema: 'vkit.evidence/1',
      run: 'run_x',
      label: 'formal:a',
      kind: 'formal-check',
      job: { key: Z, sha256: Z },
      receipt: { sha256: Z },
      source: { capture: Z, files: 1 },
      outcome: { outcome: 'PASS', claim: 'established', reason: null },
      obligations: [],
      checker: null,
      artifacts: [],
      entries: [{ name: 'assets/p/image.tar', sha256: sha256Id(body), size: body.length }],
      assets: { requested: true, capsules: [c] },
      integrity: 'x',
    });
  const dir = mkdtempSync(join(tmpdir(), 'vkit-capsule-read-'));
  try {
    const write = (name: string, tar: Buffer) => (writeFileSync(join(dir, name), tar), join(dir, name));
    const scratch = () => mkdtempSync(join(dir, 's-'));
    const keepNone = { keep: () => false };
    const good = await readBundle(
      write(
        'good.tar',
        makeTar([
          { name: 'manifest.json', body: manifest(capsule) },
          { name: 'assets/p/image.tar', body },
        ]),
      ),
      scratch(),
      BUNDLE_LIMITS,
      keepNone,
    );
    assert.equal(good.entries.get('assets/p/image.tar')!.sha256, sha256Id(body));
    const flipped = Buffer.from(body);
    flipped[3] = flipped[3]! ^ 0xff;
    await assert.rejects(
      readBundle(
        write(
          'flip.tar',
          makeTar([
            { name: 'manifest.json', body: manifest(capsule) },
            { name: 'assets/p/image.tar', body: flipped },
          ]),
        ),
        scratch(),
        BUNDLE_LIMITS,
        keepNone,
      ),
      /`assets\/p\/image\.tar`: its content digest/,
    );
    const capped = { ...CAPSULE_LIMITS, archiveBytes: 4 };
    await assert.rejects(
      readBundle(
        write(
          'big.tar',
          makeTar([
            { name: 'manifest.json', body: manifest(capsule) },
            { name: 'assets/p/image.tar', body },
          ]),
        ),
        scratch(),
        BUNDLE_LIMITS,
        { capsuleLimits: capped },
      ),
      /`assets\/p\/image\.tar`: an archive of 12 bytes exceeds the capsule archive limit of 4 bytes/,
    );
    // Capsule bytes do not count against the bundle's own (non-capsule) byte limit.
    await readBundle(
      write(
        'own.tar',
        makeTar([
          { name: 'manifest.json', body: manifest(capsule) },
          { name: 'assets/p/image.tar', body },
        ]),
      ),
      scratch(),
      { ...BUNDLE_LIMITS, bytes: 2000 },
      keepNone,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
