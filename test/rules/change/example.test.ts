/**
 * examples/change-certify runs as its README says: logic PASS with the real Z3, the code step
 * BLOCKED naming Kani, acceptance unknown (exit 3).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, VKIT_BIN } from '../../_support/repo.js';
import { z3Skip } from './z3.js';

test('examples/change-certify: logic holds, Kani BLOCKED, exit 3', z3Skip(), () => {
  const r = spawnSync(
    'sh',
    [join(REPO_ROOT, 'examples', 'change-certify', 'run.sh'), `${process.execPath} ${VKIT_BIN}`],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', VKIT_KANI_IMAGE: '' },
    },
  );
  assert.equal(r.status, 3, r.stdout + r.stderr);
  for (const id of [
    'basis.registered',
    'basis.preserved',
    'logic.entailed',
    'logic.strengthens',
    'logic.keeps_legal_inputs',
    'witness.claim_forbids',
  ])
    assert.match(r.stdout, new RegExp(`HOLDS {3}${id.replace('.', '\\.')}:`));
  assert.match(
    r.stdout,
    /UNKNOWN code\.claim_satisfied[^\n]*\n\s+BLOCKED: Kani cannot run here; missing: VKIT_KANI_IMAGE not set/,
  );
  assert.match(r.stdout, /change certify clamp::clamp_percent: UNKNOWN/);
});
