/**
 * Package qualification for real: `vkit formal qualify` on a small catalogue of the ledger's known
 * good candidate, run by the Coq profile in the restricted worker (podman + the worker image). Three
 * kinds of edit: one breaks a proof of the candidate's own lemma on the way to a contract (detected,
 * the lemma named), one breaks a contract's proof (detected, the LEDGER_API field named), and one does
 * not typecheck at all (inconclusive: a broken mutant is never counted as detected). Each mutant is
 * its own run, shown by `vkit run show`. The whole catalogue runs in `npm run qualify:ledger`.
 * Without podman or the image these skip, naming `npm run setup:system`; under VKIT_REQUIRE_SYSTEM=1
 * they fail instead.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Qualification } from '../../src/formal/qualify/report.js';
import { REPO_ROOT, vkit } from '../_support/repo.js';
import { requireSandbox, systemSandbox } from '../_support/podman.js';

const sys = await systemSandbox({ what: 'package qualification (Coq)' });
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const edit = (find: string, replace: string) => [{ find, replace }];

function catalogue(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-qualify-cat-'));
  temps.push(dir);
  copyFileSync(join(REPO_ROOT, 'examples', 'allocation', 'src', 'allocation.v'), join(dir, 'reference.v'));
  const bindings = Object.fromEntries(
    ['new', 'reserve', 'release', 'reserve_batch', 'apply_command', 'run_commands'].map((b) => [b, `Allocation.${b}`]),
  );
  const mutants = [
    {
      id: 'reserve-capacity-off-by-one',
      binding: 'reserve',
      breaks: 'reserve rejects a request that fills the capacity exactly',
      edits: edit(
        'else if Nat.ltb (capacity l) (usage l + amount) then (l, Some CapacityExceeded)',
        'else if Nat.leb (capacity l) (usage l + amount) then (l, Some CapacityExceeded)',
      ),
    },
    {
      id: 'new-nonzero-usage',
      binding: 'new',
      breaks: 'new starts with a usage of 1',
      edits: edit('capacity := cap; usage := 0 |}', 'capacity := cap; usage := 1 |}'),
    },
    {
      id: 'new-ill-typed',
      binding: 'new',
      breaks: 'nothing: it does not typecheck',
      edits: edit('capacity := cap; usage := 0 |}', 'capacity := cap; usage := true |}'),
    },
  ];
  const body = {
    schema: 'vkit.mutation-catalogue/1',
    package: { id: 'vkit.resource-ledger', version: '0.1.0' },
    profile: 'coq-linux-x86_64-v1',
    reference: 'reference.v',
    bindings,
    parameters: { max_records: 3, command_count: 4 },
    mutants,
  };
  writeFileSync(join(dir, 'catalogue.json'), JSON.stringify(body, null, 2));
  return dir;
}

test('qualify: each mutant a real Coq run, classified from its receipt; a broken mutant is inconclusive', {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const store = mkdtempSync(join(tmpdir(), 'vkit-qualify-store-'));
  temps.push(store);
  const out = join(store, 'report.json');
  const args = ['formal', 'qualify', '--package', 'vkit.resource-ledger', '--profile', 'coq-linux-x86_64-v1'];
  const r = vkit(
    [...args, '--catalogue', catalogue(), '--store', store, '--root', store, '--jobs', '2', '--json', '--out', out],
    {
      timeoutMs: 600_000,
    },
  );
  assert.equal(r.code, 3, r.stderr || r.stdout);
  const report = r.json() as Qualification;
  assert.equal(report.schema, 'vkit.qualification/1');
  assert.equal(report.reference.status, 'PASS', report.reference.reason);
  const byId = Object.fromEntries(report.mutants.map((m) => [m.id, m]));
  assert.equal(byId['reserve-capacity-off-by-one']!.class, 'detected');
  assert.match(byId['reserve-capacity-off-by-one']!.caught_by!, /^obligation reserve_model/);
  assert.equal(byId['new-nonzero-usage']!.class, 'detected');
  assert.match(byId['new-nonzero-usage']!.caught_by!, /^obligation new_spec \(LEDGER_API\.new_spec\)/);
  assert.equal(byId['new-ill-typed']!.class, 'inconclusive', byId['new-ill-typed']!.reason);
  assert.equal(report.status, 'BLOCKED');
  assert.deepEqual(report.totals, { mutants: 3, detected: 2, survivors: 0, equivalent: 0, inconclusive: 1 });
  assert.match(report.checker_sha256 ?? '', /^sha256:[0-9a-f]{64}$/);
  // Each mutant is its own run in the caller's store, with its receipt and log.
  const shown = vkit(['run', 'show', '--run', byId['new-nonzero-usage']!.run!, '--store', store, '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.json().summary.receipt, byId['new-nonzero-usage']!.receipt);
  // --out holds the same report.
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), report);
});
