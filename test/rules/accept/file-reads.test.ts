/**
 * One command reads, resolves and hashes each file once (file-reads.ts), whatever cites it: a
 * record cited by every claim is judged against the same bytes everywhere, and a record that
 * changes while the command runs cannot pass one citation and fail another. A new command reads
 * afresh (a cache kept across commands would let a changed record stand). Real files in a temp
 * directory, the real validator; the acceptance action still learns of every file relied on.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileReads } from '../../../rules/accept/lib/file-reads.js';
import { validateFormat } from '../../../rules/accept/lib/format.js';
import { collectReads } from '../../../rules/accept/lib/reads.js';
import { readDoc } from '../../../rules/accept/lib/toml.js';
import { m11 } from '../../_support/acceptance-docs.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'weighted-toy');

function copyExample(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-file-reads-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

test('a file is read once per FileReads: a change after the first read is not seen, the digest is of the bytes read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-file-reads-'));
  try {
    const file = join(dir, 'record.txt');
    writeFileSync(file, 'first\n');
    const files = new FileReads();
    const first = await files.bytes(file);
    writeFileSync(file, 'second\n');
    assert.equal((await files.bytes(file))?.toString(), 'first\n');
    assert.equal(await files.digest(file, 'record'), m11('record', 'first\n'));
    assert.equal(await files.bytes(file), first);
    // A new command's reads see the file as it is now.
    assert.equal(await new FileReads().digest(file, 'record'), m11('record', 'second\n'));
    assert.equal(await files.bytes(join(dir, 'missing.txt')), undefined);
    assert.equal(await files.bytes(dir), undefined, 'a directory has no bytes');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the validator reads through the command: a record changed after it was read passes every citation or none, and the next command sees the change', async () => {
  const dir = copyExample();
  try {
    const pkg = await readDoc(join(dir, 'acceptance.toml'), 'acceptance.toml');
    const files = new FileReads();
    const before = await validateFormat(pkg, { root: dir, files });
    assert.equal(before.verdict, 'PASS', before.findings.list.map((f) => f.message).join('\n'));
    const record = join(dir, 'evidence', 'slug-test-run.txt');
    writeFileSync(record, `${readFileSync(record, 'utf8')}tampered\n`);
    // The same command (sharing its reads) judges the bytes it read, once.
    const same = await validateFormat(pkg, { root: dir, files });
    assert.equal(same.verdict, 'PASS');
    // A new command reads the record again and finds it changed.
    const next = await validateFormat(pkg, { root: dir });
    assert.equal(next.verdict, 'FAIL');
    assert.ok(next.findings.list.some((f) => /does not match its record_hash/.test(f.message)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('files loaded ahead of need are still noted as read when the validator takes them', async () => {
  const dir = copyExample();
  try {
    const pkg = await readDoc(join(dir, 'acceptance.toml'), 'acceptance.toml');
    const { value, reads } = await collectReads(() => validateFormat(pkg, { root: dir }));
    assert.equal(value.verdict, 'PASS');
    assert.ok(reads.has(join(dir, 'evidence', 'slug-test-run.txt')), [...reads].join('\n'));
    assert.ok(reads.has(join(dir, 'acceptance-specification.toml')), [...reads].join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
