/**
 * A kind's own checker profiles are found through the registry, fail closed: what a kind hands back
 * counts as a profile only with the id asked for and a checker function; anything else is no
 * profile (what needs it is then BLOCKED or refused, as for an unknown id).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v from 'valibot';
import { defineKind, defineRegistry, installKinds } from '../../src/config/kind.js';
import { kindProfileGroups, loadAnyProfile } from '../../src/formal/profiles/index.js';

const checker = async () => ({ image: 'x', toolPaths: [] });
const fakeKind = defineKind({
  name: 'fake',
  section: 'fakes',
  entry: v.object({ id: v.string() }),
  rules: {},
  label: (e) => `fake:${e.id}`,
  expand: () => [],
  profiles: {
    label: 'fake checking',
    ids: ['good-v1', 'no-checker-v1', 'liar-v1', 'absent-v1'],
    load: async (id) => {
      if (id === 'good-v1') return { id, checker };
      if (id === 'no-checker-v1') return { id, checker: 'not a function' };
      if (id === 'liar-v1') return { id: 'good-v1', checker };
      return undefined;
    },
  },
});
installKinds(defineRegistry('file:///registry-of-this-test.js', [fakeKind]));

test("a kind's checker profiles: found by id, listed under the kind's label, and refused when malformed", async () => {
  assert.deepEqual(await kindProfileGroups(), [
    { label: 'fake checking', ids: ['good-v1', 'no-checker-v1', 'liar-v1', 'absent-v1'] },
  ]);
  assert.equal((await loadAnyProfile('good-v1'))?.id, 'good-v1');
  assert.equal(await loadAnyProfile('no-checker-v1'), undefined, 'no checker function: no profile');
  assert.equal(await loadAnyProfile('liar-v1'), undefined, 'another id than the one asked: no profile');
  assert.equal(await loadAnyProfile('absent-v1'), undefined);
  assert.equal(await loadAnyProfile('never-declared-v1'), undefined);
  // The formal library's own profiles come first, whatever the kinds say.
  assert.equal((await loadAnyProfile('coq-linux-x86_64-v1'))?.id, 'coq-linux-x86_64-v1');
});
