/**
 * Files over 1 MiB are hashed through a reused buffer instead of one fresh allocation each (see
 * bench/README.md). The digests must be the ones whole-file hashing gives: raw bytes in raw mode;
 * in text mode raw bytes for binary files (NUL in the first 8,000 bytes) and CRLF -> LF otherwise.
 * The file-state cache must treat them as it treats small files.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashPath, type HashCounter } from '../../src/capture/files.js';
import { Store } from '../../src/store/store.js';

const MIB = 1 << 20;
const wallClock = () => BigInt(Date.now()) * 1_000_000n;
const id = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const lf = (bytes: Buffer) => Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');

function text(size: number): Buffer {
  const b = Buffer.alloc(size, 0x61);
  for (let i = 50; i < size; i += 97) b[i] = 0x0a;
  for (let i = 49; i < size; i += 194) b[i] = 0x0d; // CRLF every other line
  return b;
}

function cases(): Array<[name: string, bytes: Buffer, raw: string, textMode: string]> {
  const rand = randomBytes(3 * MIB + 17);
  const exact = randomBytes(MIB);
  const justOver = randomBytes(MIB + 1);
  const crlf = text(2 * MIB + 3);
  // CR at the end of a 1 MiB chunk with its LF at the start of the next.
  const boundary = text(2 * MIB);
  boundary[MIB - 1] = 0x0d;
  boundary[MIB] = 0x0a;
  const nulLate = text(2 * MIB);
  nulLate[9000] = 0;
  const nulEarly = text(2 * MIB);
  nulEarly[7999] = 0;
  return [
    ['random, 3 MiB + 17', rand, id(rand), id(rand)],
    ['random, exactly 1 MiB', exact, id(exact), id(exact)],
    ['random, 1 MiB + 1', justOver, id(justOver), id(justOver)],
    ['CRLF text, 2 MiB + 3', crlf, id(crlf), id(lf(crlf))],
    ['CRLF split across chunks', boundary, id(boundary), id(lf(boundary))],
    ['text with a NUL after byte 8,000', nulLate, id(nulLate), id(lf(nulLate))],
    ['NUL at byte 7,999 (binary)', nulEarly, id(nulEarly), id(nulEarly)],
  ];
}

test('large files hash to the whole-file digests in raw and text mode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-large-'));
  try {
    for (const [name, bytes, raw, textMode] of cases()) {
      const abs = join(dir, 'f.bin');
      writeFileSync(abs, bytes);
      assert.equal(hashPath(abs, 'raw', { now: wallClock })!.sha256, raw, `${name}, raw`);
      assert.equal(hashPath(abs, 'text', { now: wallClock })!.sha256, textMode, `${name}, text`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a large file goes through the file-state cache like a small one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-large-'));
  const store = new Store(join(dir, '.store'));
  try {
    const abs = join(dir, 'big.bin');
    const bytes = randomBytes(2 * MIB);
    writeFileSync(abs, bytes);
    const old = new Date(Date.now() - 10_000);
    utimesSync(abs, old, old);
    const counter: HashCounter = { hashed: 0, reused: 0 };
    assert.equal(hashPath(abs, 'raw', { cache: store.fileStates, now: wallClock, counter })!.sha256, id(bytes));
    assert.equal(hashPath(abs, 'raw', { cache: store.fileStates, now: wallClock, counter })!.sha256, id(bytes));
    assert.deepEqual(counter, { hashed: 1, reused: 1 });
    bytes[MIB + 5] ^= 0xff;
    writeFileSync(abs, bytes);
    utimesSync(abs, old, old); // same mtime; size too: only ctime tells
    assert.equal(hashPath(abs, 'raw', { cache: store.fileStates, now: wallClock, counter })!.sha256, id(bytes));
    assert.deepEqual(counter, { hashed: 2, reused: 1 });
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
