/**
 * The scheduler's promise for jobs that make declared outputs: such a job never runs beside any
 * other, ordinary jobs still run beside each other, and one waiting alone is not starved by a
 * stream of ordinary jobs arriving after it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExclusiveRuns } from '../../src/engine/exclusive-runs.js';

test('an exclusive job runs with nothing beside it; shared jobs overlap; arrival order is kept', async () => {
  const runs = new ExclusiveRuns();
  const live = new Set<string>();
  const seen: { name: string; beside: string[] }[] = [];
  const job = (name: string, exclusive: boolean, ms: number) =>
    runs.run(exclusive, async () => {
      seen.push({ name, beside: [...live] });
      live.add(name);
      await sleep(ms);
      live.delete(name);
    });
  await Promise.all([
    job('s1', false, 30),
    job('s2', false, 30),
    job('x1', true, 20),
    job('s3', false, 10),
    job('x2', true, 10),
    job('s4', false, 10),
  ]);
  const at = (name: string) => seen.find((s) => s.name === name)!;
  assert.deepEqual(at('s2').beside, ['s1'], 'ordinary jobs run beside each other');
  assert.deepEqual(at('x1').beside, [], 'an exclusive job waits for the ones running');
  assert.deepEqual(at('x2').beside, []);
  assert.deepEqual(
    seen.map((s) => s.name),
    ['s1', 's2', 'x1', 's3', 'x2', 's4'],
    'served in arrival order: s3 does not jump ahead of x1',
  );
  for (const s of seen) if (s.name !== 'x1') assert.ok(!s.beside.includes('x1'), `${s.name} ran beside x1`);
});

test('a job that throws still lets the next one run', async () => {
  const runs = new ExclusiveRuns();
  await assert.rejects(
    runs.run(true, async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(await runs.run(true, async () => 'ran'), 'ran');
});
