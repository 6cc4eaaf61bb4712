/**
 * Package qualification's pure parts: a catalogue is checked before anything runs (every edit must
 * apply to exactly one place), a mutant is detected only on the checker's own rejection (never on a
 * timeout, a tool error or a missing receipt), and the verdict ranks a survivor above an
 * inconclusive mutant and both below a reference that does not pass.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { InvalidInputError } from '../../../src/errors.js';
import { loadPackage, readPackageDir } from '../../../src/formal/packages.js';
import type { Sandbox } from '../../../src/checkers/container.js';
import { checkCandidates } from '../../../rules/qualify/lib/candidates.js';
import { installedCatalogueDir, mutate, readCatalogue } from '../../../rules/qualify/lib/catalogue.js';
import type { FormalOutcome, Profile, ProfileContext } from '../../../src/formal/types.js';
import { classify, foldQualification, type MutantResult, type MutantRun } from '../../../rules/qualify/lib/report.js';
import { comparePackages, snapshotPackage, statementDigest } from '../../../rules/qualify/lib/snapshot.js';
import { REPO_ROOT, vkit } from '../../_support/repo.js';

const REFERENCE = 'Definition cap_ok (c u a : nat) := Nat.leb (u + a) c.\nDefinition zero := 0.\n';

function catalogueDir(mutants: unknown[], over: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-catalogue-'));
  writeFileSync(join(dir, 'reference.v'), REFERENCE);
  const catalogue = {
    schema: 'vkit.mutation-catalogue/1',
    package: { id: 'vkit.resource-ledger', version: '0.1.0' },
    profile: 'coq-linux-x86_64-v1',
    reference: 'reference.v',
    bindings: { new: 'A.new' },
    mutants,
    ...over,
  };
  writeFileSync(join(dir, 'catalogue.json'), JSON.stringify(catalogue));
  return dir;
}

const edit = (find: string, replace: string) => ({ find, replace });
const mutant = (id: string, ...edits: { find: string; replace: string }[]) => ({
  id,
  binding: 'reserve',
  breaks: 'x',
  edits,
});

function issuesOf(dir: string): { path: string; message: string }[] {
  try {
    readCatalogue(dir);
  } catch (error) {
    assert.ok(error instanceof InvalidInputError, String(error));
    assert.equal(error.exitCode, 2);
    return error.issues;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.fail('Expected the catalogue to be refused');
}

test('a catalogue whose edit cannot apply to exactly one place is invalid (exit 2, naming the field)', () => {
  const ok = catalogueDir([mutant('leb-to-ltb', edit('Nat.leb (u + a) c', 'Nat.ltb (u + a) c'))]);
  const read = readCatalogue(ok);
  assert.equal(read.mutants.length, 1);
  assert.match(read.sha256, /^sha256:[0-9a-f]{64}$/);
  // The identity covers every file of the directory: an edited adequacy proof is another catalogue.
  mkdirSync(join(ok, 'adequacy'));
  writeFileSync(join(ok, 'adequacy', 'Adequacy.v'), 'Theorem t : True. Proof. exact I. Qed.\n');
  const withProof = readCatalogue(ok).sha256;
  assert.notEqual(withProof, read.sha256);
  writeFileSync(join(ok, 'adequacy', 'Adequacy.v'), 'Theorem t : False. Proof. Admitted.\n');
  assert.notEqual(readCatalogue(ok).sha256, withProof);
  rmSync(ok, { recursive: true, force: true });

  const twice = issuesOf(catalogueDir([mutant('twice', edit('Definition', 'Lemma'))]));
  assert.deepEqual(
    twice.map((i) => i.path),
    ['mutants[0].edits[0].find'],
  );
  assert.match(twice[0]!.message, /more than once/);
  const absent = issuesOf(catalogueDir([mutant('absent', edit('Nat.geb', 'Nat.leb'))]));
  assert.match(absent[0]!.message, /does not occur/);
  const noop = issuesOf(catalogueDir([mutant('noop', edit('zero := 0', 'zero := 0'))]));
  assert.equal(noop[0]!.path, 'mutants[0].edits');
  const reserved = issuesOf(catalogueDir([mutant('reference', edit('zero := 0', 'zero := 1'))]));
  assert.equal(reserved[0]!.path, 'mutants[0].id');
  const dup = issuesOf(
    catalogueDir([mutant('a', edit('zero := 0', 'zero := 1')), mutant('a', edit('zero := 0', 'zero := 2'))]),
  );
  assert.equal(dup[0]!.path, 'mutants');
  const unknown = issuesOf(catalogueDir([mutant('a', edit('zero := 0', 'zero := 1'))], { extra: true }));
  assert.equal(unknown[0]!.path, 'extra');
});

test('edits apply in order, each to the text the earlier ones left', () => {
  assert.equal(
    mutate('a b', { edits: [edit('a', 'c'), edit('c b', 'd')] }),
    'd',
    'the second edit sees the first one applied',
  );
  assert.deepEqual(mutate('a b', { edits: [edit('a', 'b'), edit('b', 'c')] }), {
    edit: 1,
    problem: 'The text to replace occurs more than once: make it unique',
  });
});

const run = (over: Partial<MutantRun>): MutantRun => ({
  outcome: 'BLOCKED',
  reason: 'r',
  run: 'run_1',
  receipt: 'sha256:r',
  intact: true,
  rejectedBy: null,
  ...over,
});

test('a mutant is detected only when the checker rejected it; a pass survives; anything else is inconclusive', () => {
  assert.deepEqual(classify(run({ rejectedBy: { kind: 'obligation', name: 'reserve_spec' } })), {
    class: 'detected',
    caught_by: 'obligation reserve_spec',
  });
  assert.deepEqual(classify(run({ outcome: 'PASS' })), { class: 'survivor', caught_by: null });
  // A timeout, a tool error, a cancel: BLOCKED without the checker's rejection decided nothing.
  assert.equal(classify(run({ reason: 'the candidate step timed out' })).class, 'inconclusive');
  assert.equal(classify(run({ outcome: 'FAIL' })).class, 'inconclusive');
  // A rejection without an intact receipt behind it, or without a result at all, stands for nothing.
  assert.equal(classify(run({ intact: false, rejectedBy: { kind: 'obligation', name: 'x' } })).class, 'inconclusive');
  assert.equal(classify(run({ outcome: null, rejectedBy: { kind: 'observation', name: 'x' } })).class, 'inconclusive');
});

const result = (id: string, klass: MutantResult['class'], equivalent?: string): MutantResult => ({
  id,
  binding: 'reserve',
  breaks: 'x',
  edit_sha256: 'sha256:e',
  class: klass,
  caught_by: null,
  reason: 'r',
  run: null,
  receipt: null,
  ...(equivalent ? { equivalent: { reason: equivalent } } : {}),
});
const passing = { status: 'PASS', reason: 'ok', run: 'run_r', receipt: 'sha256:r' } as const;

test('the verdict: reference first, then survivors (FAIL), then inconclusive (BLOCKED); equivalents never fail', () => {
  assert.equal(foldQualification(passing, [result('a', 'detected')]).status, 'PASS');
  const failed = foldQualification(passing, [result('a', 'survivor'), result('b', 'inconclusive')]);
  assert.equal(failed.status, 'FAIL');
  assert.match(failed.reason, /survived.*: a$/);
  assert.equal(foldQualification(passing, [result('a', 'detected'), result('b', 'inconclusive')]).status, 'BLOCKED');
  const marked = foldQualification(passing, [
    result('a', 'detected'),
    result('b', 'survivor', 'same observable behaviour'),
  ]);
  assert.equal(marked.status, 'PASS');
  assert.deepEqual(marked.totals, { mutants: 2, detected: 1, survivors: 0, equivalent: 1, inconclusive: 0 });
  const noReference = foldQualification({ ...passing, status: 'BLOCKED', reason: 'no image' }, [
    result('a', 'detected'),
  ]);
  assert.equal(noReference.status, 'BLOCKED');
  assert.match(noReference.reason, /reference candidate does not pass \(no image\)/);
});

test('statement digests ignore comments and layout, and move with what is stated', () => {
  const a = 'Theorem t : forall n, n + 0 = n.\nProof. auto. Qed.\n';
  const b = '(* why *) Theorem   t :\n  forall n,\n  n + 0 = n.\nProof. lia. Qed.\n';
  const c = 'Theorem t : forall n, 0 + n = n.\nProof. auto. Qed.\n';
  assert.equal(statementDigest(a, 't'), statementDigest(b, 't'), 'comments, layout and proofs do not count');
  assert.notEqual(statementDigest(a, 't'), statementDigest(c, 't'));
  assert.equal(statementDigest(a, 'u'), null);
  assert.equal(statementDigest('Theorem tt : True.', 't'), null, 'a longer name is not the name');
});

test("package comparison: the weak ledger against vkit's own names what changed; equivalence is never claimed", () => {
  const ledger = snapshotPackage(loadPackage('vkit.resource-ledger', '0.1.0'), 'sha256:c1');
  assert.ok(ledger.obligations.length >= 20, String(ledger.obligations.length));
  for (const o of ledger.obligations) assert.match(o.statement_sha256 ?? '', /^sha256:/, `${o.id} has a statement`);
  const weakDir = join(REPO_ROOT, 'test', 'formal', 'fixtures', 'weak-ledger', 'packages', 'resource-ledger-weak');
  const weak = snapshotPackage(readPackageDir(weakDir), null);
  const c = comparePackages(ledger, weak);
  assert.equal(c.semantic_equivalence, 'unknown');
  assert.ok(c.assets.changed.includes('coq/Contracts.v'), JSON.stringify(c.assets));
  assert.ok(c.obligations.changed.includes('contract:release'), JSON.stringify(c.obligations));
  assert.ok(!c.obligations.changed.includes('contract:reserve'), 'an unchanged contract is not reported');
  assert.deepEqual(c.trust.checker, { previous: 'sha256:c1', current: null, changed: true });
  const same = comparePackages(ledger, ledger);
  assert.deepEqual(
    [same.assets, same.obligations],
    [
      { added: [], removed: [], changed: [] },
      { added: [], removed: [], changed: [] },
    ],
  );
});

test('--compare-package with something that is neither a report nor a package is exit 2, before anything runs', () => {
  const r = vkit([
    'formal',
    'qualify',
    '--package',
    'vkit.resource-ledger',
    '--profile',
    'coq-linux-x86_64-v1',
    '--compare-package',
    join(tmpdir(), 'vkit-no-such-report.json'),
  ]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /--compare-package/);
});

test("the Verus catalogue: the Coq catalogue's mutants for the Verus sources, every binding covered", () => {
  const verus = readCatalogue(installedCatalogueDir('vkit.resource-ledger', 'verus-linux-x86_64-v1'));
  const coq = readCatalogue(installedCatalogueDir('vkit.resource-ledger', 'coq-linux-x86_64-v1'));
  assert.equal(verus.profile, 'verus-linux-x86_64-v1');
  assert.ok(verus.reference.endsWith('.rs'));
  const coqIds = new Set(coq.mutants.map((m) => m.id));
  // Same names for the same broken behaviours; the one Coq-only mutant is outside a fixed-M contract,
  // which the Verus client (generic in M) does not have (see the catalogue's README).
  assert.deepEqual(
    verus.mutants.filter((m) => !coqIds.has(m.id)).map((m) => m.id),
    [],
  );
  assert.deepEqual(
    coq.mutants.filter((m) => !verus.mutants.some((v) => v.id === m.id)).map((m) => m.id),
    ['run-commands-empty-trace-beyond-m'],
  );
  for (const b of loadPackage('vkit.resource-ledger', '0.1.0').bindings)
    assert.ok(
      verus.mutants.some((m) => m.binding === b),
      `no mutant of ${b}`,
    );
  // Nothing here was measured: no mutant claims an expected class.
  assert.ok(verus.mutants.every((m) => m.expect === undefined));
});

test('Verus qualification here is BLOCKED naming each missing asset; not one mutant counts as detected', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-qualify-verus-'));
  try {
    const env = Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.startsWith('VKIT_VERUS'))
        .map((k) => [k, '']),
    );
    const r = vkit(
      ['formal', 'qualify', '--package', 'vkit.resource-ledger', '--profile', 'verus-linux-x86_64-v1', '--json'],
      { cwd: dir, env },
    );
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const report = r.json();
    assert.equal(report.status, 'BLOCKED');
    assert.deepEqual(report.totals, { mutants: 16, detected: 0, survivors: 0, equivalent: 0, inconclusive: 16 });
    assert.equal(report.reference.status, 'BLOCKED');
    for (const asset of ['VKIT_VERUS_IMAGE', 'VKIT_VERUS_ARCHIVE', 'VKIT_VERUS_ROOT', 'pin digest not recorded: z3'])
      assert.ok(report.reference.reason.includes(asset), `reference reason names ${asset}: ${report.reference.reason}`);
    for (const m of report.mutants) {
      assert.equal(m.class, 'inconclusive', m.id);
      assert.match(m.reason, /VKIT_VERUS_IMAGE/, m.id);
      assert.match(m.run, /^run_/, m.id);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a represented candidate's contracts (coq/Repr.v) have their own statement digests", () => {
  const pkg = loadPackage('vkit.resource-ledger', '0.1.0');
  const digest = (snap: ReturnType<typeof snapshotPackage>, id: string) =>
    snap.obligations.find((o) => o.id === id)?.statement_sha256;
  const before = snapshotPackage(pkg, null);
  assert.match(digest(before, 'repr:view_of_ledger') ?? '', /^sha256:/);
  assert.notEqual(
    digest(before, 'repr:new_spec'),
    digest(before, 'contract:new'),
    'the view-based statement is another',
  );
  const dir = mkdtempSync(join(tmpdir(), 'vkit-repr-pkg-'));
  try {
    cpSync(pkg.dir, dir, { recursive: true });
    const repr = join(dir, 'coq', 'Repr.v');
    const text = readFileSync(repr, 'utf8');
    const edited = text.replace('view (new cap) = model_new cap', 'view (new (S cap)) = model_new cap');
    assert.notEqual(edited, text);
    writeFileSync(repr, edited);
    const c = comparePackages(before, snapshotPackage(readPackageDir(dir), null));
    assert.deepEqual(c.obligations.changed, ['repr:new_spec']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a qualification's candidates share their package work: made once, seen by all, removed after the last", async () => {
  const dir = catalogueDir([
    mutant('m1', edit('zero := 0', 'zero := 1')),
    mutant('m2', edit('zero := 0', 'zero := 2')),
  ]);
  const made: string[] = [];
  const seen: { id: string; value: string; present: boolean }[] = [];
  // A profile standing in for Coq's: it asks for the shared package work, then fails one candidate
  // by throwing (a crash must not pull the shared directory from under the others).
  const profile = {
    id: 'coq-linux-x86_64-v1',
    method: 'test',
    assurance: 'kernel_proof',
    contracts: ['ledger.source.v1'],
    checker: async () => ({ toolPaths: [], missing: [] }),
    async run(ctx: ProfileContext): Promise<FormalOutcome> {
      const value = await ctx.shared!.once('package', async (shared) => {
        made.push(shared);
        await new Promise((r) => setTimeout(r, 50));
        writeFileSync(join(shared, 'Ledger.vo'), 'compiled');
        return shared;
      });
      if (ctx.component.id === 'm1') throw new Error('m1 crashed');
      await new Promise((r) => setTimeout(r, 100));
      seen.push({ id: ctx.component.id, value, present: existsSync(join(value, 'Ledger.vo')) });
      return {
        outcome: 'PASS',
        claim: 'established',
        reason: 'test',
        assurance: 'kernel_proof',
        method: 'test',
      } as FormalOutcome;
    },
  } as unknown as Profile;
  try {
    await assert.rejects(
      checkCandidates({
        catalogue: readCatalogue(dir),
        pkg: loadPackage('vkit.resource-ledger', '0.1.0'),
        contract: 'ledger.source.v1',
        profile,
        sandbox: undefined as unknown as Sandbox,
        env: {},
        signal: new AbortController().signal,
        containerPrefix: 'vkit-test',
        concurrency: 2,
      }),
      /m1 crashed/,
    );
    assert.equal(made.length, 1, 'the shared work ran once');
    assert.deepEqual(seen.map((s) => s.id).sort(), ['m2', 'reference']);
    for (const s of seen) {
      assert.equal(s.value, made[0], `${s.id} got the one shared result`);
      assert.ok(s.present, `${s.id} still saw the shared directory's files after m1 crashed`);
    }
    assert.equal(existsSync(made[0]!), false, 'the shared directory is removed after the last candidate');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
