/**
 * The `verify` rule and formal captures. Captures: raw bytes of exactly the declared inputs;
 * secret-looking paths, symlinks, special files and empty globs refused by name; a commit capture
 * that dirty edits cannot reach; materialisation readable by uid 65534. The rule: no engine ->
 * BLOCKED naming the socket; a refused input -> BLOCKED naming it. End to end with real podman and
 * the Coq profile: policy accept, PASS with obligations in the receipt, a checker or policy change
 * BLOCKED until accepted again, and a git-commit request judged on the commit's failing candidate
 * while the working tree holds the passing one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { captureFormal, markProtectedCopy, materialise, PROTECTED_MARKER } from '../../src/formal/capture.js';
import { parseLock, lockText } from '../../src/formal/lock.js';
import { cli } from '../_support/evidence.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';
import { systemSandbox } from '../_support/podman.js';
import { DEAD_SOCKET, LEDGER, ledgerComponent, ledgerRepo, writeAcceptedLock } from './_formal.js';

const refusal = (path: string, what: RegExp) => (e: Error & { code?: string }) =>
  e.code === 'ERR_CAPTURE_REFUSED' && e.message.includes(`\`${path}\``) && what.test(e.message);

test('formal capture refuses secret-looking paths, symlinks, special files and globs selecting nothing, naming each', async () => {
  const repo = tempRepo({ 'src/a.v': 'A\n', 'src/server.key': 'not a real key\n', 'lib/b.v': 'B\n' });
  try {
    await assert.rejects(
      captureFormal(repo.dir, ['src/**'], { kind: 'working-tree' }),
      refusal('src/server.key', /secret-looking/),
    );
    rmSync(join(repo.dir, 'src/server.key'));
    symlinkSync('../lib/b.v', join(repo.dir, 'src/link.v'));
    await assert.rejects(
      captureFormal(repo.dir, ['src/**'], { kind: 'working-tree' }),
      refusal('src/link.v', /symlinks/),
    );
    rmSync(join(repo.dir, 'src/link.v'));
    execFileSync('mkfifo', [join(repo.dir, 'src/pipe.v')]);
    await assert.rejects(
      captureFormal(repo.dir, ['src/**'], { kind: 'working-tree' }),
      refusal('src/pipe.v', /special files/),
    );
    rmSync(join(repo.dir, 'src/pipe.v'));
    await assert.rejects(
      captureFormal(repo.dir, ['src/**', 'spec/**'], { kind: 'working-tree' }),
      /`spec\/\*\*` selects no file/,
    );
    const ok = await captureFormal(repo.dir, ['src/**', 'lib/b.v'], { kind: 'working-tree' });
    assert.deepEqual(
      ok.files.map((f) => f.path),
      ['lib/b.v', 'src/a.v'],
    );
    assert.equal(ok.provisional, true);
  } finally {
    repo.cleanup();
  }
});

test('formal capture keeps raw bytes (CRLF is not normalised) and a commit capture ignores dirty edits', async () => {
  const repo = tempRepo({ 'src/a.v': 'Lemma x : True.\r\n', 'src/b.v': 'B\n', 'other.txt': 'o\n' });
  try {
    const commit = repo.commitAll();
    const crlf = await captureFormal(repo.dir, ['src/**'], { kind: 'working-tree' });
    repo.write('src/a.v', 'Lemma x : True.\n');
    const lf = await captureFormal(repo.dir, ['src/**'], { kind: 'working-tree' });
    assert.notEqual(crlf.digest, lf.digest, 'CRLF and LF bytes are different captures');
    repo.write('src/b.v', 'edited, not committed\n');
    const fromCommit = await captureFormal(repo.dir, ['src/**'], { kind: 'git-commit', commit });
    assert.equal(fromCommit.digest, crlf.digest, 'the commit capture is the committed bytes');
    assert.equal(fromCommit.provisional, false);
    assert.equal(fromCommit.bytes.get('src/b.v')!.toString(), 'B\n');
    assert.deepEqual(
      fromCommit.files.map((f) => f.path),
      ['src/a.v', 'src/b.v'],
      'only the declared inputs',
    );
    const dir = materialise(fromCommit);
    try {
      assert.equal(readFileSync(join(dir, 'src/a.v'), 'utf8'), 'Lemma x : True.\r\n');
      assert.equal(statSync(join(dir, 'src/a.v')).mode & 0o777, 0o644);
      assert.equal(statSync(join(dir, 'src')).mode & 0o777, 0o755);
      assert.equal(statSync(dir).mode & 0o777, 0o755);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    repo.cleanup();
  }
});

test('formal capture of a directory without git: walked (root .git/.vkit skipped), links, special files and secrets refused; provisional unless vkit marked it as its copy of a commit', async () => {
  const plain = tempRepo(
    { 'src/a.v': 'A\r\n', 'src/sub/b.v': 'B\n', '.vkit/src/x.v': 'store\n', 'other.txt': 'o\n' },
    { git: false },
  );
  try {
    await assert.rejects(
      captureFormal(plain.dir, ['src/**', '**/x.v'], { kind: 'working-tree' }),
      /`\*\*\/x\.v` selects no file/,
      'the root .vkit is never listed',
    );
    const walked = await captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' });
    assert.deepEqual(
      walked.files.map((f) => f.path),
      ['src/a.v', 'src/sub/b.v'],
    );
    assert.equal(walked.bytes.get('src/a.v')!.toString(), 'A\r\n', 'raw bytes');
    assert.deepEqual(walked.source, { kind: 'working-tree' });
    assert.equal(walked.provisional, true, 'an unmarked plain directory is provisional');
    symlinkSync('sub/b.v', join(plain.dir, 'src/link.v'));
    await assert.rejects(
      captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' }),
      refusal('src/link.v', /symlinks/),
    );
    rmSync(join(plain.dir, 'src/link.v'));
    execFileSync('mkfifo', [join(plain.dir, 'src/pipe.v')]);
    await assert.rejects(
      captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' }),
      refusal('src/pipe.v', /special files/),
    );
    rmSync(join(plain.dir, 'src/pipe.v'));
    plain.write('src/id_rsa', 'not a key\n');
    await assert.rejects(
      captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' }),
      refusal('src/id_rsa', /secret-looking/),
    );
    rmSync(join(plain.dir, 'src/id_rsa'));

    // The protected gate's marker: its copy of a commit is not provisional and says which commit;
    // a copy of a working tree stays provisional. The marker replaces whatever .vkit held.
    const commit = 'c'.repeat(40);
    markProtectedCopy(plain.dir, { kind: 'protected-copy', of: 'git-commit', commit });
    assert.equal(existsSync(join(plain.dir, '.vkit/src/x.v')), false, "the candidate's own .vkit is removed");
    const copy = await captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' });
    assert.deepEqual(copy.source, { kind: 'protected-copy', of: 'git-commit', commit });
    assert.equal(copy.provisional, false);
    assert.equal(copy.digest, walked.digest, 'the marker is not part of the capture');
    markProtectedCopy(plain.dir, { kind: 'protected-copy', of: 'working-tree', commit: null });
    const tree = await captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' });
    assert.deepEqual(tree.source, { kind: 'protected-copy', of: 'working-tree', commit: null });
    assert.equal(tree.provisional, true);
    // A marker vkit did not write in its format is refused, never guessed.
    plain.write(
      PROTECTED_MARKER,
      JSON.stringify({ schema: 'vkit.protected-candidate/1', of: 'git-commit', commit: 'HEAD' }),
    );
    await assert.rejects(
      captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' }),
      refusal(PROTECTED_MARKER, /malformed/),
    );
    plain.write(PROTECTED_MARKER, 'null');
    await assert.rejects(
      captureFormal(plain.dir, ['src/**'], { kind: 'working-tree' }),
      refusal(PROTECTED_MARKER, /malformed/),
    );
  } finally {
    plain.cleanup();
  }
  // Inside a git checkout a marker means nothing (anyone can write one): still provisional.
  const repo = tempRepo({ 'src/a.v': 'A\n' });
  try {
    repo.write(
      PROTECTED_MARKER,
      JSON.stringify({ schema: 'vkit.protected-candidate/1', of: 'git-commit', commit: 'c'.repeat(40) }),
    );
    const inGit = await captureFormal(repo.dir, ['src/**'], { kind: 'working-tree' });
    assert.deepEqual(inGit.source, { kind: 'working-tree' });
    assert.equal(inGit.provisional, true);
  } finally {
    repo.cleanup();
  }
});

