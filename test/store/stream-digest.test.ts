/**
 * Large files are hashed by streaming in text mode too (CRLF -> LF across chunk boundaries), and
 * give exactly the digest of hashing the whole bytes at once: a CR ending one 1 MiB chunk before an
 * LF, before another byte, or at the very end of the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { streamDigest, textDigest } from '../../src/capture/files.js';
import { sha256Id } from '../../src/hash/index.js';

const CHUNK = 1 << 20;

/** `size` bytes of text with `\r` placed at the given offsets and `\n` after some of them. */
function text(size: number, crs: Array<{ at: number; lf: boolean }>): Buffer {
  const bytes = Buffer.alloc(size, 'x');
  for (let i = 80; i < size; i += 81) bytes[i] = 0x0a;
  for (const { at, lf } of crs) {
    bytes[at] = 0x0d;
    if (at + 1 < size) bytes[at + 1] = lf ? 0x0a : 0x79;
  }
  return bytes;
}

const cases: Record<string, Buffer> = {
  'CRLF split by a chunk boundary': text(CHUNK * 2 + 10, [
    { at: CHUNK - 1, lf: true },
    { at: 17, lf: true },
  ]),
  'lone CR ending a chunk': text(CHUNK * 2 + 10, [
    { at: CHUNK - 1, lf: false },
    { at: 2 * CHUNK - 1, lf: true },
  ]),
  'lone CR ending the file': text(CHUNK + 5, [
    { at: 40, lf: true },
    { at: CHUNK + 4, lf: false },
  ]),
  'CRLF ending the file': text(CHUNK + 6, [{ at: CHUNK + 4, lf: true }]),
  'no CR at all': text(CHUNK + 3, []),
  'binary (NUL early) keeps its CRLFs': Buffer.concat([Buffer.from([0]), text(CHUNK + 3, [{ at: 100, lf: true }])]),
};

for (const [name, bytes] of Object.entries(cases)) {
  test(`streamDigest equals the whole-file digest: ${name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-digest-'));
    try {
      const path = join(dir, 'f');
      writeFileSync(path, bytes);
      assert.equal(streamDigest(path, 'text'), textDigest(readFileSync(path)));
      assert.equal(streamDigest(path, 'raw'), sha256Id(bytes));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
