/**
 * Formal components under the protected gate, for real (podman + the Coq worker image): the target
 * commit declares examples/allocation's component with an accepted lock; candidates are judged in
 * vkit's plain (.git-less) copy by the TARGET's declaration and lock. An honest commit is READY with
 * a kernel proof recorded as non-provisional evidence of that commit; the failing candidate is
 * BLOCKED naming the failing obligation, also when it weakens its own config and edits the lock; a
 * candidate lock that would block changes nothing either; a working-tree candidate's formal PASS is
 * BLOCKED as provisional, by the mode and by what its receipt records.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ActionReport } from '../../src/engine/schema.js';
import { lockText, parseLock } from '../../src/formal/lock.js';
import { formalKind } from '../../rules/formal/index.js';
import { protectedFold } from '../../src/service/protected.js';
import { Store } from '../../src/store/store.js';
import { cli } from '../_support/evidence.js';
import { systemSandbox } from '../_support/podman.js';
import { nodeCheck, REPO_ROOT, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

const sys = await systemSandbox({ what: 'protected-gate formal tests (podman + the Coq worker image)' });

const example = (rel: string) => readFileSync(join(REPO_ROOT, 'examples/allocation', rel), 'utf8');
const PASSING = example('src/allocation.v');
const FAILING = example('failing/src/allocation.v');

type Report = {
  gate: { status: string; items: Item[] };
  actions: Array<{ label: string; outcome: string; reason: string | null }>;
  target: { commit: string; lock_sha256: string | null };
  candidate: { kind: string; commit: string | null; provisional: boolean };
  store: string;
};
type Item = { id: string; status: string; reason: string; receipt?: string | null; assurance?: string };

/** The example's manifest plus one always-passing check, so a candidate that un-requires the component would otherwise be READY. */
function manifest(over: Record<string, unknown> = {}) {
  const m = JSON.parse(example('vkit.manifest.json')) as { formal: { components: Array<Record<string, unknown>> } };
  return {
    checks: [{ id: 'docs', run: nodeCheck('0'), inputs: ['README.md'] }],
    formal: { components: [{ ...m.formal.components[0], ...over }] },
  };
}

function protectedGate(
  repo: TempRepo,
  store: string,
  extra: string[],
): { code: number | null; report: Report; text: string } {
  const r = vkit(
    ['gate', '--protected', '--target', 'main', '--store', store, '--root', repo.dir, '--json', ...extra],
    { cwd: repo.dir },
  );
  assert.ok(r.stdout.trim(), `exit ${r.code}, no report: ${r.stderr}`);
  return { code: r.code, report: r.json() as Report, text: r.stdout };
}

const formalItem = (report: Report) => report.gate.items.find((i) => i.id === 'formal:allocation')!;

/** What the receipt itself records about the formal capture (read from the private store). */
function recordedFormal(report: Report): { source: Record<string, unknown>; provisional: unknown } {
  const receipt = formalItem(report).receipt;
  assert.ok(receipt, 'the formal item names its receipt');
  const store = new Store(report.store);
  try {
    const read = store.actions.readReceipt(receipt);
    assert.equal(read.state, 'intact');
    const { source, provisional } = (
      read.receipt as { subject: { formal: { source: Record<string, unknown>; provisional: unknown } } }
    ).subject.formal;
    return { source, provisional };
  } finally {
    store.close();
  }
}