const coqComponent = (over: Record<string, unknown> = {}) =>
  ledgerComponent({
    profile: 'coq-linux-x86_64-v1',
    parameters: { max_records: 3, command_count: 2 },
    bindings: Object.fromEntries(LEDGER.bindings.map((b) => [b, `Allocation.${b}`])),
    ...over,
  });

const item = (r: ReturnType<typeof cli>) => {
  assert.ok(r.stdout.trim(), `exit ${r.code}, no output: ${r.stderr}`);
  return r.json().gate.items.find((i: { id: string }) => i.id === 'formal:allocation');
};

test('no engine answering: the accepted component is BLOCKED naming the socket; a required component blocks the gate', async () => {
  const repo = ledgerRepo(coqComponent());
  try {
    await writeAcceptedLock(repo);
    const r = cli(repo, ['verify', '--check', 'formal:allocation', '--json'], { VKIT_CONTAINER_SOCKET: DEAD_SOCKET });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.json().action.outcome, 'BLOCKED');
    assert.match(r.json().action.reason, /vkit-test-no-engine\.sock/);
    const g = cli(repo, ['gate', '--json']);
    assert.equal(g.json().status, 'BLOCKED');
    assert.equal(g.json().items.find((i: { id: string }) => i.id === 'formal:allocation').required, true);
  } finally {
    repo.cleanup();
  }
});

