/**
 * The SPIN profile for real, in the Spin worker image: an established property (a complete search,
 * its counts and pan's own completeness lines), a refuted one whose trail replayed (by pan -r and
 * spin -t, compared step by step), deadlock freedom both ways, a depth bound that leaves a property
 * unknown (never established), a witness corrupted between search and replay (unknown, kept with
 * the mismatch), and a changed model after a PASS (rerun, not a cache hit). Without podman or the
 * image these skip, naming `npm run setup:system`; under VKIT_REQUIRE_SYSTEM=1 they fail instead.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as v from 'valibot';
import type { ContainerRequest, Sandbox } from '../../../src/checkers/container.js';
import { ModelEntrySchema } from '../../../rules/model/schema.js';
import { SPIN_WORKER_IMAGE, spinProfile } from '../../../rules/model/lib/spin/profile.js';
import { requireSandbox, systemSandbox } from '../../_support/podman.js';
import { tempRepo, vkit } from '../../_support/repo.js';

const sys = await systemSandbox({ image: SPIN_WORKER_IMAGE, what: 'SPIN profile tests' });

/** A counter to LIMIT; macros plant a failing assertion (BAD_ASSERT) or a process stuck forever (STUCK). */
const COUNTER = `#ifndef LIMIT
#define LIMIT 3
#endif
byte x = 0;
active proctype Counter() {
  do
  :: x < LIMIT -> x++
  :: x == LIMIT -> break
  od;
#ifdef BAD_ASSERT
  assert(x < LIMIT)
#else
  assert(x == LIMIT)
#endif
}
#ifdef STUCK
active proctype Waiter() { (x > LIMIT) }
#endif
ltl bounded { [] (x <= LIMIT) }
`;

const item = (id: string, properties: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  profile: 'spin-linux-x86_64-v1',
  model: 'models/counter.pml',
  properties,
  inputs: ['models/**'],
  ...extra,
});

interface Built {
  actions: { label: string; outcome: string; reason: string; run: string; status: string }[];
}

