/**
 * The file-state cache a process loads stays with the process for its later builds under the same
 * root (watch, mcp, the resident build process). What it remembers must never stand for bytes it
 * does not describe, and what other processes record meanwhile must still be found.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FileStateEntry, Fingerprint } from '../../src/capture/files.js';
import { Store } from '../../src/store/store.js';

const NOW = 10_000_000_000_000n;
const fp = (mtime: number): Fingerprint => ({ size: 3, mtime_ns: String(mtime), ctime_ns: String(mtime), ino: '7' });
const entry = (mtime: number, sha256: string): FileStateEntry => ({ ...fp(mtime), sha256, recorded_ns: String(NOW) });
const STORE_MODULE = fileURLToPath(new URL('../../src/store/store.js', import.meta.url));

test('a later load in the same process reuses only matching fingerprints and finds what another process recorded', () => {
  const root = mkdtempSync(join(tmpdir(), 'vkit-fsmemo-root-'));
  const dir = mkdtempSync(join(tmpdir(), 'vkit-fsmemo-store-'));
  const a = join(root, 'a.txt');
  const b = join(root, 'b.txt');
  try {
    const store = new Store(dir);
    store.fileStatesUnder(root).put(a, 'text', entry(1_000, 'sha256:aaa'));
    store.close();

    const first = new Store(dir);
    const states = first.fileStatesUnder(root);
    assert.equal(states.reuse(a, 'text', fp(1_000)), 'sha256:aaa');
    assert.equal(states.reuse(b, 'text', fp(1_000)), undefined);
    first.close();

    // Another process records b.txt, and a new digest for a.txt under a new fingerprint.
    const script = `import { Store } from ${JSON.stringify(STORE_MODULE)};
const s = new Store(${JSON.stringify(dir)});
const c = s.fileStatesUnder(${JSON.stringify(root)});
c.put(${JSON.stringify(b)}, 'text', ${JSON.stringify(entry(2_000, 'sha256:bbb'))});
c.put(${JSON.stringify(a)}, 'text', ${JSON.stringify(entry(3_000, 'sha256:a2'))});
s.close();`;
    const other = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(other.status, 0, other.stderr);

    const later = new Store(dir);
    const again = later.fileStatesUnder(root);
    assert.equal(again.reuse(b, 'text', fp(2_000)), 'sha256:bbb', 'found in the index although this process remembered nothing for it');
    assert.equal(again.reuse(a, 'text', fp(3_000)), 'sha256:a2', 'a moved fingerprint is asked of the index, not answered from memory');
    assert.equal(again.reuse(a, 'text', fp(4_000)), undefined, 'a fingerprint nobody recorded is a miss');
    assert.equal(again.reuse(a, 'raw', fp(3_000)), undefined, 'hash modes never stand for each other');
    // A racily clean record is never remembered as reusable.
    again.put(a, 'text', { ...entry(5_000, 'sha256:racy'), recorded_ns: '5001' });
    assert.equal(again.reuse(a, 'text', fp(5_000)), undefined);
    later.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});