test("protected gate with a formal component: judged in vkit's copy by the target's declaration and lock; working-tree formal evidence stays provisional", {
  skip: sys.skip,
  timeout: 600_000,
}, async () => {
  if (sys.problem) throw new Error(`Expected podman and the worker image (VKIT_REQUIRE_SYSTEM=1): ${sys.problem}`);
  const repo = tempRepo({ 'src/allocation.v': PASSING, 'README.md': 'allocation\n' });
  const store = mkdtempSync(join(tmpdir(), 'vkit-private-'));
  try {
    repo.manifest(manifest());
    const accept = cli(repo, ['policy', 'accept', '--json']);
    assert.equal(accept.code, 0, accept.stdout + accept.stderr);
    const targetLock = readFileSync(join(repo.dir, 'vkit.lock.json'));
    const target = repo.commitAll('target: allocation accepted');
    repo.git('checkout', '-q', '-b', 'candidate');

    // 1. An honest candidate commit: READY, with a kernel proof of that commit's bytes.
    repo.write('README.md', 'allocation, documented\n');
    const honest = repo.commitAll('honest change');
    const ok = protectedGate(repo, store, ['--candidate', honest]);
    assert.equal(ok.report.gate.status, 'READY', ok.text);
    assert.equal(ok.code, 0);
    assert.equal(formalItem(ok.report).status, 'PASS');
    assert.equal(formalItem(ok.report).assurance, 'kernel_proof');
    assert.equal(ok.report.target.commit, target);
    assert.equal(
      ok.report.target.lock_sha256,
      `sha256:${createHash('sha256').update(targetLock).digest('hex')}`,
      "the target's lock is the authority",
    );
    assert.deepEqual(
      recordedFormal(ok.report),
      { source: { kind: 'protected-copy', of: 'git-commit', commit: honest }, provisional: false },
      "the receipt records vkit's copy of the candidate commit, not provisional",
    );

    // 2. A candidate lock that would block (a checker digest nobody accepted) changes nothing: the
    //    target's lock is used. With --reuse, the identical job (same captured bytes, same target
    //    lock in its key) reuses the honest commit's evidence; the candidate's lock in the key
    //    would have forced a fresh run, BLOCKED for renewed acceptance.
    const entry = parseLock(targetLock.toString('utf8')).components.allocation!;
    repo.write(
      'vkit.lock.json',
      lockText({
        schema: 'vkit.lock/1',
        components: { allocation: { ...entry, checker_sha256: `sha256:${'a'.repeat(64)}` } },
      }),
    );
    const lockEdit = repo.commitAll('edit the lock');
    const stillOk = protectedGate(repo, store, ['--candidate', lockEdit, '--reuse']);
    assert.equal(
      formalItem(stillOk.report).status,
      'PASS',
      `the candidate's lock must not be read: ${formalItem(stillOk.report).reason}`,
    );
    assert.equal(stillOk.report.gate.status, 'READY');
    assert.equal(
      formalItem(stillOk.report).receipt,
      formalItem(ok.report).receipt,
      "the honest commit's evidence, reused",
    );

    // 3. The failing candidate (reserve breaks its contract): BLOCKED naming the failing obligation.
    repo.write('vkit.lock.json', targetLock);
    repo.write('src/allocation.v', FAILING);
    const failing = repo.commitAll('failing candidate');
    const bad = protectedGate(repo, store, ['--candidate', failing]);
    assert.equal(bad.report.gate.status, 'BLOCKED', bad.text);
    assert.equal(bad.code, 3);
    assert.equal(formalItem(bad.report).status, 'BLOCKED');
    assert.match(formalItem(bad.report).reason, /reserve/);

    // 4. The failing candidate also weakens its own declaration (not required, different inputs)
    //    and re-accepts it in its lock: the target's declaration and lock are what run.
    repo.manifest(manifest({ required: false, inputs: ['src/allocation.v', 'README.md'] }));
    assert.equal(cli(repo, ['policy', 'accept']).code, 0, 'the candidate re-accepts its weakened slice');
    assert.notDeepEqual(
      readFileSync(join(repo.dir, 'vkit.lock.json')),
      targetLock,
      "the candidate's lock really differs",
    );
    const weakened = repo.commitAll('weaken the component and re-accept');
    const judged = protectedGate(repo, store, ['--candidate', weakened]);
    assert.equal(judged.report.gate.status, 'BLOCKED', judged.text);
    assert.equal(formalItem(judged.report).status, 'BLOCKED');
    assert.match(formalItem(judged.report).reason, /reserve/);

    // 5. --working-tree: the checkout holds the passing source (uncommitted): the check passes, but
    //    the evidence is provisional, recorded so in the receipt, and the gate does not accept it.
    repo.git('checkout', '-q', honest);
    repo.write('src/allocation.v', `${PASSING}\n(* uncommitted *)\n`);
    const tree = protectedGate(repo, store, ['--working-tree']);
    assert.equal(tree.report.candidate.provisional, true);
    assert.equal(tree.report.actions.find((a) => a.label === 'formal:allocation')?.outcome, 'PASS', 'it would pass');
    assert.equal(formalItem(tree.report).status, 'BLOCKED');
    assert.match(formalItem(tree.report).reason, /provisional/);
    assert.equal(tree.report.gate.status, 'BLOCKED');
    assert.deepEqual(recordedFormal(tree.report), {
      source: { kind: 'protected-copy', of: 'working-tree', commit: honest },
      provisional: true,
    });
  } finally {
    rmSync(store, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    repo.cleanup();
  }
});

test('the formal kind judges a protected PASS by what its receipt records, whatever the candidate mode says', () => {
  const action: ActionReport = {
    label: 'formal:f',
    kind: 'formal-check',
    key: null,
    status: 'ran',
    outcome: 'PASS',
    reason: null,
    run: 'run_f',
    receipt: 'sha256:f',
    ms: 0,
  };
  const items = [
    { id: 'formal:f', required: true, status: 'PASS' as const, reason: 'passed', run: 'run_f', receipt: 'sha256:f' },
  ];
  type FormalEvidence = { source: Record<string, unknown>; provisional: boolean | undefined };
  // What the receipt records (`subject.formal`), judged by the kind with a commit-mode candidate.
  const fold = (evidence: FormalEvidence | undefined) =>
    protectedFold(items, [action], () => formalKind.protectedProblem!(evidence && { formal: evidence }, false));
  const commit = 'c'.repeat(40);
  assert.equal(
    fold({ source: { kind: 'protected-copy', of: 'git-commit', commit }, provisional: false }).status,
    'READY',
  );
  // A commit-mode run whose receipt records a provisional capture (a working-tree copy, a plain
  // checkout, or a git checkout) is not accepted; nor is a receipt that records nothing.
  const refused: Array<[FormalEvidence | undefined, RegExp]> = [
    [{ source: { kind: 'protected-copy', of: 'working-tree', commit }, provisional: true }, /provisional/],
    [{ source: { kind: 'working-tree' }, provisional: true }, /provisional/],
    [{ source: { kind: 'protected-copy', of: 'git-commit', commit }, provisional: undefined }, /provisional/],
    [
      { source: { kind: 'git-commit', commit }, provisional: false },
      /not captured from vkit's own copy of a candidate commit/,
    ],
    [undefined, /does not record its capture source/],
  ];
  for (const [evidence, reason] of refused) {
    const gate = fold(evidence);
    assert.equal(gate.status, 'BLOCKED', JSON.stringify(evidence));
    assert.match(gate.items[0]!.reason, reason);
  }
});
