/**
 * Represented candidates without a container: the columns catalogue (examples/allocation-columns/
 * qualification) reads, every edit applies, its reference is the example's candidate, and the
 * component each candidate is checked as carries the representation and satisfies the policy.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { policyProblems } from '../../src/formal/policy.js';
import { coqProfile, planComponent } from '../../src/formal/profiles/coq.js';
import { readCatalogue } from '../../rules/qualify/lib/catalogue.js';
import { candidateComponent } from '../../rules/qualify/lib/candidates.js';
import { REPO_ROOT } from '../_support/repo.js';
import { LEDGER } from './_formal.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'allocation-columns');

test('the columns catalogue: its reference is the example, each mutant measured, each candidate a represented component', () => {
  const c = readCatalogue(join(EXAMPLE, 'qualification'));
  assert.equal(c.representation, 'columns');
  assert.equal(c.referenceText, readFileSync(join(EXAMPLE, 'src', 'columns.v'), 'utf8'), 'reference.v = src/columns.v');
  assert.equal(c.mutants.length, 9);
  assert.ok(c.mutants.every((m) => m.expect === 'detected'));
  const component = candidateComponent('reference', c, LEDGER, 'ledger.source.v1');
  assert.equal(component.representation, 'columns');
  assert.deepEqual(policyProblems(component, LEDGER, coqProfile), []);
  const plan = planComponent(component);
  assert.ok('plan' in plan, JSON.stringify(plan));
  assert.equal(plan.plan.functor, 'Columns');
  // The example's manifest declares the same component shape and pins the installed package.
  const manifest = JSON.parse(readFileSync(join(EXAMPLE, 'vkit.manifest.json'), 'utf8'));
  const declared = manifest.formal.components[0];
  assert.equal(declared.representation, 'columns');
  assert.equal(declared.package.sha256, LEDGER.sha256);
  assert.deepEqual(declared.bindings, c.bindings);
});
