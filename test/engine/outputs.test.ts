/**
 * The job timeline a build asks, after its jobs, which results' outputs another job may have
 * written over: those running when the result was vouched for, and those started since, never the
 * result's own job.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobTimeline } from '../../src/engine/outputs.js';

test('a result is exposed to the jobs running at its mark and those started after it, not to its own or earlier ones', () => {
  const t = new JobTimeline();
  t.start('early');
  t.end('early');
  const running = t.start('long');
  const own = t.start('self');
  const hit = t.mark();
  t.end('self');
  t.end('long');
  assert.deepEqual(t.since(running, 'long'), ['self']);
  assert.deepEqual(t.since(own, 'self'), ['long'], 'running when its job started');
  assert.deepEqual(t.since(hit, 'hit'), ['long', 'self'], 'both were running when the hit was checked');
  const quiet = t.mark();
  assert.deepEqual(t.since(quiet, 'x'), [], 'nothing ran since');
  t.start('later');
  assert.deepEqual(t.since(quiet, 'x'), ['later']);
});
