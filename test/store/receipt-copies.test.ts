/**
 * The index's copy of each receipt (`receipt_copies`, read by a build's hit checks in one query:
 * `Actions.latestReceipts`). A copy counts only when its bytes hash to the receipt's id and the
 * receipt's file keeps its recorded fingerprint; anything else reads the file. So a copy forged to
 * say PASS is never a pass, a missing copy is written again, and a file damaged behind an intact
 * copy is still found.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { build, gate } from '../../src/service/index.js';
import { IndexVersion } from '../../src/store/data-version.js';
import { blobPath, flipByte, openOpts, openStoreOf } from '../_support/evidence.js';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';

async function failingRepo(): Promise<{ repo: TempRepo; receipt: string }> {
  const repo = tempRepo({ 'in.txt': 'input\n' });
  repo.age('in.txt');
  repo.manifest({ checks: [{ id: 'f', run: nodeCheck('process.exit(1)'), inputs: ['in.txt'] }] });
  const report = await build(openOpts(repo));
  assert.equal(report.gate.status, 'REJECTED');
  return { repo, receipt: report.actions[0]!.receipt! };
}

function copyOf(repo: TempRepo, id: string): Buffer | undefined {
  const store = openStoreOf(repo);
  try {
    return store.db.prepare<[string], { bytes: Buffer }>('SELECT bytes FROM receipt_copies WHERE id = ?').get(id)
      ?.bytes;
  } finally {
    store.close();
  }
}

function setCopy(repo: TempRepo, id: string, bytes: Buffer | undefined): void {
  const store = openStoreOf(repo);
  try {
    if (bytes) store.db.prepare('INSERT OR REPLACE INTO receipt_copies (id, bytes) VALUES (?, ?)').run(id, bytes);
    else store.db.prepare('DELETE FROM receipt_copies WHERE id = ?').run(id);
  } finally {
    store.close();
  }
}

test('a receipt written by a run has its copy in the index, byte for byte', async () => {
  const { repo, receipt } = await failingRepo();
  try {
    assert.deepEqual(copyOf(repo, receipt), readFileSync(blobPath(repo, receipt)));
  } finally {
    repo.cleanup();
  }
});

test('a copy forged to say PASS does not hash to its id: the file is read, the FAIL stands', async () => {
  const { repo, receipt } = await failingRepo();
  try {
    const forged = Buffer.from(
      copyOf(repo, receipt)!
        .toString('utf8')
        .replaceAll('"outcome":"FAIL"', '"outcome":"PASS"')
        .replace('"claim":"refuted"', '"claim":"established"'),
    );
    setCopy(repo, receipt, forged);
    const g = await gate(openOpts(repo));
    assert.equal(g.gate.status, 'REJECTED');
    assert.equal(g.gate.items[0]!.status, 'FAIL');
  } finally {
    repo.cleanup();
  }
});

test('a missing copy: the file is read, and the copy is written again', async () => {
  const { repo, receipt } = await failingRepo();
  try {
    const bytes = copyOf(repo, receipt)!;
    setCopy(repo, receipt, undefined);
    const g = await gate(openOpts(repo));
    assert.equal(g.gate.items[0]!.status, 'FAIL');
    assert.deepEqual(copyOf(repo, receipt), bytes);
  } finally {
    repo.cleanup();
  }
});

test('a damaged file behind an intact copy is found: its fingerprint no longer matches', async () => {
  const { repo, receipt } = await failingRepo();
  try {
    flipByte(blobPath(repo, receipt), 3);
    const g = await gate(openOpts(repo));
    assert.equal(g.gate.status, 'BLOCKED');
    assert.equal(g.gate.items[0]!.status, 'STALE');
    assert.match(g.gate.items[0]!.reason, /receipt .* is altered/);
  } finally {
    repo.cleanup();
  }
});

test('an older receipt matching again (an edit undone) is hit through its own copy: a no-op commits nothing to the index', async () => {
  const repo = tempRepo({ 'in.txt': 'one\n' });
  try {
    repo.age('in.txt');
    repo.manifest({ checks: [{ id: 'c', run: nodeCheck('process.exit(0)'), inputs: ['in.txt'] }] });
    const first = await build(openOpts(repo));
    repo.write('in.txt', 'two\n');
    repo.age('in.txt');
    assert.equal((await build(openOpts(repo))).actions[0]!.status, 'ran');
    repo.write('in.txt', 'one\n');
    repo.age('in.txt');
    const undone = await build(openOpts(repo));
    assert.equal(undone.actions[0]!.status, 'cached');
    assert.equal(undone.actions[0]!.receipt, first.actions[0]!.receipt, 'the older receipt is the hit');
    const version = new IndexVersion(openOpts(repo).store!);
    try {
      const before = version.read();
      for (let i = 0; i < 2; i++) assert.equal((await build(openOpts(repo))).actions[0]!.status, 'cached');
      assert.equal(version.read(), before, 'a no-op wrote to the index');
    } finally {
      version.close();
    }
  } finally {
    repo.cleanup();
  }
});
