/**
 * The protected gate judges a candidate by the target commit's requirements, in a private store:
 * deleting or weakening a failing check on the candidate branch (in the manifest, by adding a
 * `vkit.config.ts` that would take precedence, or in an uncommitted edit of a TS config) never makes
 * it READY; an honest fix does. The private store is never the repository's own.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { formalKind } from '../../rules/formal/index.js';
import { protectedFold } from '../../src/service/protected.js';
import type { ActionReport } from '../../src/engine/schema.js';
import { brokenUnitRepo, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

/** `check:unit` fails while `lib.txt` says `broken`; `check:lint` always passes. Committed on `main`. */
function targetRepo(): { repo: TempRepo; target: string } {
  const repo = brokenUnitRepo();
  const target = repo.commitAll('target');
  repo.git('checkout', '-q', '-b', 'candidate');
  return { repo, target };
}

function privateStore(): string {
  return mkdtempSync(join(tmpdir(), 'vkit-private-'));
}

function protectedGate(repo: TempRepo, store: string, extra: string[] = []) {
  return vkit(['gate', '--protected', '--target', 'main', '--store', store, '--root', repo.dir, '--json', ...extra], {
    cwd: repo.dir,
  });
}

const item = (report: { gate: { items: Array<{ id: string; status: string; reason: string }> } }, id: string) =>
  report.gate.items.find((i) => i.id === id);