test('established, refuted with a replayed witness, deadlock both ways, a depth bound unknown; a changed model reruns', {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const repo = tempRepo({
    'models/counter.pml': COUNTER,
    'vkit.manifest.json': JSON.stringify({
      formal: {
        models: [
          item('ok', [
            { name: 'counts', kind: 'assert' },
            { name: 'bounded', kind: 'ltl' },
            { name: 'ends', kind: 'deadlock' },
          ]),
          item('bad', [{ name: 'counts', kind: 'assert' }], { defines: ['BAD_ASSERT'] }),
          item('stuck', [{ name: 'ends', kind: 'deadlock' }], { defines: ['STUCK'] }),
          item('deep', [{ name: 'bounded', kind: 'ltl' }], { defines: ['LIMIT=60'], bounds: { depth: 20 } }),
        ],
      },
    }),
  });
  try {
    repo.commitAll();
    const accepted = vkit(['policy', 'accept'], { cwd: repo.dir });
    assert.equal(accepted.code, 0, accepted.stderr);
    const first = vkit(['build', '--json', '--jobs', '2'], { cwd: repo.dir, timeoutMs: 600_000 });
    const built = first.json() as Built;
    const by = Object.fromEntries(built.actions.map((a) => [a.label, a]));
    assert.equal(by['model:ok']!.outcome, 'PASS', by['model:ok']!.reason);
    assert.equal(by['model:bad']!.outcome, 'FAIL', by['model:bad']!.reason);
    assert.equal(by['model:stuck']!.outcome, 'FAIL', by['model:stuck']!.reason);
    assert.equal(by['model:deep']!.outcome, 'BLOCKED', by['model:deep']!.reason);
    assert.match(by['model:deep']!.reason, /max search depth too small/);

    const obligations = (label: string) => {
      const shown = vkit(['run', 'show', '--run', by[label]!.run, '--section', 'obligations', '--json'], {
        cwd: repo.dir,
      });
      assert.equal(shown.code, 0, shown.stderr);
      return shown.json().obligations.items as any[];
    };
    for (const o of obligations('model:ok')) {
      assert.equal(o.claim, 'established', `${o.id}: ${o.reason}`);
      assert.equal(o.scope.search, 'exhaustive');
      assert.equal(o.scope.complete, true);
      assert.ok(o.scope.states > 0 && o.scope.transitions > 0, JSON.stringify(o.scope));
      assert.ok(o.scope.tool_report.length > 0);
    }
    const [refuted] = obligations('model:bad');
    assert.equal(refuted.claim, 'refuted');
    assert.equal(refuted.witness.replay.matched, true, refuted.witness.replay.mismatch);
    assert.equal(refuted.witness.replay.violation.replayed, 'assertion violated: (x<3)');
    assert.ok(refuted.witness.replay.steps.compared > 0);
    assert.equal(refuted.witness.replay.steps.witness, refuted.witness.steps);
    assert.match(refuted.witness.minimization.verdict, /^(shown|not shown) minimal$/);
    const [stuck] = obligations('model:stuck');
    assert.equal(stuck.claim, 'refuted', stuck.reason);
    assert.match(stuck.witness.replay.violation.replayed, /^invalid end state: Waiter@/);
    const [deep] = obligations('model:deep');
    assert.equal(deep.claim, 'unknown');
    assert.equal(deep.scope.complete, false);

    // The witness is retained evidence: listed among the run's artifacts.
    const arts = vkit(['run', 'show', '--run', by['model:bad']!.run, '--section', 'artifacts', '--json'], {
      cwd: repo.dir,
    }).json().artifacts.items as { name: string; state: string }[];
    assert.ok(
      arts.some((a) => a.name === 'out/witnesses/counts.trail' && a.state === 'intact'),
      JSON.stringify(arts),
    );

    // An evidence bundle carries the model as checked and the witness; replay checks it again here.
    const bundle = join(repo.dir, 'bad.tar');
    const exported = vkit(['evidence', 'export', '--run', by['model:bad']!.run, '--out', bundle, '--json'], {
      cwd: repo.dir,
    });
    assert.equal(exported.code, 0, exported.stderr);
    const listing = execFileSync('tar', ['-xOf', bundle, 'manifest.json'], { encoding: 'utf8' });
    for (const name of ['out/model/models/counter.pml', 'out/witnesses/counts.trail', 'model.json'])
      assert.ok(listing.includes(`"${name}"`), `${name} in the bundle`);
    const replayed = vkit(['evidence', 'replay', bundle], { cwd: repo.dir, timeoutMs: 600_000 });
    assert.equal(replayed.code, 1, replayed.stdout + replayed.stderr);
    assert.match(replayed.stdout, /replay FAIL: model:bad: the check failed here/);
    assert.match(replayed.stdout, /replayed as run_/);

    const again = vkit(['build', '--json'], { cwd: repo.dir, timeoutMs: 600_000 }).json() as Built;
    assert.ok(
      again.actions.filter((a) => a.outcome !== 'BLOCKED').every((a) => a.status === 'cached'),
      'PASS and FAIL are cache hits',
    );
    repo.write('models/counter.pml', COUNTER.replace('byte x = 0;', 'byte x = 0; /* edited */'));
    const edited = vkit(['build', '--json'], { cwd: repo.dir, timeoutMs: 600_000 }).json() as Built;
    const ok = edited.actions.find((a) => a.label === 'model:ok')!;
    assert.equal(ok.outcome, 'PASS', ok.reason);
    assert.notEqual(ok.status, 'cached', 'a changed model is checked again');
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
});

/** The real sandbox, with a hostile step between search and replay: each trail loses its last steps. */
function truncatingTrails(real: Sandbox, scratchOf: (req: ContainerRequest) => string | undefined): Sandbox {
  return {
    socket: real.socket,
    imageId: (ref) => real.imageId(ref),
    toolTree: (id, paths) => real.toolTree(id, paths),
    async run(req) {
      const result = await real.run(req);
      const scratch = scratchOf(req);
      if (scratch && req.name.endsWith('-search'))
        for (const dir of readdirSync(scratch, { recursive: true, withFileTypes: true }))
          if (dir.isFile() && dir.name.endsWith('.trail')) {
            const file = join(dir.parentPath, dir.name);
            const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
            writeFileSync(file, `${lines.slice(0, -3).join('\n')}\n`);
          }
      return result;
    },
  };
}

test('a witness that does not replay refutes nothing: the property stays unknown, the trail kept with the mismatch', {
  skip: sys.skip,
}, async () => {
  const { sandbox } = requireSandbox(sys);
  const source = mkdtempSync(join(tmpdir(), 'vkit-spin-src-'));
  const out = mkdtempSync(join(tmpdir(), 'vkit-spin-out-'));
  try {
    chmodSync(source, 0o755);
    writeFileSync(join(source, 'counter.pml'), COUNTER, { mode: 0o644 });
    const model = v.parse(ModelEntrySchema, {
      id: 'bad',
      profile: 'spin-linux-x86_64-v1',
      model: 'counter.pml',
      defines: ['BAD_ASSERT'],
      properties: [{ name: 'counts', kind: 'assert' }],
      bounds: { minimize_s: 0 },
      inputs: ['counter.pml'],
    });
    const hostile = truncatingTrails(sandbox, (req) => req.binds.find((b) => b.container === '/work')?.host);
    const outcome = await spinProfile.run({
      model,
      source,
      out,
      sandbox: hostile,
      env: process.env,
      signal: new AbortController().signal,
      containerPrefix: `vkit-test-spin-${process.pid}`,
    });
    const [p] = outcome.properties;
    assert.equal(p!.claim, 'unknown', p!.reason);
    assert.match(p!.reason, /did not replay/);
    assert.equal(p!.witness, null);
    assert.equal(p!.unreplayed?.replay.matched, false);
    assert.ok(outcome.artifacts.includes('witnesses/counts.unreplayed.trail'), outcome.artifacts.join(', '));
  } finally {
    rmSync(source, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});

test("a model Spin cannot read: BLOCKED, every property unknown, spin's errors at file:line of the captured model", {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const repo = tempRepo({
    'models/broken.pml': 'byte x;\nactive proctype P() {\n  x = = 1\n}\n',
    'vkit.manifest.json': JSON.stringify({
      formal: { models: [item('broken', [{ name: 'a', kind: 'assert' }], { model: 'models/broken.pml' })] },
    }),
  });
  try {
    repo.commitAll();
    assert.equal(vkit(['policy', 'accept'], { cwd: repo.dir }).code, 0);
    const built = vkit(['build', '--json'], { cwd: repo.dir, timeoutMs: 300_000 }).json() as Built;
    const [a] = built.actions;
    assert.equal(a!.outcome, 'BLOCKED');
    assert.match(a!.reason, /did not compile/);
    const shown = vkit(['run', 'show', '--run', a!.run, '--section', 'diagnostics', '--json'], { cwd: repo.dir });
    const items = shown.json().diagnostics.items as { file: string; line: number; message: string }[];
    assert.deepEqual(
      items.map((d) => [d.file, d.line]),
      [
        ['models/broken.pml', 3],
        ['models/broken.pml', 5],
      ],
    );
    assert.match(items[0]!.message, /syntax error/);
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
});

test('a formal.models entry that is not valid is exit 2 naming the field', () => {
  const repo = tempRepo({
    'm.pml': 'active proctype P() { skip }\n',
    'vkit.manifest.json': JSON.stringify({
      formal: { models: [item('x', [{ name: 'p', kind: 'liveness' }], { model: 'm.pml', inputs: ['m.pml'] })] },
    }),
  });
  try {
    const r = vkit(['build'], { cwd: repo.dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /formal\.models\[0\]\.properties\[0\]\.kind/);
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
});
