/**
 * Subject identity: the crate digest (computed independently with node:crypto, in acceptance-docs), digest and
 * component subjects, and commit subjects with and without --tree, in real git repositories.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { Findings } from '../../../rules/accept/lib/report.js';
import { crateDigest } from '../../../rules/accept/lib/stack/crate-digest.js';
import { verifySubject } from '../../../rules/accept/lib/subject.js';
import { parseDoc } from '../../../rules/accept/lib/toml.js';
import { tempRepo } from '../../_support/repo.js';
import { subjectDigest } from '../../_support/acceptance-docs.js';

const CRATE = {
  'Cargo.toml': '[package]\nname = "k"\n',
  'src/lib.rs': 'pub fn f() -> u8 { 1 }\r\n',
  'src/Z.rs': '// upper case sorts first\n',
  'é.txt': 'non-ascii name\n',
};

test('crate digest: tracked + untracked-not-ignored files, target/ and ignored files excluded, sorted bytewise', async () => {
  const repo = tempRepo({
    ...Object.fromEntries(Object.entries(CRATE).map(([k, v]) => [`k/${k}`, v])),
    'k/target/debug/x': 'build output',
    'k/.gitignore': 'ignored.log\n',
    'k/ignored.log': 'noise',
    'other/file': 'not in the crate',
  });
  try {
    repo.git('add', 'k/Cargo.toml', 'k/src/lib.rs', 'k/.gitignore');
    const got = await crateDigest(join(repo.dir, 'k'));
    assert.equal(got.digest, subjectDigest({ ...CRATE, '.gitignore': 'ignored.log\n' }));
    // One byte anywhere changes it.
    repo.write('k/src/Z.rs', '// upper case sorts first!\n');
    assert.notEqual((await crateDigest(join(repo.dir, 'k'))).digest, got.digest);
  } finally {
    repo.cleanup();
  }
});

test('crate digest without git: a walk of the same files', async () => {
  const repo = tempRepo({ ...CRATE, 'target/out': 'x' }, { git: false });
  try {
    assert.equal((await crateDigest(repo.dir)).digest, subjectDigest(CRATE));
  } finally {
    repo.cleanup();
  }
});

const pkgDoc = (dir: string, subject: string) =>
  parseDoc(
    Buffer.from(`[subject]\nname = "k"\n${subject}`),
    'pkg/acceptance.toml',
    join(dir, 'pkg', 'acceptance.toml'),
  );
const ctxOf = (root: string, trees: Record<string, string> = {}) => ({ root, stores: {}, trees });
async function findingsOf(dir: string, subject: string, trees?: Record<string, string>) {
  const f = new Findings('pkg/acceptance.toml');
  await verifySubject(pkgDoc(dir, subject), ctxOf(dir, trees), f);
  return f.list.map((x) => `${x.level} ${x.message}`);
}

test('digest subjects: equal passes, one changed byte fails; prospective carries nothing to check', async () => {
  const repo = tempRepo(Object.fromEntries(Object.entries(CRATE).map(([k, v]) => [`k/${k}`, v])), { git: false });
  try {
    const good = subjectDigest(CRATE);
    assert.deepEqual(await findingsOf(repo.dir, `root = "k"\ndigest = "${good}"\n`), []);
    repo.write('k/src/lib.rs', 'pub fn f() -> u8 { 2 }\r\n');
    const bad = await findingsOf(repo.dir, `root = "k"\ndigest = "${good}"\n`);
    assert.equal(bad.length, 1);
    assert.match(bad[0]!, /^ERROR subject digest does not match the bytes under `k`/);
    assert.deepEqual(await findingsOf(repo.dir, 'mode = "prospective"\nread_at_commit = "unpinned"\n'), []);
    assert.match((await findingsOf(repo.dir, `root = "../outside"\ndigest = "${good}"\n`))[0]!, /leaves --root/);
  } finally {
    repo.cleanup();
  }
});

test('component subjects: each component recomputed from <root>/<name>, and the aggregate', async () => {
  const repo = tempRepo({ 'sys/alpha/a.txt': 'A\n', 'sys/beta/b.txt': 'B\n' }, { git: false });
  try {
    const a = subjectDigest({ 'a.txt': 'A\n' });
    const b = subjectDigest({ 'b.txt': 'B\n' });
    const aggregate = `subject:sha-512:${createHash('sha512').update('subject:').update(`alpha=content-digest:${a}\nbeta=content-digest:${b}\n`).digest('hex')}`;
    const subject = (agg: string, bDigest = b) =>
      `root = "sys"\ndigest = "${agg}"\n[[subject.components]]\nname = "beta"\ndigest = "${bDigest}"\n[[subject.components]]\nname = "alpha"\ndigest = "${a}"\n`;
    assert.deepEqual(await findingsOf(repo.dir, subject(aggregate)), []);
    assert.match((await findingsOf(repo.dir, subject(a))).join('\n'), /aggregate digest does not match its components/);
    repo.write('sys/beta/b.txt', 'changed\n');
    assert.match(
      (await findingsOf(repo.dir, subject(aggregate))).join('\n'),
      /component #1 digest does not match the bytes under `sys\/beta`/,
    );
  } finally {
    repo.cleanup();
  }
});

test('commit subjects: --tree with the commit present compares every file; absent and unpinned -> indeterminate; no --tree needs the commit in --root', async () => {
  const repo = tempRepo({ 'app/src/main.rs': 'fn main() {}\n', 'app/Cargo.toml': '[package]\n' });
  try {
    const commit = repo.commitAll();
    const subject = (c: string) => `root = "app"\ncommit = "${c}"\ndirty = false\n`;
    assert.deepEqual(await findingsOf(repo.dir, subject(commit), { [commit]: repo.dir }), []);
    assert.deepEqual(
      await findingsOf(repo.dir, subject(commit)),
      [],
      'without --tree: --root has the commit and equal bytes',
    );
    repo.write('app/src/main.rs', 'fn main() { }\n');
    repo.write('app/src/extra.rs', '\n');
    const diff = await findingsOf(repo.dir, subject(commit), { [commit.slice(0, 12)]: repo.dir });
    assert.deepEqual(diff, [
      `ERROR subject file \`app/src/extra.rs\` is not in commit ${commit.slice(0, 12)}`,
      `ERROR subject file \`app/src/main.rs\` differs from commit ${commit.slice(0, 12)}`,
    ]);
    const absent = 'a'.repeat(40);
    // No recorded digest pins app/'s files, so nothing ties them to the absent commit (fail closed; tree-unverified.test.ts has the pinned case).
    assert.deepEqual(await findingsOf(repo.dir, subject(absent), { [absent]: repo.dir }), [
      'WARN INDETERMINATE: subject commit aaaaaaaaaaaa cannot be verified (it is not present in the repository of --tree `.`), and 3 of 3 files under the subject root `app` there have no recorded digest that matches: Cargo.toml, src/extra.rs, src/main.rs; pass --tree aaaaaaaaaaaa=DIR naming a checkout of that commit',
    ]);
    const noTree = await findingsOf(repo.dir, subject(absent));
    assert.equal(noTree.length, 1);
    assert.match(noTree[0]!, /^ERROR subject commit aaaaaaaaaaaa is not in the git repository at --root/);
  } finally {
    repo.cleanup();
  }
});
