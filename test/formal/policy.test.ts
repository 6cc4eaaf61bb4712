/**
 * Formal policy: package identity (deterministic, content-only, every file counted), components
 * must declare inputs, the lock (deterministic text, read back, each difference named), and
 * `vkit policy accept` refusing a component whose checker cannot be resolved while writing nothing
 * for it. A policy, package or checker change makes the component BLOCKED until accepted again.
 */
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { test } from 'node:test';
import { compareLock, lockText, parseLock, type LockEntry } from '../../src/formal/lock.js';
import { loadPackage, packageDigests, readPackageDir } from '../../src/formal/packages.js';
import { cli } from '../_support/evidence.js';
import { vkit } from '../_support/repo.js';
import { acceptedEntry, DEAD_SOCKET, LEDGER, ledgerComponent, ledgerRepo, writeAcceptedLock } from './_formal.js';

/** A copy of the installed ledger package under a fresh packages root. */
function copyPackage(): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'vkit-pkgs-'));
  const dir = join(root, 'resource-ledger');
  cpSync(LEDGER.dir, dir, { recursive: true });
  return { root, dir };
}

test('package digest: deterministic, independent of where the package lives, equal to the CLI', () => {
  const { root, dir } = copyPackage();
  try {
    const a = readPackageDir(dir);
    assert.equal(a.sha256, LEDGER.sha256, 'the same files in another directory have the same identity');
    assert.equal(readPackageDir(dir).sha256, a.sha256);
    assert.deepEqual(
      packageDigests('vkit.resource-ledger', root).map((d) => d.sha256),
      [LEDGER.sha256],
    );
    const out = vkit(['formal', 'package', 'digest', 'vkit.resource-ledger']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout.trim(), LEDGER.sha256);
    const all = vkit(['formal', 'package', 'digest', '--json']);
    assert.equal(
      all.json().packages.find((p: { id: string }) => p.id === 'vkit.resource-ledger').sha256,
      LEDGER.sha256,
    );
    const unknown = vkit(['formal', 'package', 'digest', 'no.such.package']);
    assert.equal(unknown.code, 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('package digest changes with one byte, with a mode bit, and a stray or missing file is refused', () => {
  const { root, dir } = copyPackage();
  try {
    const file = join(dir, LEDGER.files[0]!);
    const bytes = readFileSync(file);
    writeFileSync(file, Buffer.concat([bytes, Buffer.from(' ')]));
    const edited = readPackageDir(dir).sha256;
    assert.notEqual(edited, LEDGER.sha256);
    writeFileSync(file, bytes);
    assert.equal(readPackageDir(dir).sha256, LEDGER.sha256, 'restoring the bytes restores the identity');
    chmodSync(file, 0o755);
    assert.notEqual(readPackageDir(dir).sha256, LEDGER.sha256, 'the mode is part of the identity');
    chmodSync(file, 0o644);
    writeFileSync(join(dir, 'stray.v'), 'Axiom cheat : False.\n');
    assert.throws(() => readPackageDir(dir), /stray\.v.*not listed/);
    rmSync(join(dir, 'stray.v'));
    rmSync(file);
    assert.throws(() => readPackageDir(dir), /is missing/);
    assert.throws(() => loadPackage('vkit.resource-ledger', '9.9.9'), /not installed/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a component without inputs, or with an empty list, is invalid config (exit 2, naming the field)', () => {
  const { inputs: _dropped, ...noInputs } = ledgerComponent();
  for (const component of [noInputs, { ...ledgerComponent(), inputs: [] }]) {
    const repo = ledgerRepo(component as ReturnType<typeof ledgerComponent>);
    try {
      const r = cli(repo, ['build', '--json']);
      assert.equal(r.code, 2, r.stderr);
      const issue = r.json().error.issues.find((i: { path: string }) => i.path === 'formal.components[0].inputs');
      assert.ok(issue, `expected an issue at formal.components[0].inputs, got ${r.stdout}`);
    } finally {
      repo.cleanup();
    }
  }
});

const ENTRY: LockEntry = {
  policy_sha256: `sha256:${'1'.repeat(64)}`,
  package_sha256: `sha256:${'2'.repeat(64)}`,
  checker_sha256: `sha256:${'3'.repeat(64)}`,
  profile: 'coq-linux-x86_64-v1',
  accepted_at: '2026-01-01T00:00:00.000Z',
};

test('lock: deterministic text that reads back; each difference is named as renewed acceptance', () => {
  const lock = { schema: 'vkit.lock/1' as const, components: { b: ENTRY, a: { ...ENTRY, profile: 'x' } } };
  const text = lockText(lock);
  assert.equal(
    text,
    lockText({ schema: 'vkit.lock/1', components: { a: { ...ENTRY, profile: 'x' }, b: ENTRY } }),
    'key order does not matter',
  );
  assert.ok(text.indexOf('"a"') < text.indexOf('"b"') && text.endsWith('}\n'));
  assert.deepEqual(parseLock(text), lock);
  assert.throws(
    () => parseLock(text.replace(ENTRY.policy_sha256, ENTRY.policy_sha256.slice(7))),
    (e: Error & { code?: string }) => e.code === 'ERR_LOCK_INVALID',
  );
  const current = {
    policy_sha256: ENTRY.policy_sha256,
    package_sha256: ENTRY.package_sha256,
    profile: ENTRY.profile,
    checker_sha256: ENTRY.checker_sha256,
  };
  assert.deepEqual(compareLock(ENTRY, current), { ok: true });
  const cases: Array<[Partial<typeof current>, RegExp]> = [
    [{ policy_sha256: `sha256:${'9'.repeat(64)}` }, /renewed acceptance required \(policy slice changed\)/],
    [{ package_sha256: `sha256:${'9'.repeat(64)}` }, /renewed acceptance required \(package digest changed\)/],
    [{ checker_sha256: `sha256:${'9'.repeat(64)}` }, /renewed acceptance required \(checker digest changed\)/],
    [{ profile: 'verus-linux-x86_64-v1' }, /renewed acceptance required \(profile changed\)/],
  ];
  for (const [change, expected] of cases) {
    const r = compareLock(ENTRY, { ...current, ...change });
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, expected);
  }
  assert.match((compareLock(undefined, current) as { reason: string }).reason, /not accepted/);
});

test('policy accept without an engine refuses the component naming the socket (exit 3) and writes no entry for it', () => {
  const repo = ledgerRepo();
  try {
    const r = cli(repo, ['policy', 'accept', '--json'], { VKIT_CONTAINER_SOCKET: DEAD_SOCKET });
    assert.equal(r.code, 3, r.stderr);
    const out = r.json();
    assert.deepEqual(out.accepted, []);
    assert.equal(out.refused[0].component, 'allocation');
    assert.match(out.refused[0].reasons.join('\n'), new RegExp(DEAD_SOCKET.replace(/[/.]/g, '\\$&')));
    const lock = parseLock(readFileSync(join(repo.dir, 'vkit.lock.json'), 'utf8'));
    assert.deepEqual(lock.components, {}, 'nothing is written for a refused component');
    // A --component naming no declared entry is a usage error naming what is declared, nothing written.
    const misspelt = cli(repo, ['policy', 'accept', '--component', 'alocation'], {
      VKIT_CONTAINER_SOCKET: DEAD_SOCKET,
    });
    assert.equal(misspelt.code, 2, misspelt.stderr);
    assert.match(misspelt.stderr, /got `alocation` \(did you mean `allocation`\?\)/);
    assert.match(misspelt.stderr, /Declared: allocation\./);
    // A component whose declared package digest is not the installed one is refused before any engine is asked.
    repo.manifest({
      formal: {
        components: [
          ledgerComponent({ package: { id: LEDGER.id, version: LEDGER.version, sha256: `sha256:${'0'.repeat(64)}` } }),
        ],
      },
    });
    const wrong = cli(repo, ['policy', 'accept', '--json'], { VKIT_CONTAINER_SOCKET: DEAD_SOCKET });
    assert.equal(wrong.code, 3);
    assert.match(wrong.json().refused[0].reasons[0], /package\.sha256 .* installed/);
  } finally {
    repo.cleanup();
  }
});

test('a policy or package change makes the accepted component BLOCKED "renewed acceptance required"; the accepted lock gets past that check', async () => {
  const repo = ledgerRepo();
  const env = { VKIT_CONTAINER_SOCKET: DEAD_SOCKET };
  const formalItem = (r: ReturnType<typeof cli>) =>
    r.json().gate.items.find((i: { id: string }) => i.id === 'formal:allocation');
  try {
    await writeAcceptedLock(repo);
    const accepted = cli(repo, ['build', '--json'], env);
    assert.equal(accepted.code, 3, accepted.stderr);
    // Accepted: the lock judgement passes and the next step (the engine) is what blocks.
    assert.doesNotMatch(formalItem(accepted).reason, /renewed acceptance/);
    assert.match(formalItem(accepted).reason, /vkit-test-no-engine\.sock/);

    // The policy slice changes (a parameter): renewed acceptance required, before any engine is asked.
    repo.manifest({
      checks: [{ id: 'ok', run: ['node', '-e', '0'], inputs: ['a.txt'] }],
      formal: { components: [ledgerComponent({ parameters: { max_records: 4 } })] },
    });
    const changed = cli(repo, ['build', '--json'], env);
    assert.equal(changed.code, 3);
    assert.equal(formalItem(changed).status, 'BLOCKED');
    assert.match(formalItem(changed).reason, /renewed acceptance required \(policy slice changed\)/);
    // `vkit gate` says the same from the retained attempt.
    const g = cli(repo, ['gate', '--json'], env);
    assert.match(
      g.json().items.find((i: { id: string }) => i.id === 'formal:allocation').reason,
      /renewed acceptance required/,
    );

    // Accepting the new policy (the lock entry a `policy accept` would write) lifts that block.
    await writeAcceptedLock(repo);
    const again = cli(repo, ['build', '--json'], env);
    assert.doesNotMatch(formalItem(again).reason, /renewed acceptance/);

    // The lock binds another package digest than the installed one: renewed acceptance required.
    await writeAcceptedLock(repo, { package_sha256: `sha256:${'e'.repeat(64)}` });
    const pkg = cli(repo, ['build', '--json'], env);
    assert.match(formalItem(pkg).reason, /renewed acceptance required \(package digest changed\)/);
    assert.ok(existsSync(join(repo.dir, 'vkit.lock.json')) && dirname(repo.dir));
  } finally {
    repo.cleanup();
  }
});

test('an entry matching another component id does not cover this one', async () => {
  const repo = ledgerRepo();
  try {
    const entry = await acceptedEntry(repo);
    repo.write('vkit.lock.json', lockText({ schema: 'vkit.lock/1', components: { other: entry } }));
    const r = cli(repo, ['build', '--json'], { VKIT_CONTAINER_SOCKET: DEAD_SOCKET });
    assert.match(r.json().gate.items.find((i: { id: string }) => i.id === 'formal:allocation').reason, /not accepted/);
  } finally {
    repo.cleanup();
  }
});

test('a represented component must bind the package representation names too; an owned-state one must not', async () => {
  const { policyProblems } = await import('../../src/formal/policy.js');
  const { coqProfile } = await import('../../src/formal/profiles/coq.js');
  const { coqComponent } = await import('./_formal.js');
  assert.deepEqual(LEDGER.representationBindings, ['state', 'view', 'of_ledger']);
  const six = coqComponent().bindings;
  const represented = coqComponent({
    representation: 'columns',
    bindings: { ...six, state: 'Allocation.state', of_ledger: 'Allocation.of_ledger' },
  });
  assert.deepEqual(policyProblems(represented, LEDGER, coqProfile), [
    'bindings lack `view` (the package requires all of new, reserve, release, reserve_batch, apply_command, run_commands, state, view, of_ledger for a represented component)',
  ]);
  const owned = coqComponent({ bindings: { ...six, view: 'Allocation.view' } });
  assert.deepEqual(policyProblems(owned, LEDGER, coqProfile), [
    'bindings name `view`, which vkit.resource-ledger does not define',
  ]);
  assert.deepEqual(policyProblems(coqComponent(), LEDGER, coqProfile), []);
});
