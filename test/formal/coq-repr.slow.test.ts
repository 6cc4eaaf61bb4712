/**
 * Represented candidates in the Coq profile, for real (podman + the worker image): the columns example
 * (its state is parallel columns, checked against LEDGER_REPR_API through its view and adapted to
 * LEDGER_API) PASSes through `vkit build`, and a conversion mutant of its catalogue
 * (examples/allocation-columns/qualification) is detected through `vkit formal qualify --catalogue`,
 * named by the obligation that failed. Without podman or the image these skip, naming
 * `npm run setup:system`; under VKIT_REQUIRE_SYSTEM=1 they fail instead.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Qualification } from '../../rules/qualify/lib/report.js';
import { cli } from '../_support/evidence.js';
import { requireSandbox, systemSandbox } from '../_support/podman.js';
import { REPO_ROOT, tempRepo, vkit } from '../_support/repo.js';

const sys = await systemSandbox({ what: 'represented candidates (Coq)' });
const EXAMPLE = join(REPO_ROOT, 'examples', 'allocation-columns');
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

test('the columns example PASSes through vkit build: 28 obligations (the conversion lemma among them)', {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const repo = tempRepo({});
  try {
    cpSync(join(EXAMPLE, 'src'), join(repo.dir, 'src'), { recursive: true });
    cpSync(join(EXAMPLE, 'vkit.manifest.json'), join(repo.dir, 'vkit.manifest.json'));
    repo.commitAll();
    const accept = cli(repo, ['policy', 'accept']);
    assert.equal(accept.code, 0, accept.stdout + accept.stderr);
    repo.commitAll('lock');
    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const b = built.json();
    const action = b.actions.find((a: { label: string }) => a.label === 'formal:allocation-columns');
    assert.equal(action.outcome, 'PASS', action.reason);
    assert.match(action.reason, /coqc checked 28 obligations/);
    assert.equal(b.gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});

test('a conversion mutant (of_ledger drops a record) is detected through vkit formal qualify --catalogue', {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const store = mkdtempSync(join(tmpdir(), 'vkit-repr-qualify-'));
  temps.push(store);
  const picked = ['of-ledger-drops-record', 'binding-conversion-records-only'];
  const r = vkit(
    [
      'formal',
      'qualify',
      '--package',
      'vkit.resource-ledger',
      '--profile',
      'coq-linux-x86_64-v1',
      '--catalogue',
      join(EXAMPLE, 'qualification'),
      ...picked.flatMap((m) => ['--mutant', m]),
      '--jobs',
      '2',
      '--json',
      '--store',
      store,
      '--root',
      store,
    ],
    { timeoutMs: 900_000 },
  );
  assert.equal(r.code, 0, r.stderr || r.stdout);
  const q = r.json() as Qualification;
  assert.equal(q.reference.status, 'PASS', q.reference.reason);
  assert.equal(q.status, 'PASS', q.reason);
  const m = Object.fromEntries(q.mutants.map((x) => [x.id, x]));
  assert.equal(m['of-ledger-drops-record']!.class, 'detected');
  assert.equal(m['binding-conversion-records-only']!.class, 'detected');
  // A proof about the conversion failed in the candidate; the binding mutant fails LEDGER_REPR_API's typing.
  assert.match(
    m['of-ledger-drops-record']!.caught_by!,
    /^obligation of_ledger_spec \(LEDGER_REPR_API\.view_of_ledger\)/,
  );
  assert.match(
    m['binding-conversion-records-only']!.caught_by!,
    /^obligation of_ledger contract \(LEDGER_REPR_API\.view_of_ledger\)/,
  );
});
