/**
 * The file-state cache behind every capture: `hashPath` with a real `Store` (SQLite in a temp dir) as
 * the cache. A digest is reused only for an unchanged stat fingerprint recorded more than 2 s after
 * the file's mtime (git's racy-clean rule); anything else is hashed again.
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashPath, RACY_WINDOW_NS, type HashCounter } from '../../src/capture/files.js';
import { sha256Id } from '../../src/hash/index.js';
import { Store } from '../../src/store/store.js';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const wallClock = () => BigInt(Date.now()) * 1_000_000n;

interface Env {
  dir: string;
  store: Store;
  counter: HashCounter;
  /** Writes a file whose mtime is `ageMs` in the past (0: just now). */
  file(name: string, content: string | Buffer, ageMs?: number): string;
  hash(abs: string, now?: () => bigint, mode?: 'raw' | 'text'): string;
}

async function withStore(fn: (env: Env) => Promise<void> | void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-files-'));
  const store = new Store(join(dir, '.store'));
  const counter: HashCounter = { hashed: 0, reused: 0 };
  const env: Env = {
    dir,
    store,
    counter,
    file(name, content, ageMs = 0) {
      const abs = join(dir, name);
      writeFileSync(abs, content);
      if (ageMs > 0) {
        const t = new Date(Date.now() - ageMs);
        utimesSync(abs, t, t);
      }
      return abs;
    },
    hash(abs, now = wallClock, mode = 'raw') {
      return hashPath(abs, mode, { cache: store.fileStates, now, counter })!.sha256;
    },
  };
  try {
    await fn(env);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a file last modified long before it was recorded is reused on the next hash', () =>
  withStore(({ file, hash, counter, store }) => {
    const abs = file('old.txt', 'old content\n', 10_000);
    assert.equal(hash(abs), sha256Id('old content\n'));
    assert.deepEqual(counter, { hashed: 1, reused: 0 });
    assert.ok(store.fileStates.get(abs, 'raw'), 'the state is recorded in the store');
    assert.equal(hash(abs), sha256Id('old content\n'));
    assert.equal(hash(abs), sha256Id('old content\n'));
    assert.deepEqual(counter, { hashed: 1, reused: 2 });
  }));

test('a file modified just now is racily clean: hashed again next time, every time, until it is old enough', () =>
  withStore(({ file, hash, counter }) => {
    const abs = file('new.txt', 'fresh\n');
    hash(abs);
    hash(abs);
    hash(abs);
    assert.deepEqual(counter, { hashed: 3, reused: 0 });
    // Recorded again from a clock 3 s later, it is no longer racy and the next hash reuses it.
    const later = () => wallClock() + 3_000_000_000n;
    hash(abs, later);
    assert.deepEqual(counter, { hashed: 4, reused: 0 });
    hash(abs, later);
    assert.deepEqual(counter, { hashed: 4, reused: 1 });
  }));

test('racy-clean boundary: recorded at mtime + 2 s is still re-hashed; 1 ns later it is reused', () =>
  withStore(({ file, hash, counter }) => {
    const rows: Array<[string, bigint, 'rehash' | 'reuse']> = [
      ['recorded at mtime', 0n, 'rehash'],
      ['recorded 1 s after mtime', 1_000_000_000n, 'rehash'],
      ['recorded exactly 2 s after mtime', RACY_WINDOW_NS, 'rehash'],
      ['recorded 2 s + 1 ns after mtime', RACY_WINDOW_NS + 1n, 'reuse'],
      ['recorded 10 s after mtime', 10_000_000_000n, 'reuse'],
    ];
    rows.forEach(([name, offset, expected], i) => {
      const abs = file(`f${i}.txt`, `content ${i}\n`, 60_000);
      const mtime = lstatSync(abs, { bigint: true }).mtimeNs;
      const recordAt = () => mtime + offset;
      hash(abs, recordAt);
      const before = { ...counter };
      // The second hash's own clock is irrelevant: only the recorded entry decides.
      assert.equal(
        hash(abs, () => mtime + 100_000_000_000n),
        sha256Id(`content ${i}\n`),
        name,
      );
      const delta = { hashed: counter.hashed - before.hashed, reused: counter.reused - before.reused };
      assert.deepEqual(delta, expected === 'reuse' ? { hashed: 0, reused: 1 } : { hashed: 1, reused: 0 }, name);
    });
  }));

test('a same-size edit with the mtime restored is still detected: ctime changed', () =>
  withStore(async ({ file, hash, counter, store }) => {
    const abs = file('same.txt', 'AAAA\n', 10_000);
    const t = lstatSync(abs).mtime;
    assert.equal(hash(abs), sha256Id('AAAA\n'));
    assert.equal(hash(abs), sha256Id('AAAA\n'));
    assert.deepEqual(counter, { hashed: 1, reused: 1 });
    const recorded = store.fileStates.get(abs, 'raw')!;

    // File timestamps come from a coarse kernel clock; let it tick so the edit gets a new ctime.
    await sleep(30);
    writeFileSync(abs, 'BBBB\n');
    utimesSync(abs, t, t);
    const st = lstatSync(abs, { bigint: true });
    // Preconditions: everything but ctime matches the recorded fingerprint.
    assert.equal(String(st.mtimeNs), recorded.mtime_ns);
    assert.equal(Number(st.size), recorded.size);
    assert.equal(String(st.ino), recorded.ino);
    assert.notEqual(String(st.ctimeNs), recorded.ctime_ns);

    assert.equal(hash(abs), sha256Id('BBBB\n'));
    assert.deepEqual(counter, { hashed: 2, reused: 1 });
  }));

test('a size change is detected even with the mtime restored', () =>
  withStore(({ file, hash, counter }) => {
    const abs = file('grow.txt', 'short\n', 10_000);
    const t = lstatSync(abs).mtime;
    hash(abs);
    writeFileSync(abs, 'much longer now\n');
    utimesSync(abs, t, t);
    assert.equal(hash(abs), sha256Id('much longer now\n'));
    assert.equal(counter.hashed, 2);
  }));

test('raw and text digests of a CRLF file are cached separately and never mixed up', () =>
  withStore(({ file, hash, counter }) => {
    const abs = file('crlf.txt', 'a\r\nb\r\n', 10_000);
    const raw = sha256Id('a\r\nb\r\n');
    const text = sha256Id('a\nb\n');
    assert.equal(hash(abs, wallClock, 'raw'), raw);
    assert.equal(hash(abs, wallClock, 'text'), text);
    assert.deepEqual(counter, { hashed: 2, reused: 0 });
    assert.equal(hash(abs, wallClock, 'text'), text);
    assert.equal(hash(abs, wallClock, 'raw'), raw);
    assert.deepEqual(counter, { hashed: 2, reused: 2 });
  }));

test('CLI: a no-op build re-hashes no input; an edited input is re-hashed', () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/c.txt': 'c\n' });
  try {
    for (const p of ['a.txt', 'src/b.txt', 'src/c.txt']) repo.age(p);
    repo.manifest({
      checks: [
        { id: 'a', run: nodeCheck('0'), inputs: ['a.txt'] },
        { id: 'src', run: nodeCheck('0'), inputs: ['src/*.txt'] },
      ],
    });
    const first = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json().stats.hashed, 3);

    const second = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(second.json().stats.hashed, 0);
    assert.equal(second.json().stats.reused_hashes, 3);

    repo.write('src/b.txt', 'B\n');
    repo.age('src/b.txt');
    const third = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.json().stats.hashed, 1);
    assert.deepEqual(
      third.json().actions.map((a: { label: string; status: string }) => [a.label, a.status]),
      [
        ['check:a', 'cached'],
        ['check:src', 'ran'],
      ],
    );
  } finally {
    repo.cleanup();
  }
});
