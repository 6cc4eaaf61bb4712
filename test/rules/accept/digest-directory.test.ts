/**
 * `vkit acceptance digest --domain subject DIR` gives the directory's subject digest, the one
 * `[subject] digest` records (acceptance-details.md §4), so a user can fill that field with vkit:
 * checked against the weighted toy's recorded digest and an independent walk. Any other domain
 * refuses a directory with exit 2 and a message saying what to give instead (never EISDIR).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { REPO_ROOT, tempRepo, vkit } from '../../_support/repo.js';
import { m11, sha512 } from '../../_support/acceptance-docs.js';

const TOY = join(REPO_ROOT, 'examples', 'weighted-toy');

/** The subject digest by a plain walk (node:crypto only): `<path> NUL <sha-512 hex> \n` per file, sorted bytewise. */
function walkDigest(dir: string): string {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const rel = relative(dir, join(d, e.name)).split('\\').join('/');
      if (e.isDirectory()) walk(join(d, e.name));
      else files.push(rel);
    }
  };
  walk(dir);
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return m11('subject', files.map((f) => `${f}\0${sha512(readFileSync(join(dir, f)))}\n`).join(''));
}

test("digest --domain subject DIR: the weighted toy's recorded [subject] digest, and an independent walk's", () => {
  const recorded = (parse(readFileSync(join(TOY, 'acceptance.toml'), 'utf8')) as any).subject.digest;
  const r = vkit(['acceptance', 'digest', '--domain', 'subject', 'subject', '--root', TOY]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${recorded}\n`);
  assert.equal(recorded, walkDigest(join(TOY, 'subject')));
  const json = vkit(['acceptance', 'digest', '--domain', 'subject', 'subject', '--root', TOY, '--json']).json();
  assert.deepEqual(json, { schema: 'vkit.acceptance-digest/1', file: 'subject', domain: 'subject', digest: recorded });
});

test('digest of a file is unchanged; a directory in another domain, or a missing path, is exit 2 with a clear message', () => {
  const repo = tempRepo({ 'dir/a.txt': 'a\n', 'f.txt': 'illustrative-binary-bytes' }, { git: false });
  try {
    const file = vkit(['acceptance', 'digest', '--domain', 'record', 'f.txt', '--root', repo.dir]);
    assert.equal(file.code, 0, file.stderr);
    assert.match(file.stdout, /^record:sha-512:3a3bfdb48a6aae61fa94/);
    const dir = vkit(['acceptance', 'digest', '--domain', 'record', 'dir', '--root', repo.dir]);
    assert.equal(dir.code, 2, dir.stdout + dir.stderr);
    assert.match(dir.stderr, /`dir` is a directory: only --domain subject digests a directory/);
    assert.doesNotMatch(dir.stderr, /EISDIR/);
    const sub = vkit(['acceptance', 'digest', '--domain', 'subject', 'dir', '--root', repo.dir]);
    assert.equal(sub.code, 0, sub.stderr);
    assert.equal(sub.stdout, `${m11('subject', `a.txt\0${sha512('a\n')}\n`)}\n`);
    const gone = vkit(['acceptance', 'digest', '--domain', 'subject', 'nothing', '--root', repo.dir]);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /Cannot read `nothing`/);
  } finally {
    repo.cleanup();
  }
});
