/**
 * Invariant 2: a blob the gate relies on that is altered or missing is a miss that marks the
 * evidence STALE (gate BLOCKED, exit 3), never a pass; the next build reruns and recovers. The
 * shallow check trusts an unchanged stat fingerprint for a blob's file, and always re-hashes a
 * receipt's bytes (read from the index's copy while the file keeps its fingerprint); `--deep`
 * reads and re-hashes every file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { build, gate } from '../../src/service/index.js';
import { blobPath, flipByte, openOpts, openStoreOf } from '../_support/evidence.js';
import { builtRepo, trustCurrentStat } from '../_support/tamper.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const damages = {
  'flip a byte': (path: string) => flipByte(path, 3),
  delete: (path: string) => rmSync(path),
  // The same bytes behind a symlink are not the store's file; a FIFO must not block the reader.
  'a symlink to the same bytes': (path: string) => {
    copyFileSync(path, `${path}.elsewhere`);
    rmSync(path);
    symlinkSync(`${path}.elsewhere`, path);
  },
  'a FIFO': (path: string) => {
    rmSync(path);
    execFileSync('mkfifo', [path]);
  },
};

for (const [damage, apply] of Object.entries(damages)) {
  for (const target of ['receipt', 'stdout', 'stderr', 'outputs/out/result.txt']) {
    test(`${damage} in the ${target} blob: gate BLOCKED with the item STALE, next build recovers`, async () => {
      const { repo, blobs } = await builtRepo();
      try {
        apply(blobPath(repo, blobs[target]!));
        const g = await gate(openOpts(repo));
        assert.equal(g.gate.status, 'BLOCKED');
        assert.equal(g.gate.items.length, 1);
        assert.equal(g.gate.items[0]!.status, 'STALE');
        assert.match(g.gate.items[0]!.reason, /tampered/);
        assert.match(g.gate.items[0]!.reason, damage === 'delete' ? /missing/ : /altered/);

        const rebuilt = await build(openOpts(repo));
        assert.equal(rebuilt.actions[0]!.status, 'ran', 'tampered evidence is never a cache hit');
        assert.equal(rebuilt.gate.status, 'READY');
        const after = await gate(openOpts(repo));
        assert.equal(after.gate.status, 'READY');
        assert.equal(after.gate.items[0]!.status, 'PASS');
      } finally {
        repo.cleanup();
      }
    });
  }
}

test('a FAIL receipt rewritten to say PASS (still valid JSON) is never a pass, even behind a trusted fingerprint', async () => {
  const repo = tempRepo({ 'in.txt': 'input\n' });
  try {
    repo.manifest({ checks: [{ id: 'f', run: nodeCheck('process.exit(1)'), inputs: ['in.txt'] }] });
    const report = await build(openOpts(repo));
    assert.equal(report.gate.status, 'REJECTED');
    const path = blobPath(repo, report.actions[0]!.receipt!);
    const text = readFileSync(path, 'utf8');
    assert.ok(text.includes('"outcome":"FAIL"'));
    const forged = text
      .replaceAll('"outcome":"FAIL"', '"outcome":"PASS"')
      .replace('"claim":"refuted"', '"claim":"established"')
      .replace(/"reason":"[^"]*"/, '"reason":null');
    writeFileSync(path, forged);
    JSON.parse(forged);
    const g = await gate(openOpts(repo));
    assert.equal(g.gate.status, 'BLOCKED');
    assert.equal(g.gate.items[0]!.status, 'STALE');
    // An index made to trust the forged file's stat: a build's hit check then reads the receipt's
    // bytes from the index's copy, which must hash to the receipt's id, so what it finds is the real
    // FAIL, never the forged PASS; `deep` reads the file and finds it altered.
    trustCurrentStat(repo, report.actions[0]!.receipt!);
    const trusted = await gate(openOpts(repo));
    assert.equal(trusted.gate.status, 'REJECTED');
    assert.equal(trusted.gate.items[0]!.status, 'FAIL');
    const deep = await gate(openOpts(repo), { deep: true });
    assert.equal(deep.gate.status, 'BLOCKED');
    assert.equal(deep.gate.items[0]!.status, 'STALE');
    assert.match(deep.gate.items[0]!.reason, /altered/);
    const rebuilt = await build(openOpts(repo), { deep: true });
    assert.equal(rebuilt.actions[0]!.status, 'failed');
    assert.equal(rebuilt.gate.status, 'REJECTED');
  } finally {
    repo.cleanup();
  }
});

test("an index row pointing a key at another action's intact receipt is caught, not trusted", async () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  try {
    repo.manifest({
      checks: [
        { id: 'a', run: nodeCheck('process.exit(1)'), inputs: ['a.txt'] },
        { id: 'b', run: nodeCheck('0'), inputs: ['b.txt'] },
      ],
    });
    const report = await build(openOpts(repo));
    assert.equal(report.gate.status, 'REJECTED');
    const [a, b] = report.actions;
    const store = openStoreOf(repo);
    try {
      // Point a's key at b's passing receipt: every blob is intact, only the binding is wrong.
      // Both index rows that can name it (the cache and the label's latest receipt) are pointed there.
      assert.equal(
        store.db.prepare('UPDATE action_cache SET receipt = ? WHERE key = ?').run(b!.receipt, a!.key).changes,
        1,
      );
      assert.equal(
        store.db.prepare('UPDATE latest SET receipt = ? WHERE label = ?').run(b!.receipt, a!.label).changes,
        1,
      );
    } finally {
      store.close();
    }
    const g = await gate(openOpts(repo));
    const item = g.gate.items.find((i) => i.id === 'check:a')!;
    assert.equal(item.status, 'STALE');
    assert.match(item.reason, /belongs to another action/);
    assert.equal(g.gate.status, 'BLOCKED');
    const rebuilt = await build(openOpts(repo));
    assert.equal(rebuilt.actions.find((x) => x.label === 'check:a')!.status, 'failed');
    assert.equal(rebuilt.gate.status, 'REJECTED');
  } finally {
    repo.cleanup();
  }
});
