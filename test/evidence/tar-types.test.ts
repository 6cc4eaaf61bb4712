/**
 * A bundle holds regular files only, and the reader decides that from each header's raw type flag
 * before anything else looks at the entry. Entries the `tar` package would skip unseen (unknown
 * types such as `Z`, GNU sparse `S`, volume headers) or fold into the next entry (GNU long names
 * `L`/`K`, pax headers `x`/`g`) are refused like links, devices and FIFOs, naming the entry, even
 * when they sit after every entry the manifest lists. So is anything after the end-of-archive
 * marker, where another reader (`tar --ignore-zeros`) would go on extracting.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { rawEntry } from './_tar.js';

const END_OF_ARCHIVE = 1024;

/** A repository with one passing check, its run exported to `<dir>/good.tar`. */
function exported(): { repo: TempRepo; dir: string; bundle: Buffer } {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck('0'), inputs: ['a.txt'] }] });
  repo.commitAll('init');
  const dir = mkdtempSync(join(tmpdir(), 'vkit-tar-types-'));
  const run = cli(repo, ['build', '--json']).json().actions[0].run;
  const out = join(dir, 'good.tar');
  const e = cli(repo, ['evidence', 'export', '--run', run, '--out', out]);
  assert.equal(e.code, 0, e.stderr);
  return { repo, dir, bundle: readFileSync(out) };
}

/** The bundle with `extra` inserted before its end-of-archive blocks. */
function withExtra(bundle: Buffer, extra: Buffer): Buffer {
  return Buffer.concat([
    bundle.subarray(0, bundle.length - END_OF_ARCHIVE),
    extra,
    bundle.subarray(bundle.length - END_OF_ARCHIVE),
  ]);
}

const FLAGS = [
  'Z',
  'S',
  'L',
  'K',
  'x',
  'g',
  'X',
  'N',
  'A',
  'D',
  'I',
  'M',
  'V',
  '7',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '\0',
];

test('every entry type but a regular file is refused by its type flag, naming the entry; nothing escapes', () => {
  const { repo, dir, bundle } = exported();
  try {
    // The exported bundle itself replays: the refusals below are the extra entry's alone.
    const clean = cli(repo, ['evidence', 'replay', join(dir, 'good.tar')]);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    for (const flag of FLAGS) {
      const name = `../escaped-${flag === '\0' ? 'nul' : flag}`;
      const file = join(dir, 'hostile.tar');
      writeFileSync(
        file,
        withExtra(
          bundle,
          rawEntry(name, flag, 'a payload GNU tar would extract\n', flag === '1' || flag === '2' ? 'a.txt' : ''),
        ),
      );
      const r = cli(repo, ['evidence', 'replay', file, '--json']);
      assert.equal(r.code, 2, `type ${JSON.stringify(flag)}: exit ${r.code}\n${r.stdout}${r.stderr}`);
      const error = r.json().error;
      assert.equal(error.code, 'ERR_BUNDLE_REFUSED', JSON.stringify(flag));
      assert.ok(
        error.message.includes(`\`${name}\``),
        `type ${JSON.stringify(flag)} names the entry: ${error.message}`,
      );
      assert.match(error.message, /a bundle holds regular files only/, JSON.stringify(flag));
      assert.ok(
        !existsSync(join(dir, '..', name.slice(3))) && !existsSync(join(repo.dir, '..', name.slice(3))),
        'nothing was written at the named path',
      );
    }
  } finally {
    repo.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a refused type is named by its flag; the refusal comes before the name is looked at', () => {
  const { repo, dir, bundle } = exported();
  try {
    const file = join(dir, 'sparse.tar');
    writeFileSync(file, withExtra(bundle, rawEntry('../escaped', 'S', 'sparse payload\n')));
    const r = cli(repo, ['evidence', 'replay', file]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /Refused bundle entry `\.\.\/escaped`: a GNU sparse file \(tar type `S`\); a bundle holds regular files only/,
    );
  } finally {
    repo.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bytes after the end-of-archive marker are refused: another reader could find entries there', () => {
  const { repo, dir, bundle } = exported();
  try {
    const file = join(dir, 'trailing.tar');
    writeFileSync(
      file,
      Buffer.concat([bundle, rawEntry('../escaped', '0', 'hidden after the end\n'), Buffer.alloc(END_OF_ARCHIVE)]),
    );
    // GNU tar with --ignore-zeros would extract it:
    const listed = execFileSync('tar', ['--ignore-zeros', '-tf', file], { encoding: 'utf8' });
    assert.match(listed, /\.\.\/escaped/);
    const r = vkit(['evidence', 'replay', file, '--root', repo.dir], { cwd: repo.dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /after the end-of-archive marker/);
  } finally {
    repo.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
