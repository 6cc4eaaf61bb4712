/**
 * Registered-check selectors: text-mode identity (CRLF -> LF for text files only), symlinks as their
 * target strings, secret-looking paths never selected, and the config errors for empty globs and
 * literal secrets. File lists come from real git (`listGitFiles`), as the engine's do.
 */
import assert from 'node:assert/strict';
import { symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listGitFiles } from '../../src/capture/git.js';
import { captureSelector, selectorIssues, selectPaths } from '../../src/capture/selector.js';
import { sha256Id } from '../../src/hash/index.js';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

const clock = () => BigInt(Date.now()) * 1_000_000n;

async function files(repo: TempRepo): Promise<string[]> {
  return (await listGitFiles(repo.dir)).sort();
}

/** Selector digest of `globs` in `repo` right now (no file-state cache: every byte is read). */
async function digest(repo: TempRepo, globs: string[]): Promise<string> {
  return captureSelector({ root: repo.dir, globs, files: await files(repo), now: clock }).digest;
}

/** Writes `a` then `b` at the same path and says whether the selector digests are equal. */
async function sameDigest(a: string | Buffer, b: string | Buffer): Promise<boolean> {
  const repo = tempRepo({ 'f.dat': a });
  try {
    const first = await digest(repo, ['f.dat']);
    repo.write('f.dat', b);
    return first === (await digest(repo, ['f.dat']));
  } finally {
    repo.cleanup();
  }
}

/**
 * 8,000 bytes is where git stops looking for a NUL: a CRLF file with one NUL at byte `at`, and the
 * same bytes with every CRLF turned into LF.
 */
function withNulAt(at: number): [Buffer, Buffer] {
  const head = Buffer.from('line one\r\nline two\r\n');
  const crlf = Buffer.concat([head, Buffer.alloc(at - head.length, 0x61), Buffer.from([0]), Buffer.from('tail\r\n')]);
  return [crlf, Buffer.from(crlf.toString('latin1').replace(/\r\n/g, '\n'), 'latin1')];
}

test('CRLF identity: text files normalise CRLF to LF, binary files (NUL in the first 8,000 bytes) do not', async () => {
  const rows: Array<[string, string | Buffer, string | Buffer, boolean]> = [
    ['text CRLF vs LF', 'a\r\nb\r\n', 'a\nb\n', true],
    ['text mixed endings vs LF', 'a\r\nb\nc\r\n', 'a\nb\nc\n', true],
    ['text without final newline', 'a\r\nb', 'a\nb', true],
    ['a lone CR is content, not a line ending', 'a\rb\n', 'a\nb\n', false],
    ['CR CR LF keeps one CR', 'a\r\r\n', 'a\n', false],
    ['text content change is still a change', 'a\r\nb\r\n', 'a\nc\n', false],
    ['binary (NUL at 0) CRLF vs LF', Buffer.from('\0a\r\nb\r\n', 'latin1'), Buffer.from('\0a\nb\n', 'latin1'), false],
    ['binary (NUL at byte 7,999) CRLF vs LF', ...withNulAt(7999), false],
    ['NUL at byte 8,000 is past the sniff: text', ...withNulAt(8000), true],
    [
      'non-UTF-8 text bytes survive normalisation',
      Buffer.from([0xff, 0xfe, 0x0d, 0x0a, 0xe9]),
      Buffer.from([0xff, 0xfe, 0x0a, 0xe9]),
      true,
    ],
  ];
  for (const [name, a, b, equal] of rows) assert.equal(await sameDigest(a, b), equal, name);
});

test('CRLF normalisation hashes exactly the LF bytes (not merely some stable form)', async () => {
  const repo = tempRepo({ 'a.txt': 'x\r\ny\r\n' });
  try {
    const capture = captureSelector({ root: repo.dir, globs: ['a.txt'], files: await files(repo), now: clock });
    assert.deepEqual(
      capture.files.map((f) => [f.path, f.mode, f.sha256]),
      [['a.txt', '100644', sha256Id('x\ny\n')]],
    );
  } finally {
    repo.cleanup();
  }
});

test('CLI: converting a checked input from LF to CRLF leaves the check cached; a real edit reruns it', () => {
  const repo = tempRepo({ 'a.txt': 'one\ntwo\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: nodeCheck("require('fs').readFileSync('a.txt')"), inputs: ['a.txt'] }] });
    const first = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json().actions[0].status, 'ran');
    const key = first.json().actions[0].key;

    repo.write('a.txt', 'one\r\ntwo\r\n');
    const second = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      second.json().actions.map((a: { status: string; key: string }) => [a.status, a.key]),
      [['cached', key]],
    );

    repo.write('a.txt', 'one\r\nthree\r\n');
    const third = vkit(['build', '--json', '--root', repo.dir]);
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.json().actions[0].status, 'ran');
    assert.notEqual(third.json().actions[0].key, key);
  } finally {
    repo.cleanup();
  }
});

