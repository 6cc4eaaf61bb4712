/**
 * `--tree COMMIT=DIR` when DIR cannot show that it holds the commit (DIR's repository lacks it, or
 * DIR is in no git repository): fail closed. The result is INDETERMINATE (exit 3), naming the
 * commit and DIR, unless every file under the subject root in DIR is an input the documents name
 * with a recorded digest (evidence `inputs`/`build_inputs`, a `record_hash`, an inventory
 * element's crate digest) recomputed over DIR's bytes and matched; then it may stay valid and a
 * NOTE says exactly that, with the number of files. Every verb and the gate's `accept` item give
 * the same answer. Real git repositories in temp dirs, real CLI.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Findings } from '../../../rules/accept/lib/report.js';
import { crateDigest } from '../../../rules/accept/lib/stack/crate-digest.js';
import { verifySubject } from '../../../rules/accept/lib/subject.js';
import { parseDoc } from '../../../rules/accept/lib/toml.js';
import { cli } from '../../_support/evidence.js';
import { REPO_ROOT, tempRepo, vkit, type TempRepo } from '../../_support/repo.js';
import {
  acceptanceItem,
  CHECK_DECISION,
  DEFAULTS,
  LASTING,
  m11,
  PINNED_SUBJECT,
  TRIO_PATHS,
  validTrio,
  writeTrio,
  type Trio,
} from '../../_support/acceptance-docs.js';

const FAKE = DEFAULTS.commit;
const SHORT = FAKE.slice(0, 12);
const TREE = `${FAKE}=.`;
const { spec: S, pkg: P, decision: D } = TRIO_PATHS;

const checkPackage = (dir: string, tree = TREE) =>
  vkit(['acceptance', 'check-package', P, '--spec', S, '--root', dir, '--tree', tree]);
const checkDecision = (dir: string, tree = TREE) => vkit([...CHECK_DECISION, '--root', dir, '--tree', tree]);
const coverage = (dir: string) => vkit(['acceptance', 'coverage', P, '--spec', S, '--root', dir, '--tree', TREE]);
const render = (dir: string) => vkit(['acceptance', 'render', S, P, D, '--root', dir, '--tree', TREE]);
const decide = (dir: string) =>
  vkit([
    'acceptance',
    'decide',
    P,
    '--spec',
    S,
    '--issuer',
    DEFAULTS.consumer,
    '--out',
    'drafted.toml',
    '--root',
    dir,
    '--tree',
    TREE,
  ]);

/** The shared trio's default subject, `slug/`, is pinned: its one file is every record's input. */
const pinnedRepo = (opts: { git?: boolean } = {}): TempRepo => {
  const repo = tempRepo({}, opts);
  writeTrio(repo.dir, validTrio());
  return repo;
};

const noteOf = (stdout: string) => stdout.split('\n').filter((l) => l.includes('tree checkout'));

test('the subject bytes in DIR are not all pinned and DIR lacks the commit: INDETERMINATE naming the commit and DIR, on every verb', () => {
  const repo = tempRepo();
  try {
    // The subject is the documents' directory: they, SPEC.md and the test script have no digest.
    writeTrio(repo.dir, validTrio({ subjectRoot: null }));
    const why = `subject commit ${SHORT} cannot be verified (it is not present in the repository of --tree \`.\`), and 5 of 7 files under the subject root \`.\` there have no recorded digest that matches: SPEC.md, acceptance-decision.toml, acceptance-specification.toml and 2 more; pass --tree ${SHORT}=DIR naming a checkout of that commit`;
    const p = checkPackage(repo.dir);
    assert.equal(p.code, 3, p.stdout + p.stderr);
    assert.ok(p.stdout.includes(`WARN ${P}: INDETERMINATE: ${why}`), p.stdout);
    assert.match(p.stdout, /^INDETERMINATE acceptance\.toml against acceptance-specification\.toml/m);
    assert.deepEqual(noteOf(p.stdout), [], 'the old "recorded digests checked" NOTE is gone');

    const d = checkDecision(repo.dir);
    assert.equal(d.code, 3, d.stdout);
    assert.ok(d.stdout.includes(`DECISION INDETERMINATE ${D}: ${why}`), d.stdout);
    assert.doesNotMatch(d.stdout, /DECISION VALID/);
    const effect = vkit([...CHECK_DECISION, '--root', repo.dir, '--tree', TREE, '--effect', '--now', '2026-10-01']);
    assert.equal(effect.code, 3, effect.stdout);
    assert.doesNotMatch(effect.stdout, /EFFECT-ELIGIBLE/);

    const r = render(repo.dir);
    assert.equal(r.code, 3, r.stdout);
    const c = coverage(repo.dir);
    assert.equal(c.code, 1, c.stdout);
    assert.match(c.stdout, /not acceptable: the package check is indeterminate/);
    const draft = decide(repo.dir);
    assert.equal(draft.code, 3, draft.stdout);
    assert.match(draft.stdout, /DECIDE REFUSED acceptance\.toml: the package check is indeterminate/);
  } finally {
    repo.cleanup();
  }
});