test('a candidate that deletes its failing check is READY locally but REJECTED by the protected gate', () => {
  const { repo, target } = targetRepo();
  const store = privateStore();
  try {
    repo.manifest({ checks: [{ id: 'lint', run: nodeCheck('0'), inputs: ['README.md'] }] });
    const candidate = repo.commitAll('drop the failing check');
    // The local gate judges the candidate by its own (weakened) config.
    const local = vkit(['build', '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir });
    assert.equal(local.code, 0, local.stdout + local.stderr);

    const r = protectedGate(repo, store);
    assert.equal(r.code, 1, r.stderr);
    const report = r.json();
    assert.equal(report.schema, 'vkit.protected-gate/1');
    assert.equal(report.gate.status, 'REJECTED');
    assert.equal(item(report, 'check:unit')?.status, 'FAIL');
    assert.equal(report.target.commit, target, 'the report names the target commit');
    assert.equal(report.candidate.commit, candidate, 'and the candidate commit');
    assert.equal(report.candidate.kind, 'git_commit');
    assert.ok(report.store.startsWith(store), 'runs land in the private store');
    // Neither the repository's store nor the local receipts were used: every action ran here.
    assert.deepEqual(report.actions.map((a: { status: string }) => a.status).sort(), ['failed', 'ran']);

    const text = vkit(['gate', '--protected', '--target', 'main', '--store', store, '--root', repo.dir], {
      cwd: repo.dir,
    });
    assert.equal(text.code, 1);
    assert.match(text.stdout, new RegExp(`target ${target}`));
    assert.match(text.stdout, new RegExp(`candidate: commit ${candidate}`));
  } finally {
    repo.cleanup();
    rmSync(store, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test('weakening the failing check (expect, a vkit.config.ts taking precedence) stays REJECTED; deleting its input is BLOCKED', () => {
  const { repo } = targetRepo();
  const store = privateStore();
  try {
    repo.manifest({
      checks: [
        {
          id: 'unit',
          run: nodeCheck("process.exit(require('fs').readFileSync('lib.txt','utf8').includes('broken') ? 1 : 0)"),
          inputs: ['lib.txt'],
          expect: { exit_code: 1 },
        },
        { id: 'lint', run: nodeCheck('0'), inputs: ['README.md'] },
      ],
    });
    repo.commitAll('expect the failure');
    let r = protectedGate(repo, store);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(item(r.json(), 'check:unit')?.status, 'FAIL');

    // vkit.config.ts is found before vkit.manifest.json: a candidate adding one must not take over.
    repo.write(
      'vkit.config.ts',
      "import { defineConfig } from 'vkit';\nexport default defineConfig({ checks: [{ id: 'lint', run: ['node', '-e', '0'], inputs: ['README.md'] }] });\n",
    );
    repo.commitAll('a config that takes precedence');
    r = protectedGate(repo, store);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json().gate.status, 'REJECTED');
    assert.deepEqual(r.json().target.config, ['vkit.manifest.json']);

    repo.git('rm', '-q', 'lib.txt');
    repo.commitAll('delete the input');
    r = protectedGate(repo, store);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.json().gate.status, 'BLOCKED');
    assert.match(item(r.json(), 'check:unit')?.reason ?? '', /lib\.txt/);
  } finally {
    repo.cleanup();
    rmSync(store, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test("an honest candidate is READY; the working tree of a TS-config target is judged by the target's bytes", () => {
  const repo = tempRepo({ 'lib.txt': 'broken\n' });
  const store = privateStore();
  try {
    const config = (checks: string) =>
      `import { defineConfig } from 'vkit';\nexport default defineConfig({ checks: [${checks}] });\n`;
    const unit = `{ id: 'unit', run: ['node', '-e', "process.exit(require('fs').readFileSync('lib.txt','utf8').includes('broken') ? 1 : 0)"], inputs: ['lib.txt'] }`;
    repo.write('vkit.config.ts', config(unit));
    repo.commitAll('target');
    // An uncommitted edit drops the check: a working-tree candidate still answers to the target.
    repo.write('vkit.config.ts', config(''));
    let r = protectedGate(repo, store, ['--working-tree']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json().candidate.kind, 'working_tree');
    assert.equal(r.json().candidate.provisional, true);
    assert.equal(item(r.json(), 'check:unit')?.status, 'FAIL');

    repo.write('lib.txt', 'fixed\n');
    r = protectedGate(repo, store, ['--working-tree']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.json().gate.status, 'READY');

    repo.write('vkit.config.ts', config(unit));
    const fixed = repo.commitAll('fix');
    r = protectedGate(repo, store, ['--candidate', fixed]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.json().candidate.commit, fixed);
  } finally {
    repo.cleanup();
    rmSync(store, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test("the private store: required, never the repository's own store, never inside the work tree (exit 2)", () => {
  const { repo } = targetRepo();
  const spare = privateStore();
  try {
    for (const [store, why] of [
      [storeDir(repo), /own store/],
      [join(repo.dir, '.git'), /git directory/],
      [join(repo.dir, 'evidence'), /work tree/],
    ] as const) {
      const r = protectedGate(repo, store);
      assert.equal(r.code, 2, `${store}: ${r.stderr}`);
      assert.equal(r.json().error.code, 'ERR_PROTECTED_STORE');
      assert.match(r.stderr, why);
    }
    assert.ok(!existsSync(join(repo.dir, 'evidence')), 'a refused store is not created');
    const none = vkit(['gate', '--protected', '--target', 'main', '--root', repo.dir], { cwd: repo.dir });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--store DIR/);
    const badTarget = protectedGate(repo, spare, ['--target', 'no-such-branch']);
    assert.equal(badTarget.code, 2);
    const both = protectedGate(repo, spare, ['--candidate', 'HEAD', '--working-tree']);
    assert.equal(both.code, 2);
    const stray = vkit(['gate', '--target', 'main', '--root', repo.dir], { cwd: repo.dir });
    assert.equal(stray.code, 2, 'protected flags without --protected are a usage error');
  } finally {
    repo.cleanup();
    rmSync(spare, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test('--reuse reuses passing evidence only under the same target authority', () => {
  const { repo } = targetRepo();
  const store = privateStore();
  try {
    repo.write('lib.txt', 'fixed\n');
    repo.commitAll('fix');
    const first = protectedGate(repo, store, ['--reuse']);
    assert.equal(first.code, 0, first.stderr);
    assert.ok(first.json().actions.every((a: { status: string }) => a.status === 'ran'));
    const again = protectedGate(repo, store, ['--reuse']);
    assert.equal(again.code, 0);
    assert.ok(
      again.json().actions.every((a: { status: string }) => a.status === 'cached'),
      'same authority: reused',
    );
    const fresh = protectedGate(repo, store);
    assert.ok(
      fresh.json().actions.every((a: { status: string }) => a.status === 'ran'),
      'without --reuse everything runs afresh',
    );

    // Another target with other requirements (a longer timeout on lint): same action keys for unit,
    // but a different authority, so nothing is reused from the first one.
    repo.git('checkout', '-q', 'main');
    repo.manifest({
      checks: [
        {
          id: 'unit',
          run: nodeCheck("process.exit(require('fs').readFileSync('lib.txt','utf8').includes('broken') ? 1 : 0)"),
          inputs: ['lib.txt'],
        },
        { id: 'lint', run: nodeCheck('0'), inputs: ['README.md'], timeout_s: 30 },
      ],
    });
    repo.commitAll('target 2');
    repo.git('checkout', '-q', 'candidate');
    const other = protectedGate(repo, store, ['--reuse']);
    assert.equal(other.code, 0, other.stderr);
    const o = other.json();
    assert.notEqual(o.target.authority, first.json().target.authority);
    assert.notEqual(o.store, first.json().store);
    assert.ok(
      o.actions.every((a: { status: string }) => a.status === 'ran'),
      'a different target authority reuses nothing',
    );
    assert.deepEqual(readdirSync(join(store, 'targets')).length, 2);
  } finally {
    repo.cleanup();
    rmSync(store, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test("protectedFold: only this invocation's evidence counts; provisional formal evidence never does", () => {
  const action = (label: string, receipt: string | null, reason: string | null = null): ActionReport => ({
    label,
    kind: 'check',
    key: null,
    status: receipt ? 'ran' : 'blocked',
    outcome: receipt ? 'PASS' : 'BLOCKED',
    reason,
    run: null,
    receipt,
    ms: 0,
  });
  const pass = (id: string, receipt: string) => ({
    id,
    required: true,
    status: 'PASS' as const,
    reason: 'passed',
    run: 'run_x',
    receipt,
  });
  // A fresh run was BLOCKED, and the gate pass found an older PASS for the same key: not READY.
  const older = protectedFold(
    [pass('check:a', 'sha256:old')],
    [action('check:a', null, 'inputs no longer match the job')],
  );
  assert.equal(older.status, 'BLOCKED');
  assert.match(older.items[0]!.reason, /no evidence from this protected run: inputs no longer match/);
  assert.equal(protectedFold([pass('check:a', 'sha256:new')], [action('check:a', 'sha256:new')]).status, 'READY');
  // A PASS of this run still faces its kind's rule: the formal kind refuses a working-tree candidate's.
  const formalJudge = (provisional: boolean) => () =>
    formalKind.protectedProblem!(
      { formal: { source: { kind: 'protected-copy', of: 'git-commit', commit: 'c'.repeat(40) }, provisional: false } },
      provisional,
    );
  const formal = protectedFold([pass('formal:f', 'sha256:f')], [action('formal:f', 'sha256:f')], formalJudge(true));
  assert.equal(formal.status, 'BLOCKED');
  assert.match(formal.items[0]!.reason, /provisional/);
  assert.equal(
    protectedFold([pass('formal:f', 'sha256:f')], [action('formal:f', 'sha256:f')], formalJudge(false)).status,
    'READY',
  );
});
