/**
 * Package qualification for real, in the Coq worker (podman + the worker image): `vkit formal
 * qualify` on a subset of vkit's own catalogue of the ledger (three kinds of edit: a capacity bound
 * caught by reserve's contract proof, a rejection order caught by release's, and an empty trace
 * outside run_commands' precondition that only a compiled observation catches) with every adequacy
 * check (the false equivalence must be refuted); a deliberately weak package whose surviving mutant
 * makes the qualification FAIL; and a mutant that does not typecheck, which is inconclusive, never
 * detected. Each candidate is its own run, shown by `vkit run show`. The whole catalogue runs in
 * `npm run qualify:ledger`. Without podman or the image these skip, naming `npm run setup:system`;
 * under VKIT_REQUIRE_SYSTEM=1 they fail instead.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Qualification } from '../../../rules/qualify/lib/report.js';
import { requireSandbox, systemSandbox } from '../../_support/podman.js';
import { connect } from '../../_support/mcp-client.js';
import { REPO_ROOT, tempRepo, vkit } from '../../_support/repo.js';

const sys = await systemSandbox({ what: 'package qualification (Coq)' });
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

const LEDGER_CATALOGUE = join(
  REPO_ROOT,
  'rules',
  'qualify',
  'catalogues',
  'vkit.resource-ledger',
  'coq-linux-x86_64-v1',
);
const WEAK = join(REPO_ROOT, 'test', 'formal', 'fixtures', 'weak-ledger');
/** One store for the ledger's runs: the reference's PASS is a cache hit the second time. */
const store = temp('vkit-qualify-store-');

function qualify(pkg: string, extra: string[], env: NodeJS.ProcessEnv = {}, at = store) {
  const args = ['formal', 'qualify', '--package', pkg, '--profile', 'coq-linux-x86_64-v1', '--jobs', '2', '--json'];
  const r = vkit([...args, '--store', at, '--root', at, ...extra], { env, timeoutMs: 900_000 });
  return { ...r, report: () => r.json() as Qualification };
}

const byId = (q: Qualification) => Object.fromEntries(q.mutants.map((m) => [m.id, m]));

test("the ledger's catalogue: three kinds of edit detected, each by what the checker named; adequacy holds", {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  // The report goes beside the store, never into it: vkit refuses to write inside its evidence store.
  const out = join(temp('vkit-qualify-report-'), 'report.json');
  const picked = ['reserve-capacity-off-by-one', 'release-owner-before-existence', 'run-commands-empty-trace-beyond-m'];
  const previous = join(WEAK, 'packages', 'resource-ledger-weak');
  const r = qualify('vkit.resource-ledger', [
    ...picked.flatMap((m) => ['--mutant', m]),
    '--out',
    out,
    '--compare-package',
    previous,
  ]);
  assert.equal(r.code, 0, r.stderr || r.stdout);
  const q = r.report();
  assert.equal(q.schema, 'vkit.qualification/1');
  assert.equal(q.status, 'PASS', q.reason);
  assert.equal(q.reference.status, 'PASS', q.reference.reason);
  const m = byId(q);
  assert.deepEqual(Object.keys(m).sort(), [...picked].sort(), '--mutant runs only those');
  assert.match(m['reserve-capacity-off-by-one']!.caught_by!, /^obligation reserve_spec/);
  assert.match(m['release-owner-before-existence']!.caught_by!, /^obligation release_spec/);
  assert.match(m['run-commands-empty-trace-beyond-m']!.caught_by!, /^observation /);
  assert.ok(Object.values(m).every((x) => x.class === 'detected' && /^sha256:/.test(x.edit_sha256)));
  // The adequacy checks are real proofs; the false equivalence is refuted (its negation proved).
  assert.ok(q.adequacy.length >= 4, JSON.stringify(q.adequacy));
  for (const a of q.adequacy) assert.equal(a.status, 'holds', `${a.id}: ${a.reason}`);
  assert.ok(q.adequacy.some((a) => a.id === 'false-equivalence-rejected'));
  assert.match(q.checker_sha256 ?? '', /^sha256:[0-9a-f]{64}$/);
  // Each candidate is its own run in the caller's store, with its receipt.
  const shown = vkit(['run', 'show', '--run', m['release-owner-before-existence']!.run!, '--store', store, '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.json().summary.receipt, m['release-owner-before-existence']!.receipt);
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), q, '--out holds the same report');
  // Compared with the weak package directory: what differs is named, equivalence never claimed.
  assert.equal(q.comparison?.semantic_equivalence, 'unknown');
  assert.ok(q.comparison?.obligations.changed.includes('contract:release'), JSON.stringify(q.comparison));
  assert.equal(q.comparison?.trust.checker.current, q.checker_sha256);
});