test('DIR in no git repository: INDETERMINATE saying so', () => {
  const repo = tempRepo({}, { git: false });
  try {
    writeTrio(repo.dir, validTrio({ subjectRoot: null }));
    const d = checkDecision(repo.dir);
    assert.equal(d.code, 3, d.stdout);
    assert.match(
      d.stdout,
      new RegExp(
        `DECISION INDETERMINATE ${D}: subject commit ${SHORT} cannot be verified \\(--tree \`\\.\` is not in a git repository\\), and 5 of 7 files under the subject root`,
      ),
    );
  } finally {
    repo.cleanup();
  }
});

test("every subject file pinned by a recorded digest over DIR's bytes: valid, and the NOTE says exactly that", () => {
  for (const git of [true, false]) {
    const repo = pinnedRepo({ git });
    try {
      const d = checkDecision(repo.dir);
      assert.equal(d.code, 0, d.stdout + d.stderr);
      assert.match(d.stdout, /^DECISION VALID acceptance-decision\.toml: verdict accepted/m);
      const where = git
        ? `commit ${SHORT} not present in the repository of --tree \`.\``
        : `--tree \`.\` is not in a git repository, so commit ${SHORT} cannot be looked up`;
      assert.deepEqual(noteOf(d.stdout), [
        `NOTE ${P}: tree checkout: ${where}; every file under the subject root \`${PINNED_SUBJECT}\` there is an input named by the documents and was checked against its recorded digest over DIR's bytes: 1 file (line 10)`,
      ]);
      assert.equal(checkPackage(repo.dir).code, 0);
      assert.equal(render(repo.dir).code, 0);
      assert.equal(coverage(repo.dir).code, 0);
    } finally {
      repo.cleanup();
    }
  }
});

test("pinned, but one more file under the subject root, or DIR's bytes differ from a recorded digest: INDETERMINATE naming the file", () => {
  const repo = pinnedRepo();
  try {
    repo.write(`${PINNED_SUBJECT}/build.rs`, 'fn main() {}\n');
    const extra = checkDecision(repo.dir);
    assert.equal(extra.code, 3, extra.stdout);
    assert.match(
      extra.stdout,
      /and 1 of 2 files under the subject root `slug` there has no recorded digest that matches: build\.rs; pass --tree/,
    );
    repo.git('clean', '-fq', '--', `${PINNED_SUBJECT}/build.rs`);
    assert.equal(checkDecision(repo.dir).code, 0);

    // DIR is another directory: the documents' digests are recomputed over ITS bytes, not --root's.
    repo.write(
      `elsewhere/${PINNED_SUBJECT}/test/slug-test.js`,
      readFileSync(join(repo.dir, PINNED_SUBJECT, 'test/slug-test.js'), 'utf8').replace('5 cases', '5  cases'),
    );
    const other = checkDecision(repo.dir, `${FAKE}=elsewhere`);
    assert.equal(other.code, 3, other.stdout);
    assert.match(
      other.stdout,
      /not present in the repository of --tree `elsewhere`\), and 1 of 1 file under the subject root `slug` there has no recorded digest that matches: test\/slug-test\.js \(its recorded digest differs\)/,
    );
  } finally {
    repo.cleanup();
  }
});

test("an inventory element's crate digest pins the files under its crate directory", async () => {
  const ws: Record<string, string> = {
    'ws/Cargo.lock': 'version = 3\n',
    'ws/Cargo.toml': '[workspace]\nmembers = ["app", "crates/lib"]\n',
    'ws/app/src/main.rs': 'fn main() {}\n',
    'ws/crates/lib/Cargo.toml': '[package]\nname = "lib"\n',
    'ws/crates/lib/src/lib.rs': 'pub fn f() {}\n',
  };
  const repo = tempRepo(ws, { git: false });
  try {
    const lib = (await crateDigest(join(repo.dir, 'ws/crates/lib'))).digest;
    const input = (p: string) => `{ path = "${p}", digest = "${m11('subject', ws[`ws/${p}`]!)}" }`;
    const pkgText = (inputs: string[]) => `[subject]
name = "app"
root = "ws"
commit = "${'a'.repeat(40)}"
dirty = false

[[claim]]
id = "C1"
  [[claim.evidence]]
  inputs = [${inputs.map(input).join(', ')}]

[[inventory]]
id = "inv"
relation = "runtime"
source = "Cargo.lock"
  [[inventory.element]]
  name = "lib"
  source = "path+crates/lib"
  digest = "${lib}"
`;
    const run = async (text: string) => {
      const f = new Findings('pkg/acceptance.toml');
      await verifySubject(
        parseDoc(Buffer.from(text), 'pkg/acceptance.toml', join(repo.dir, 'pkg', 'acceptance.toml')),
        { root: repo.dir, stores: {}, trees: { aaaaaaa: repo.dir } },
        f,
      );
      return { lines: f.list.map((x) => `${x.level} ${x.message}`), indeterminate: f.indeterminateReasons };
    };
    const all = await run(pkgText(['Cargo.lock', 'Cargo.toml', 'app/src/main.rs']));
    assert.deepEqual(all.indeterminate, []);
    assert.deepEqual(all.lines, [
      `NOTE tree checkout: --tree \`.\` is not in a git repository, so commit aaaaaaaaaaaa cannot be looked up; every file under the subject root \`ws\` there is an input named by the documents and was checked against its recorded digest over DIR's bytes: 5 files`,
    ]);
    const short = await run(pkgText(['Cargo.lock', 'app/src/main.rs']));
    assert.match(
      short.indeterminate.join('\n'),
      /1 of 5 files under the subject root `ws` there has no recorded digest that matches: Cargo\.toml;/,
    );
    repo.write('ws/crates/lib/src/lib.rs', 'pub fn f() { }\n');
    const changed = await run(pkgText(['Cargo.lock', 'Cargo.toml', 'app/src/main.rs']));
    assert.match(
      changed.indeterminate.join('\n'),
      /2 of 5 files .*: crates\/lib\/Cargo\.toml \(its recorded digest differs\), crates\/lib\/src\/lib\.rs \(its recorded digest differs\);/,
    );
  } finally {
    repo.cleanup();
  }
});

