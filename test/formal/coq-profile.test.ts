/**
 * The Coq profile end to end through the real sandbox (podman + the worker image) and the real
 * coqc/ocamlopt inside it: `coqProfile.run` on a materialised source directory, as rules/formal/rule.ts
 * calls it. The passing example is PASS with every obligation proved and closed assumptions; the
 * failing example (reserve checks capacity before duplicates, with a weaker proved postcondition)
 * is BLOCKED, claim unknown, naming the reserve contract at a one-based place in the source;
 * `Admitted` and an added `Axiom` are never PASS, and Print Assumptions alone catches them.
 * Without podman or the image these skip, naming `npm run setup:system`; under
 * VKIT_REQUIRE_SYSTEM=1 they fail instead.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { packagesRoot, readPackageDir } from '../../src/formal/packages.js';
import { coqProfile } from '../../src/formal/profiles/coq.js';
import type { FormalOutcome } from '../../src/formal/types.js';
import { REPO_ROOT } from '../_support/repo.js';
import { requireSandbox, systemSandbox } from '../_support/podman.js';
import { coqComponent } from './_formal.js';

const sys = await systemSandbox({ what: 'Coq profile tests' });
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const EXAMPLE = join(REPO_ROOT, 'examples', 'allocation');
const passing = readFileSync(join(EXAMPLE, 'src', 'allocation.v'), 'utf8');
const failing = readFileSync(join(EXAMPLE, 'failing', 'src', 'allocation.v'), 'utf8');

const component = coqComponent();

/** Runs the profile on a candidate text, materialised as rules/formal/rule.ts does (readable by uid 65534). */
async function check(
  candidate: string,
  pkgDir = join(packagesRoot(), 'resource-ledger'),
): Promise<FormalOutcome & { out: string }> {
  const { sandbox } = requireSandbox(sys);
  const source = mkdtempSync(join(tmpdir(), 'vkit-coq-src-'));
  const out = mkdtempSync(join(tmpdir(), 'vkit-coq-out-'));
  temps.push(source, out);
  mkdirSync(join(source, 'src'));
  writeFileSync(join(source, 'src', 'allocation.v'), candidate);
  for (const d of [source, join(source, 'src')]) chmodSync(d, 0o755);
  chmodSync(join(source, 'src', 'allocation.v'), 0o644);
  chmodSync(out, 0o777);
  const pkg = readPackageDir(pkgDir);
  const outcome = await coqProfile.run({
    component,
    pkg,
    source,
    out,
    sandbox,
    env: {},
    signal: new AbortController().signal,
    containerPrefix: `vkit-coqtest-${process.pid}-${temps.length}`,
  });
  return { ...outcome, out };
}

