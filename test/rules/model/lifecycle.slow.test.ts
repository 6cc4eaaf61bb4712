/**
 * vkit's lifecycle model through the `formal.models` kind in the Spin worker image, as the dogfood
 * item checks it: the model as written establishes its six properties, and each seeded bug (a
 * `-D` variant) comes out refuted by a witness that replayed. `npm test` runs three seeded bugs of
 * different kinds (a long claim assertion pan prints cut short, a short one, a stuck process);
 * `npm run test:model-bugs` (VKIT_MODEL_BUGS=all) runs all ten. Skips loudly without podman or the
 * image (`npm run setup:system`); fails instead under VKIT_REQUIRE_SYSTEM=1.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SPIN_WORKER_IMAGE } from '../../../rules/model/lib/spin/profile.js';
import { requireSandbox, systemSandbox } from '../../_support/podman.js';
import { REPO_ROOT, tempRepo, vkit } from '../../_support/repo.js';
import { BUGS, PROPERTIES } from '../../_support/spin.js';

const sys = await systemSandbox({ image: SPIN_WORKER_IMAGE, what: 'lifecycle model through the SPIN kind' });
const SUBSET = ['BUG_PUBLISH_BEFORE_FINISH', 'BUG_RECOVER_LIVE', 'BUG_WAIT_WITHOUT_RECOVERY'];
const picked = process.env.VKIT_MODEL_BUGS === 'all' ? BUGS : BUGS.filter(([d]) => SUBSET.includes(d));

const property = (name: string) =>
  name === 'end-states' ? { name, kind: 'deadlock', defines: ['QUIET'] } : { name, kind: 'ltl' };

test(`the lifecycle model: six properties established; ${picked.length} seeded bugs refuted by replayed witnesses`, {
  skip: sys.skip,
}, () => {
  requireSandbox(sys);
  const base = { profile: 'spin-linux-x86_64-v1', model: 'models/lifecycle.pml', inputs: ['models/**'] };
  const models = [
    { id: 'as-written', ...base, properties: [...PROPERTIES, 'end-states'].map(property), bounds: { memory_mb: 2048 } },
    ...picked.map(([define, check]) => ({
      id: define.toLowerCase().replace(/_/g, '-'),
      ...base,
      defines: [define],
      properties: [property(check)],
    })),
  ];
  const repo = tempRepo({ 'vkit.manifest.json': JSON.stringify({ formal: { models } }) });
  try {
    mkdirSync(join(repo.dir, 'models'));
    copyFileSync(join(REPO_ROOT, 'fixtures', 'lifecycle', 'lifecycle.pml'), join(repo.dir, 'models', 'lifecycle.pml'));
    repo.commitAll();
    assert.equal(vkit(['policy', 'accept'], { cwd: repo.dir }).code, 0);
    const r = vkit(['build', '--json', '--jobs', '2'], { cwd: repo.dir, timeoutMs: 1_200_000 });
    const actions = (r.json() as { actions: { label: string; outcome: string; reason: string; run: string }[] })
      .actions;
    const by = Object.fromEntries(actions.map((a) => [a.label, a]));
    assert.equal(by['model:as-written']!.outcome, 'PASS', by['model:as-written']!.reason);
    for (const [define, check, what] of picked) {
      const a = by[`model:${define.toLowerCase().replace(/_/g, '-')}`]!;
      assert.equal(a.outcome, 'FAIL', `${define} (${what}): ${a.reason}`);
      const shown = vkit(['run', 'show', '--run', a.run, '--section', 'obligations', '--json'], { cwd: repo.dir });
      const [o] = shown.json().obligations.items;
      assert.equal(o.id, `${check === 'end-states' ? 'deadlock' : 'ltl'}:${check}`);
      assert.equal(o.claim, 'refuted', o.reason);
      assert.equal(o.witness.replay.matched, true, `${define}: ${o.witness.replay.mismatch}`);
      assert.ok(o.witness.replay.steps.compared > 10, `${define}: ${JSON.stringify(o.witness.replay.steps)}`);
      assert.ok(o.witness.steps <= o.witness.minimization.original_steps);
    }
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
});