test("paint-stack in a clone that lacks the app's commit: every app file is a recorded input, so it stays valid with the precise NOTE", () => {
  const EX = 'examples/paint-stack';
  const APP = `${EX}/paint-app`;
  const repo = tempRepo();
  try {
    cpSync(join(REPO_ROOT, EX), join(repo.dir, EX), { recursive: true, filter: (src) => !src.includes('/target') });
    repo.commitAll('a history without the recorded commit');
    const commit = /^commit\s*=\s*"([0-9a-f]{40})"/m.exec(
      readFileSync(join(repo.dir, APP, 'acceptance-package.toml'), 'utf8'),
    )![1]!;
    const run = () =>
      vkit([
        'acceptance',
        'check-decision',
        `${APP}/acceptance-decision.toml`,
        '--spec',
        `${APP}/acceptance-specification.toml`,
        '--package',
        `${APP}/acceptance-package.toml`,
        '--root',
        repo.dir,
        '--store',
        `ochre-accepted=${EX}/store/ochre-accepted`,
        '--tree',
        `${commit}=.`,
      ]);
    const r = run();
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^DECISION VALID /m);
    assert.equal(noteOf(r.stdout).length, 1, r.stdout);
    assert.match(
      noteOf(r.stdout)[0]!,
      new RegExp(
        `^NOTE ${APP}/acceptance-package\\.toml: tree checkout: commit ${commit.slice(0, 12)} not present in the repository of --tree \`\\.\`; every file under the subject root \`${EX}/crates/paint-app\` there is an input named by the documents and was checked against its recorded digest over DIR's bytes: 2 files \\(line \\d+\\)$`,
      ),
    );
    // An untracked build script the build would compile is a subject file no document pins.
    repo.write(`${EX}/crates/paint-app/build.rs`, 'fn main() {}\n');
    const extra = run();
    assert.equal(extra.code, 3, extra.stdout);
    assert.match(extra.stdout, /DECISION INDETERMINATE .*no recorded digest that matches: build\.rs;/);
  } finally {
    repo.cleanup();
  }
});

test('the accept gate item: an unverifiable commit is BLOCKED, never PASS; pinned bytes PASS', () => {
  const setup = (trio: Trio) => {
    const repo = tempRepo();
    writeTrio(`${repo.dir}/acc`, trio);
    repo.manifest({ acceptance: [acceptanceItem({ tree: `${FAKE}=acc` })] });
    return repo;
  };
  const item = (r: ReturnType<typeof cli>) => r.json().gate.items.find((i: { id: string }) => i.id === 'accept:slug');
  const loose = setup(validTrio({ ...LASTING, subjectRoot: null }));
  try {
    const r = cli(loose, ['build', '--json']);
    assert.equal(item(r).status, 'BLOCKED', JSON.stringify(item(r)));
    assert.match(
      item(r).reason,
      new RegExp(
        `indeterminate: subject commit ${SHORT} cannot be verified \\(it is not present in the repository of --tree \`\\.\`\\)`,
      ),
    );
    assert.notEqual(r.json().gate.status, 'READY');
  } finally {
    loose.cleanup();
  }
  const tight = setup(validTrio(LASTING));
  try {
    const r = cli(tight, ['build', '--json']);
    assert.equal(item(r).status, 'PASS', JSON.stringify(item(r)));
    assert.equal(r.json().gate.status, 'READY');
  } finally {
    tight.cleanup();
  }
});
