/**
 * Bundles are hostile input. Each kind of hostile entry is refused with the entry named (exit 2
 * from the CLI, never a crash), and nothing is written anywhere but numbered files in the scratch
 * directory: not at the path the entry names, not through a link.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readBundle, type BundleLimits } from '../../src/evidence/hostile.js';
import { InvalidInputError } from '../../src/errors.js';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';
import { bundleManifest, makeTar, type RawEntry } from './_tar.js';

const BODY = 'hello\n';

interface Case {
  what: string;
  entries: RawEntry[];
  /** The entry the refusal must name, and words it must say. */
  names: string;
  says: RegExp;
  limits?: BundleLimits;
}

const listed = { 'job.json': BODY };
const head: RawEntry = { name: 'manifest.json', body: bundleManifest(listed) };

const CASES: Case[] = [
  {
    what: '`..` segment',
    entries: [head, { name: '../escaped', body: BODY }],
    names: '../escaped',
    says: /`\.\.` segment/,
  },
  {
    what: 'nested `..`',
    entries: [head, { name: 'artifacts/../../escaped', body: BODY }],
    names: 'artifacts/../../escaped',
    says: /`\.\.` segment/,
  },
  {
    what: 'absolute path',
    entries: [head, { name: '/tmp/vkit-absolute-escape', body: BODY }],
    names: '/tmp/vkit-absolute-escape',
    says: /absolute path/,
  },
  {
    what: 'symbolic link',
    entries: [head, { name: 'job.json', type: 'SymbolicLink', linkpath: '/etc/passwd' }],
    names: 'job.json',
    says: /symbolic link/,
  },
  {
    what: 'hard link',
    entries: [head, { name: 'job.json', type: 'Link', linkpath: 'manifest.json' }],
    names: 'job.json',
    says: /hard link/,
  },
  {
    what: 'character device',
    entries: [head, { name: 'job.json', type: 'CharacterDevice' }],
    names: 'job.json',
    says: /character device/,
  },
  {
    what: 'block device',
    entries: [head, { name: 'job.json', type: 'BlockDevice' }],
    names: 'job.json',
    says: /block device/,
  },
  { what: 'FIFO', entries: [head, { name: 'job.json', type: 'FIFO' }], names: 'job.json', says: /FIFO/ },
  {
    what: 'directory',
    entries: [head, { name: 'artifacts', type: 'Directory' }],
    names: 'artifacts',
    says: /directory/,
  },
  {
    what: 'duplicate name',
    entries: [head, { name: 'job.json', body: BODY }, { name: 'job.json', body: BODY }],
    names: 'job.json',
    says: /duplicate/,
  },
  { what: 'duplicate manifest', entries: [head, head], names: 'manifest.json', says: /duplicate/ },
  {
    what: 'size disagreeing with the manifest',
    entries: [head, { name: 'job.json', body: 'hello, longer\n' }],
    names: 'job.json',
    says: /size 14 disagrees with the manifest's 6/,
  },
  {
    what: 'content disagreeing with the manifest',
    entries: [head, { name: 'job.json', body: 'HELLO\n' }],
    names: 'job.json',
    says: /content digest/,
  },
  {
    what: 'entry not in the manifest',
    entries: [head, { name: 'job.json', body: BODY }, { name: 'extra.bin', body: BODY }],
    names: 'extra.bin',
    says: /not listed in the manifest/,
  },
  { what: 'entry the manifest lists but lacks', entries: [head], names: 'job.json', says: /does not hold it/ },
  {
    what: 'manifest not first',
    entries: [{ name: 'job.json', body: BODY }, head],
    names: 'job.json',
    says: /first entry must be manifest\.json/,
  },
  {
    what: 'manifest not JSON',
    entries: [{ name: 'manifest.json', body: '{nope' }],
    names: 'manifest.json',
    says: /not JSON/,
  },
  {
    what: 'odd characters',
    entries: [head, { name: 'job.json\n', body: BODY }],
    names: 'job.json\n',
    says: /not a plain relative path/,
  },
  {
    what: 'more entries than the limit',
    entries: [
      { name: 'manifest.json', body: bundleManifest({ 'a.bin': 'a', 'b.bin': 'b', 'c.bin': 'c' }) },
      { name: 'a.bin', body: 'a' },
      { name: 'b.bin', body: 'b' },
      { name: 'c.bin', body: 'c' },
    ],
    names: 'c.bin',
    says: /more than the limit of 3 entries/,
    limits: { entries: 3, bytes: 1 << 20 },
  },
  {
    what: 'more bytes than the limit',
    entries: [
      { name: 'manifest.json', body: bundleManifest({ 'big.bin': 'x'.repeat(4000) }) },
      { name: 'big.bin', body: 'x'.repeat(4000) },
    ],
    names: 'big.bin',
    says: /more than the limit of 4096 content bytes/,
    limits: { entries: 10, bytes: 4096 },
  },
];

for (const c of CASES) {
  test(`hostile bundle refused: ${c.what}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vkit-hostile-'));
    const scratch = join(dir, 'scratch');
    mkdirSync(scratch);
    try {
      const file = join(dir, 'bundle.tar');
      writeFileSync(file, makeTar(c.entries));
      await assert.rejects(readBundle(file, scratch, c.limits), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError, String(error));
        assert.equal(error.code, 'ERR_BUNDLE_REFUSED');
        assert.ok(error.message.includes(`\`${c.names}\``), `names ${JSON.stringify(c.names)}: ${error.message}`);
        assert.match(error.message, c.says);
        return true;
      });
      // Nothing escaped: no file at the hostile path, only numbered files in the scratch directory.
      assert.ok(!existsSync(join(dir, 'escaped')) && !existsSync(join(scratch, '..', 'escaped')));
      assert.ok(!existsSync('/tmp/vkit-absolute-escape'));
      assert.ok(
        readdirSync(scratch).every((f) => /^entry-\d{6}$/.test(f)),
        readdirSync(scratch).join(','),
      );
      assert.deepEqual(readdirSync(dir).sort(), ['bundle.tar', 'scratch']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the CLI refuses hostile bundles with exit 2 naming the entry; not a tar at all too', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['a.txt'] }] });
    for (const c of CASES.filter((x) => !x.limits)) {
      const file = join(repo.dir, '..', `${repo.dir.split('/').pop()}-hostile.tar`);
      writeFileSync(file, makeTar(c.entries));
      const r = cli(repo, ['evidence', 'replay', file]);
      rmSync(file, { force: true });
      assert.equal(r.code, 2, `${c.what}: ${r.stderr}`);
      assert.ok(r.stderr.includes(`\`${c.names}\``), `${c.what}: ${r.stderr}`);
    }
    writeFileSync(join(repo.dir, 'junk.tar'), 'this is not a tar file at all, just text that goes on'.repeat(20));
    const junk = cli(repo, ['evidence', 'replay', join(repo.dir, 'junk.tar')]);
    assert.equal(junk.code, 2, junk.stderr);
    const missing = cli(repo, ['evidence', 'replay', join(repo.dir, 'nope.tar')]);
    assert.equal(missing.code, 2);
  } finally {
    repo.cleanup();
  }
});
