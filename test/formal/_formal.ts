/**
 * Shared setup for the formal policy, request and rule tests: a temp git repo declaring one
 * component of the installed `vkit.resource-ledger` package, and a hand-written lock entry for it
 * (the real `vkit policy accept` needs the container engine; these tests reach the lock judgement,
 * which comes before any engine is asked).
 */
import { loadConfig } from '../../src/config/load.js';
import type { ResolvedComponent } from '../../src/formal/component-schema.js';
import { lockText, type LockEntry } from '../../src/formal/lock.js';
import { loadPackage } from '../../src/formal/packages.js';
import { policySliceDigest } from '../../src/formal/policy.js';
import { sections, tempRepo, type TempRepo } from '../_support/repo.js';

export const LEDGER = loadPackage('vkit.resource-ledger', '0.1.0');
export const DEAD_SOCKET = 'unix:///tmp/vkit-test-no-engine.sock';

export function ledgerComponent(over: Record<string, unknown> = {}) {
  return {
    id: 'allocation',
    package: { id: LEDGER.id, version: LEDGER.version, sha256: LEDGER.sha256 },
    contract: 'ledger.source.v1',
    source: { entry: 'src/allocation.v' },
    profile: 'verus-linux-x86_64-v1',
    parameters: { max_records: 3 },
    bindings: Object.fromEntries(LEDGER.bindings.map((b) => [b, b])),
    inputs: ['src/**'],
    ...over,
  };
}

/** The allocation example's component under the Coq profile, as the Coq planning and profile tests use it. */
export function coqComponent(over: Record<string, unknown> = {}): ResolvedComponent {
  return ledgerComponent({
    profile: 'coq-linux-x86_64-v1',
    parameters: { max_records: 3, command_count: 4 },
    bindings: Object.fromEntries(LEDGER.bindings.map((b) => [b, `Allocation.${b}`])),
    required: true,
    inputs: ['src/allocation.v'],
    ...over,
  }) as unknown as ResolvedComponent;
}

export function ledgerRepo(component = ledgerComponent(), files: Record<string, string> = {}): TempRepo {
  const repo = tempRepo({ 'src/allocation.v': '(* candidate *)\n', 'a.txt': 'a\n', ...files });
  repo.manifest({
    checks: [{ id: 'ok', run: ['node', '-e', '0'], inputs: ['a.txt'] }],
    formal: { components: [component] },
  });
  return repo;
}

/** The lock entry `vkit policy accept` would write for the repo's component, with `over` applied. */
export async function acceptedEntry(repo: TempRepo, over: Partial<LockEntry> = {}): Promise<LockEntry> {
  const config = await loadConfig(repo.dir);
  const c = sections(config.manifest).formal.components[0]!;
  return {
    policy_sha256: policySliceDigest(c),
    package_sha256: LEDGER.sha256,
    checker_sha256: `sha256:${'c'.repeat(64)}`,
    profile: c.profile,
    accepted_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export async function writeAcceptedLock(repo: TempRepo, over: Partial<LockEntry> = {}): Promise<LockEntry> {
  const entry = await acceptedEntry(repo, over);
  repo.write('vkit.lock.json', lockText({ schema: 'vkit.lock/1', components: { allocation: entry } }));
  return entry;
}
