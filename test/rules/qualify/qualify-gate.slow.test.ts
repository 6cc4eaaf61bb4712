/**
 * The `qualify:<id>` gate item for real (podman + the Coq worker image): a config requiring a
 * qualification is BLOCKED until `vkit policy accept` binds its package, catalogue and checker in
 * vkit.lock.json; then a repository catalogue of the ledger (two mutants) makes it PASS, cached on the
 * next build; a weak package's survivor makes it FAIL and the gate REJECTED. vkit's own config
 * requires the whole ledger catalogue (the dogfood build in .ci/run).
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadPackage, packageRoots } from '../../../src/formal/packages.js';
import { requireSandbox, systemSandbox } from '../../_support/podman.js';
import { REPO_ROOT, tempRepo, vkit } from '../../_support/repo.js';

const sys = await systemSandbox({ what: 'qualification gate items (Coq)' });

const LEDGER_CATALOGUE = join(
  REPO_ROOT,
  'rules',
  'qualify',
  'catalogues',
  'vkit.resource-ledger',
  'coq-linux-x86_64-v1',
);
const WEAK = join(REPO_ROOT, 'test', 'formal', 'fixtures', 'weak-ledger');

/** A repository holding a catalogue (only `keep` of its mutants, no adequacy) and a manifest requiring it. */
function qualifiedRepo(source: string, pkg: { id: string; version: string; sha256: string }, keep: string[]) {
  const repo = tempRepo({});
  cpSync(join(source, 'reference.v'), join(repo.dir, 'qual', 'reference.v'));
  const catalogue = JSON.parse(readFileSync(join(source, 'catalogue.json'), 'utf8'));
  catalogue.mutants = catalogue.mutants.filter((m: { id: string }) => keep.includes(m.id));
  writeFileSync(join(repo.dir, 'qual', 'catalogue.json'), JSON.stringify(catalogue, null, 2));
  repo.manifest({
    formal: { qualifications: [{ id: 'ledger', package: pkg, profile: 'coq-linux-x86_64-v1', catalogue: 'qual' }] },
  });
  repo.commitAll();
  return repo;
}

test('qualify:<id>: BLOCKED until accepted, then PASS on detected mutants, cached on the next build', {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const pkg = loadPackage('vkit.resource-ledger', '0.1.0');
  const repo = qualifiedRepo(LEDGER_CATALOGUE, { id: pkg.id, version: pkg.version, sha256: pkg.sha256 }, [
    'release-wrong-amount',
    'new-stale-usage',
  ]);
  try {
    const before = vkit(['build', '--root', repo.dir, '--json'], { timeoutMs: 600_000 });
    assert.equal(before.code, 3, before.stdout + before.stderr);
    const item = before.json().gate.items.find((i: { id: string }) => i.id === 'qualify:ledger');
    assert.equal(item.status, 'BLOCKED');
    assert.match(item.reason, /not accepted: run `vkit policy accept`/);
    const accepted = vkit(['policy', 'accept', '--root', repo.dir, '--json']);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    assert.deepEqual(
      accepted.json().accepted.map((a: { component: string }) => a.component),
      ['qualify:ledger'],
    );
    const built = vkit(['build', '--root', repo.dir, '--json'], { timeoutMs: 600_000 });
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const report = built.json();
    assert.equal(report.gate.status, 'READY', report.gate.reason);
    assert.match(report.actions[0].reason, /all 2 mutants detected/);
    const shown = vkit(['run', 'show', '--root', repo.dir, '--run', report.actions[0].run, '--json']).json();
    assert.equal(shown.summary.assurance, 'kernel_proof');
    const again = vkit(['build', '--root', repo.dir, '--json'], { timeoutMs: 600_000 }).json();
    assert.equal(again.actions[0].status, 'cached', 'an unchanged qualification is a cache hit');
    assert.equal(again.gate.status, 'READY');
  } finally {
    repo.cleanup();
  }
});

test("qualify:<id>: a weak package's survivor is FAIL and the gate REJECTED", { skip: sys.skip }, () => {
  requireSandbox(sys);
  const env = { VKIT_PACKAGE_PATH: join(WEAK, 'packages') };
  const pkg = loadPackage('vkit.resource-ledger-weak', '0.1.0', packageRoots(env));
  const repo = qualifiedRepo(
    join(WEAK, 'qualification', 'vkit.resource-ledger-weak', 'coq-linux-x86_64-v1'),
    { id: pkg.id, version: pkg.version, sha256: pkg.sha256 },
    ['release-wrong-amount'],
  );
  try {
    const accepted = vkit(['policy', 'accept', '--root', repo.dir], { env });
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    const built = vkit(['build', '--root', repo.dir, '--json'], { env, timeoutMs: 600_000 });
    assert.equal(built.code, 1, built.stdout + built.stderr);
    const report = built.json();
    assert.equal(report.gate.status, 'REJECTED');
    const item = report.gate.items.find((i: { id: string }) => i.id === 'qualify:ledger');
    assert.equal(item.status, 'FAIL');
    assert.match(item.reason, /survived.*release-wrong-amount/);
  } finally {
    repo.cleanup();
  }
});