test('a weak package lets a wrong candidate through: reported as a survivor, and the qualification FAILs', {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const catalogue = join(WEAK, 'qualification', 'vkit.resource-ledger-weak', 'coq-linux-x86_64-v1');
  const r = qualify(
    'vkit.resource-ledger-weak',
    ['--catalogue', catalogue, '--mutant', 'release-wrong-amount', '--mutant', 'reserve-swap-zero-duplicate'],
    { VKIT_PACKAGE_PATH: join(WEAK, 'packages') },
    temp('vkit-qualify-weak-'),
  );
  assert.equal(r.code, 1, r.stderr || r.stdout);
  const q = r.report();
  assert.equal(q.status, 'FAIL');
  assert.match(q.reason, /survived.*release-wrong-amount/);
  const m = byId(q);
  assert.equal(m['release-wrong-amount']!.class, 'survivor');
  assert.equal(m['reserve-swap-zero-duplicate']!.class, 'detected');
});

test('a mutant that does not typecheck is inconclusive, never detected (exit 3)', { skip: sys.skip }, () => {
  requireSandbox(sys);
  const dir = temp('vkit-qualify-cat-');
  copyFileSync(join(LEDGER_CATALOGUE, 'reference.v'), join(dir, 'reference.v'));
  const ledger = JSON.parse(readFileSync(join(LEDGER_CATALOGUE, 'catalogue.json'), 'utf8'));
  const reference = readFileSync(join(dir, 'reference.v'), 'utf8');
  const find = /usage := 0 \|\}/.exec(reference)?.[0];
  assert.ok(find && reference.indexOf(find) === reference.lastIndexOf(find), 'the edit applies once');
  const mutants = [
    {
      id: 'new-ill-typed',
      binding: 'new',
      breaks: 'nothing: it does not typecheck',
      edits: [{ find, replace: 'usage := true |}' }],
    },
  ];
  writeFileSync(join(dir, 'catalogue.json'), JSON.stringify({ ...ledger, mutants }));
  const r = qualify('vkit.resource-ledger', ['--catalogue', dir]);
  assert.equal(r.code, 3, r.stderr || r.stdout);
  const q = r.report();
  assert.equal(q.reference.status, 'PASS', q.reference.reason);
  assert.equal(byId(q)['new-ill-typed']!.class, 'inconclusive', byId(q)['new-ill-typed']!.reason);
  assert.equal(q.status, 'BLOCKED');
});

test('MCP formal_qualify: an id at once, then the vkit.qualification/1 report as structured content', {
  skip: sys.skip,
}, async () => {
  requireSandbox(sys);
  const dir = temp('vkit-qualify-mcp-cat-');
  copyFileSync(join(LEDGER_CATALOGUE, 'reference.v'), join(dir, 'reference.v'));
  const ledger = JSON.parse(readFileSync(join(LEDGER_CATALOGUE, 'catalogue.json'), 'utf8'));
  ledger.mutants = ledger.mutants.filter((m: { id: string }) => m.id === 'new-stale-usage');
  writeFileSync(join(dir, 'catalogue.json'), JSON.stringify(ledger));
  const repo = tempRepo({ 'a.txt': 'a\n' });
  const mcp = await connect(repo, store);
  try {
    const started = await mcp.call('formal_qualify', {
      package: 'vkit.resource-ledger',
      profile: 'coq-linux-x86_64-v1',
      catalogue: dir,
    });
    assert.equal(started.isError, false, JSON.stringify(started.json));
    assert.equal(started.json.state, 'running');
    let answer = started;
    for (let i = 0; i < 20 && answer.json.state === 'running'; i++)
      answer = await mcp.call('run_wait', { run: started.json.build, timeout_s: 30 });
    assert.equal(answer.isError, false, JSON.stringify(answer.json));
    assert.equal(answer.json.schema, 'vkit.qualification/1');
    assert.equal(answer.json.status, 'PASS', answer.json.reason);
    assert.equal(answer.json.mutants[0].class, 'detected');
  } finally {
    await mcp.close();
    repo.cleanup();
  }
});