const SECRETS = [
  '.env',
  '.env.local',
  'config/.env.production',
  'x.pem',
  'certs/server.key',
  'id_rsa',
  'home/.ssh/id_ed25519',
  'id_rsa.pub',
  '.npmrc',
  'aws-credentials.txt',
  'Credentials.json',
  '.netrc',
  'store.p12',
];
const ORDINARY = [
  '.gitignore',
  'README.md',
  'environment.ts',
  'keys.txt',
  'src/a.ts',
  'src/.eslintrc',
  'pem.txt',
  'docs/key.md',
];

test('`**/*` never selects secret-looking paths, and selects every ordinary file, dotfiles included', async () => {
  const repo = tempRepo(Object.fromEntries([...SECRETS, ...ORDINARY].map((p) => [p, `content of ${p}\n`])));
  try {
    const all = await files(repo);
    // Git does list them: the exclusion is vkit's, not an accident of the file list.
    for (const secret of SECRETS) assert.ok(all.includes(secret), `git lists ${secret}`);
    assert.deepEqual(selectPaths(['**/*'], all), [...ORDINARY].sort());
    const capture = captureSelector({ root: repo.dir, globs: ['**/*', '*'], files: all, now: clock });
    assert.deepEqual(
      capture.files.map((f) => f.path),
      [...ORDINARY].sort(),
    );
    // Naming a secret through a glob that only it matches still selects nothing.
    assert.deepEqual(selectPaths(['*.pem', '**/id_*', '.env*'], all), []);
  } finally {
    repo.cleanup();
  }
});

test('selectorIssues: empty globs and literal secrets are errors at their field path; exclusions never are', () => {
  const sorted = ['.env', 'a.txt', 'src/b.ts', 'x.pem'];
  const check = (globs: string[], expected: Array<[string, RegExp]>) => {
    const issues = selectorIssues(globs, sorted, 'checks[3].inputs', 'vkit.manifest.json');
    assert.deepEqual(
      issues.map((i) => i.path),
      expected.map(([p]) => p),
      JSON.stringify(globs),
    );
    issues.forEach((issue, i) => {
      assert.equal(issue.file, 'vkit.manifest.json');
      assert.match(issue.message, expected[i]![1]);
    });
  };
  check(['a.txt', 'src/**/*.ts'], []);
  check(['a.txt', 'nope/**'], [['checks[3].inputs[1]', /match at least one file/]]);
  check(['.env'], [['checks[3].inputs[0]', /secret/]]);
  check(['./.env', 'a.txt'], [['checks[3].inputs[0]', /secret/]]);
  check(['x.pem'], [['checks[3].inputs[0]', /secret/]]);
  // A glob whose only matches are secrets matches nothing vkit may read.
  check(['*.pem'], [['checks[3].inputs[0]', /match at least one file/]]);
  // A literal that names no file is an empty glob too.
  check(['missing.txt', 'a.txt'], [['checks[3].inputs[0]', /match at least one file/]]);
  // Exclusions are never "empty" or "secret" errors, even when they exclude everything.
  check(['a.txt', '!nothing/**', '!.env'], []);
});

test('a symlink input is hashed as its target string, never followed', async () => {
  const repo = tempRepo({ 'a.txt': 'target a\n', 'b.txt': 'target b\n' });
  try {
    symlinkSync('a.txt', join(repo.dir, 'link'));
    const first = captureSelector({ root: repo.dir, globs: ['link'], files: await files(repo), now: clock });
    assert.deepEqual(
      first.files.map((f) => [f.path, f.mode, f.sha256]),
      [['link', '120000', sha256Id('a.txt')]],
    );

    // Changing the bytes of the target does not change the link's identity.
    repo.write('a.txt', 'target a, edited\n');
    assert.equal(await digest(repo, ['link']), first.digest);

    // Changing the target string does.
    unlinkSync(join(repo.dir, 'link'));
    symlinkSync('b.txt', join(repo.dir, 'link'));
    assert.notEqual(await digest(repo, ['link']), first.digest);

    // A dangling link and a link out of the repository are just strings too.
    unlinkSync(join(repo.dir, 'link'));
    symlinkSync('/etc/hostname', join(repo.dir, 'link'));
    assert.equal(
      captureSelector({ root: repo.dir, globs: ['link'], files: await files(repo), now: clock }).files[0]?.sha256,
      sha256Id('/etc/hostname'),
    );
    unlinkSync(join(repo.dir, 'link'));
    symlinkSync('does/not/exist', join(repo.dir, 'link'));
    assert.equal(
      captureSelector({ root: repo.dir, globs: ['link'], files: await files(repo), now: clock }).files[0]?.sha256,
      sha256Id('does/not/exist'),
    );
  } finally {
    repo.cleanup();
  }
});

test('a symlink to a directory is one entry (its target string), not a way into the directory', async () => {
  const repo = tempRepo({ 'real/x.txt': 'x\n' });
  try {
    symlinkSync('real', join(repo.dir, 'alias'));
    const all = await files(repo);
    const capture = captureSelector({ root: repo.dir, globs: ['**/*'], files: all, now: clock });
    assert.deepEqual(
      capture.files.map((f) => [f.path, f.mode]),
      [
        ['alias', '120000'],
        ['real/x.txt', '100644'],
      ],
    );
    assert.equal(capture.files[0]?.sha256, sha256Id('real'));
  } finally {
    repo.cleanup();
  }
});