test('a symlink among the inputs makes the item BLOCKED naming it (the engine selector alone would hash it)', async () => {
  const repo = ledgerRepo(coqComponent(), { 'lib/x.v': 'X\n' });
  try {
    symlinkSync('../lib/x.v', join(repo.dir, 'src/x.v'));
    await writeAcceptedLock(repo);
    const r = cli(repo, ['build', '--json'], { VKIT_CONTAINER_SOCKET: DEAD_SOCKET });
    assert.equal(item(r).status, 'BLOCKED');
    assert.match(item(r).reason, /symlinks: `src\/x\.v`/);
  } finally {
    repo.cleanup();
  }
});

const sys = await systemSandbox({ what: 'formal end-to-end tests (podman + the Coq worker image)' });

test('end to end (podman, Coq): accept, PASS with obligations; checker and policy changes BLOCKED until accepted again; a commit request ignores dirty edits', {
  skip: sys.skip,
  timeout: 600_000,
}, async () => {
  if (sys.problem) throw new Error(`Expected podman and the worker image (VKIT_REQUIRE_SYSTEM=1): ${sys.problem}`);
  const passing = readFileSync(join(REPO_ROOT, 'examples/allocation/src/allocation.v'), 'utf8');
  const failing = readFileSync(join(REPO_ROOT, 'examples/allocation/failing/src/allocation.v'), 'utf8');
  const repo = ledgerRepo(coqComponent(), { 'src/allocation.v': passing });
  try {
    const accept = cli(repo, ['policy', 'accept', '--json']);
    assert.equal(accept.code, 0, accept.stdout + accept.stderr);
    const entry = parseLock(readFileSync(join(repo.dir, 'vkit.lock.json'), 'utf8')).components.allocation!;
    assert.equal(entry.package_sha256, LEDGER.sha256);
    assert.equal(
      cli(repo, ['policy', 'accept', '--json']).json().accepted[0].changed,
      false,
      'accepting again changes nothing',
    );

    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 0, JSON.stringify(item(built)));
    assert.equal(item(built).status, 'PASS');
    assert.equal(item(built).assurance, 'kernel_proof');
    const shown = cli(repo, [
      'run',
      'show',
      '--run',
      item(built).run,
      '--section',
      'obligations',
      '--section',
      'provenance',
      '--section',
      'coverage',
      '--json',
    ]).json();
    assert.ok(shown.obligations.items.length > 0 && shown.obligations.failed === 0);
    assert.equal(shown.summary.obligations.total, shown.obligations.total);
    assert.equal(shown.provenance.identities.checker_sha256, entry.checker_sha256);
    assert.ok(shown.provenance.logical_trust, 'provenance carries logical_trust');
    assert.ok(Array.isArray(shown.coverage.bindings));

    // The accepted checker digest no longer matches the worker image's tool tree.
    repo.write(
      'vkit.lock.json',
      lockText({
        schema: 'vkit.lock/1',
        components: { allocation: { ...entry, checker_sha256: `sha256:${'a'.repeat(64)}` } },
      }),
    );
    const checker = cli(repo, ['build', '--json']);
    assert.equal(item(checker).status, 'BLOCKED');
    assert.match(item(checker).reason, /renewed acceptance required \(checker digest changed\)/);

    // A policy change blocks until accepted again; accepting lifts it.
    repo.manifest({
      checks: [{ id: 'ok', run: ['node', '-e', '0'], inputs: ['a.txt'] }],
      formal: { components: [coqComponent({ parameters: { max_records: 3, command_count: 3 } })] },
    });
    const changed = cli(repo, ['build', '--json']);
    assert.match(item(changed).reason, /renewed acceptance required \(policy slice changed/);
    assert.equal(cli(repo, ['policy', 'accept']).code, 0);
    const reaccepted = cli(repo, ['build', '--json']);
    assert.equal(item(reaccepted).status, 'PASS', item(reaccepted).reason);

    // Commit the failing candidate, then put the passing one back in the working tree (dirty): a
    // git-commit request is judged on the commit's bytes, a working-tree request on the checkout's.
    repo.write('src/allocation.v', failing);
    const commit = repo.commitAll('failing candidate');
    repo.write('src/allocation.v', passing);
    const lock = parseLock(readFileSync(join(repo.dir, 'vkit.lock.json'), 'utf8')).components.allocation!;
    const claim = {
      kind: 'package',
      component: 'allocation',
      policy_sha256: lock.policy_sha256,
      package_sha256: lock.package_sha256,
    };
    repo.write('req.json', JSON.stringify({ schema_version: 2, claim, source: { kind: 'git-commit', commit } }));
    const onCommit = cli(repo, ['verify', '--request', 'req.json', '--json']);
    assert.equal(onCommit.json().action.outcome, 'BLOCKED', onCommit.stdout);
    assert.match(onCommit.json().action.reason, /reserve/);
    assert.equal(onCommit.code, 3);
    repo.write('req.json', JSON.stringify({ schema_version: 2, claim, source: { kind: 'working-tree' }, reuse: true }));
    const onTree = cli(repo, ['verify', '--request', 'req.json', '--json']);
    assert.equal(onTree.code, 0, onTree.stdout);
    assert.equal(
      onTree.json().action.status,
      'cached',
      'reuse returns the intact passing evidence of the identical job',
    );
  } finally {
    repo.cleanup();
  }
});