describe('coq-linux-x86_64-v1 through the real sandbox', { skip: sys.skip, concurrency: false }, () => {
  test('the passing candidate is PASS: obligations proved, assumptions closed, observations ran', async () => {
    const r = await check(passing);
    assert.equal(r.outcome, 'PASS', r.reason);
    assert.equal(r.claim, 'established');
    assert.equal(r.assurance, 'kernel_proof');
    assert.equal(r.method, 'coq_source');
    const o = r.sections.obligations;
    assert.ok(o.total! >= 6 + 16, `obligations: ${o.total}`);
    assert.equal(o.proved, o.total);
    assert.equal(o.failed, 0);
    assert.equal(o.unknown, 0);
    for (const b of ['new', 'reserve', 'release', 'reserve_batch', 'apply_command', 'run_commands']) {
      assert.ok(
        o.items.some((i) => i.binding === b && i.id.startsWith('client:')),
        `a client obligation for ${b}`,
      );
    }
    assert.ok(
      o.items.some(
        (i) => i.id === 'package:VkitLedger.Transfer.transfer_success_conserves_usage' && i.status === 'proved',
      ),
    );
    assert.deepEqual(r.sections.provenance.logical_trust.engine_reported_axioms, []);
    assert.match(r.sections.inventory.versions.coqc ?? '', /8\.16/);
    // Coverage: bindings established, SharedLedger listed as not established in this profile.
    assert.ok(r.sections.coverage.bindings.every((b) => b.established));
    const shared = r.sections.coverage.package_claims.find((c) => /SharedLedger/.test(c.claim));
    assert.equal(shared?.established, false);
    // Compilation: extracted, compiled, observed; one observation per binding at least.
    const c = r.sections.compilation!;
    assert.ok(c.artifacts['build/observe']?.startsWith('sha256:'));
    assert.ok(c.sources['build/ledger.ml']?.startsWith('sha256:'));
    assert.ok(c.trusts.some((t) => /extraction/i.test(t)) && c.trusts.some((t) => /ocamlopt/.test(t)));
    for (const b of ['new', 'reserve', 'release', 'reserve_batch', 'apply_command', 'run_commands']) {
      assert.ok(
        c.observations.some((x) => x.name.startsWith(`${b}.`) && x.pass),
        `an observation of ${b}`,
      );
    }
    for (const branch of [
      'reserve.zero_amount_first',
      'reserve.duplicate_id',
      'reserve.full_storage_before_capacity',
      'reserve.capacity_exceeded',
      'release.not_found',
      'release.not_owner',
      'reserve_batch.too_many',
      'reserve_batch.first_failing_index_rolls_back',
    ]) {
      assert.ok(
        c.observations.some((x) => x.name === branch && x.pass),
        branch,
      );
    }
    assert.ok(r.artifacts.includes('build/observe') && r.artifacts.includes('driver/Check.v'));
  });

  test('the failing candidate is BLOCKED, claim unknown, naming the reserve contract at a one-based place', async () => {
    const r = await check(failing);
    assert.equal(r.outcome, 'BLOCKED');
    assert.equal(r.claim, 'unknown');
    assert.match(r.reason, /reserve contract \(LEDGER_API\.reserve_spec\)/);
    const line = failing.split('\n').findIndex((l) => /^\s*Lemma reserve_spec\b/.test(l)) + 1;
    const column = failing.split('\n')[line - 1]!.indexOf('Lemma') + 1;
    assert.match(r.reason, new RegExp(`src/allocation\\.v:${line}:${column}`));
    const d = r.sections.diagnostics.find((x) => x.file === 'src/allocation.v');
    assert.deepEqual([d?.line, d?.column], [line, column]);
    const failed = r.sections.obligations.items.filter((i) => i.status === 'failed');
    assert.deepEqual(
      failed.map((i) => i.id),
      ['contract:reserve_spec'],
    );
    assert.equal(r.sections.obligations.proved, 0);
  });

  test('Admitted is not PASS', async () => {
    const admitted = passing.replace(/(Lemma release_spec[\s\S]*?Proof\.)[\s\S]*?Qed\./, '$1 Admitted.');
    assert.notEqual(admitted, passing);
    const r = await check(admitted);
    assert.equal(r.outcome, 'BLOCKED');
    assert.equal(r.claim, 'unknown');
    assert.match(r.reason, /Admitted/);
    // Print Assumptions saw it too: the release client theorems are not proved.
    assert.ok(
      r.sections.provenance.logical_trust.engine_reported_axioms.some((a) => /release_spec/.test(a)),
      JSON.stringify(r.sections.provenance.logical_trust),
    );
    assert.ok(r.sections.obligations.items.some((i) => i.binding === 'release' && i.status === 'unknown'));
  });

  test('an added Axiom is not PASS, and Print Assumptions reports it', async () => {
    // The axiom proves the candidate's new_spec. The text scan blocks it, and Print Assumptions must
    // report it as well (with the scan disabled on purpose, this test still sees BLOCKED).
    const withAxiom = passing
      .replace(
        'Module Allocation (P : LEDGER_PARAMS).',
        'Axiom cheat : forall P : Prop, P.\nModule Allocation (P : LEDGER_PARAMS).',
      )
      .replace(/(Lemma new_spec[^\n]*\n\s*Proof\.) reflexivity\. Qed\./, '$1 intros; apply cheat. Qed.');
    assert.notEqual(withAxiom, passing);
    const r = await check(withAxiom);
    assert.equal(r.outcome, 'BLOCKED');
    assert.equal(r.claim, 'unknown');
    assert.ok(
      r.sections.provenance.logical_trust.engine_reported_axioms.includes('cheat') ||
        r.sections.provenance.logical_trust.engine_reported_axioms.some((a) => /cheat/.test(a)),
      JSON.stringify(r.sections.provenance.logical_trust),
    );
    assert.ok(r.sections.obligations.items.some((i) => i.id === 'client:new_empty' && i.status === 'unknown'));
  });

  test('a candidate loading native code is refused before anything runs', async () => {
    const r = await check(`Declare ML Module "evil_plugin".\n${passing}`);
    assert.equal(r.outcome, 'BLOCKED');
    assert.match(r.reason, /Declare ML Module.*src\/allocation\.v:1:1/);
    assert.equal(r.sections.compilation, null);
  });
});
